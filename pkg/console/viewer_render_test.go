package console

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/blob"
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
