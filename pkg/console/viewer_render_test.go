package console

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
)

// With every render slot taken, a page waits for one no longer than the render's
// timeout, and then says the renderer is busy (503 with retry-after) rather than
// queueing without end.
func TestPageRendererBusy(t *testing.T) {
	t.Parallel()
	blobs, err := blob.Open(context.Background(), blob.FileURL(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	p := newPageRenderer(blobs, Settings{})
	if p.dpi != defaultViewDPI || cap(p.slots) != maxRenders {
		t.Fatalf("renderer: %d dpi, %d slots", p.dpi, cap(p.slots))
	}
	p.timeout = 50 * time.Millisecond
	for range maxRenders {
		p.slots <- struct{}{}
	}
	v := viewedPage{client: uuid.New(), submission: uuid.New(), upload: uuid.New(), page: 1}
	start := time.Now()
	_, _, err = p.page(context.Background(), v, "no/such.pdf")
	if !errors.Is(err, errRenderBusy) || time.Since(start) > 5*time.Second {
		t.Fatalf("busy renderer: %v after %s", err, time.Since(start))
	}
	// A slot free again: the missing PDF is not found.
	<-p.slots
	if _, _, err := p.page(context.Background(), v, "no/such.pdf"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("missing PDF: %v", err)
	}
}

// The console renders partners' PDFs only confined: where the sandbox cannot be made
// (no bwrap here) it refuses to start, before it touches the database, unless
// DOCEVAL_PARSER_ISOLATION=unconfined says otherwise.
func TestConsoleRefusesToStartWithoutSandbox(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Common: config.Common{DatabaseURL: "postgres://nobody@127.0.0.1:1/none", NatsURL: "nats://127.0.0.1:1"}}
	err = RunOn(context.Background(), cfg, slog.New(slog.DiscardHandler), ln)
	if err == nil || !strings.Contains(err.Error(), "DOCEVAL_PARSER_ISOLATION=unconfined") {
		t.Fatalf("RunOn without a sandbox: %v", err)
	}
	t.Log(err)
}
