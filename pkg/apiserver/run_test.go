package apiserver_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/dbtest"
	"github.com/doceval/doceval/pkg/natstest"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/service"
)

func common(t *testing.T) config.Common {
	_, dbURL := dbtest.NewWithURL(t)
	return config.Common{
		DatabaseURL: dbURL, NatsURL: natstest.URL(t), LogLevel: slog.LevelInfo, Migrate: true,
		StreamReplicas: 1, OpsAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second, OutboxRelay: true,
		BlobURL: blob.FileURL(t.TempDir()),
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func waitFor(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never became ready", url)
}

// doceval-api as its main runs it: ops endpoints, the API, and a clean stop when its
// context ends (SIGTERM in production).
func TestAPIServiceLifecycle(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := apiserver.Config{Common: common(t), Tunables: apiserver.Tunables{RateLimit: 50, RateLimitBurst: 100, SecretKey: secretbox.NewKey()}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- apiserver.RunOn(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), ln) }()
	t.Cleanup(cancel)

	waitFor(t, base+"/readyz")
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, _ := get(t, base+"/v1/templates"); code != 401 {
		t.Errorf("/v1/templates without a key: %d", code)
	}
	code, metrics := get(t, base+"/metrics")
	for _, want := range []string{"doceval_http_request_duration_seconds_bucket", "doceval_outbox_pending", "go_goroutines"} {
		if code != 200 || !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s (status %d)", want, code)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("api stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("api did not stop within its shutdown timeout")
	}
}

// A worker serves its ops endpoints on DOCEVAL_OPS_ADDR and stops cleanly.
func TestWorkerServiceLifecycle(t *testing.T) {
	cfg := common(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.OpsAddr = l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- service.RunWorker(ctx, "ingest", cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	base := "http://" + cfg.OpsAddr
	waitFor(t, base+"/readyz")
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	if code, m := get(t, base+"/metrics"); code != 200 || !strings.Contains(m, "doceval_outbox_lag_seconds") {
		t.Errorf("/metrics: %d", code)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("worker did not stop")
	}
}
