package console_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

// /metrics and /readyz are served on the internal ops listener only, not on the public
// one staff reach through the ingress; /readyz says nothing about the database.
func TestOpsEndpointsOnTheInternalPortOnly(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	cfg := console.Config{
		Common: config.Common{
			DatabaseURL: dbURL, NatsURL: natstest.URL(t), StreamReplicas: 1, ShutdownTimeout: 5 * time.Second,
			BlobURL: blob.FileURL(t.TempDir()),
		},
		Settings: defaultSettings(),
	}
	public, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	internal, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- console.RunOnListeners(ctx, cfg, slog.New(slog.NewTextHandler(testLog{t}, nil)), public, internal)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("console stopped: %v", err)
		}
	})
	get := func(ln net.Listener, path string) (int, string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := http.Get("http://" + ln.Addr().String() + path)
			if err == nil {
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				return res.StatusCode, string(body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: %v", path, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if status, _ := get(public, "/login"); status != http.StatusOK {
		t.Fatalf("public /login: %d", status)
	}
	for _, path := range []string{"/metrics", "/readyz"} {
		if status, body := get(public, path); status != http.StatusNotFound || strings.Contains(body, "go_goroutines") {
			t.Errorf("public %s: %d", path, status)
		}
	}
	if status, body := get(internal, "/metrics"); status != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("internal /metrics: %d", status)
	}
	status, body := get(internal, "/readyz")
	if status != http.StatusOK || body != "ready\n" {
		t.Errorf("internal /readyz: %d %q", status, body)
	}
	if status, _ := get(internal, "/healthz"); status != http.StatusOK {
		t.Errorf("internal /healthz: %d", status)
	}
	// The internal listener serves nothing of the console itself.
	if status, _ := get(internal, "/login"); status != http.StatusNotFound {
		t.Errorf("internal /login: %d", status)
	}
}
