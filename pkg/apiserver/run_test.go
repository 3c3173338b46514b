package apiserver_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/devtools/natsembed"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
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
	cfg := apiserver.Config{Common: common(t), Tunables: apiserver.Tunables{
		RateLimit: 50, RateLimitBurst: 100, SecretKey: secretbox.NewKey(), KeyCacheTTL: 10 * time.Second,
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- apiserver.RunOn(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), ln) }()
	t.Cleanup(cancel)

	waitFor(t, base+"/readyz")
	// Its key cache listens for changes to keys (store.KeyCache): it serves nothing else.
	db, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		var listening bool
		err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN doceval_api_keys')").Scan(&listening)
		if err != nil {
			t.Fatal(err)
		}
		if listening {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the api's key cache does not listen for changes to keys")
		}
	}
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

// The api does not need NATS to take writes: with NATS down it starts, is ready and
// stores a submission (its events wait in the outbox); when NATS comes up the relay
// creates the streams and publishes them. NATS health shows as a metric.
func TestAPIWorksWhileNATSIsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	natsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	natsPort := natsLn.Addr().(*net.TCPAddr).Port
	natsLn.Close() // nothing listens there until the test starts NATS

	cfg := apiserver.Config{Common: common(t), Tunables: apiserver.Tunables{RateLimit: 50, RateLimitBurst: 100, SecretKey: secretbox.NewKey()}}
	cfg.NatsURL = "nats://127.0.0.1:" + strconv.Itoa(natsPort)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	done := make(chan error, 1)
	go func() { done <- apiserver.RunOn(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), ln) }()
	waitFor(t, base+"/readyz")
	if _, m := get(t, base+"/metrics"); !strings.Contains(m, "doceval_nats_connected 0") {
		t.Errorf("metrics do not show NATS down:\n%s", grepLines(m, "doceval_nats"))
	}

	pool, err := store.Connect(ctx, cfg.DatabaseURL, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := store.New(pool)
	_, _, key, err := st.CreateClient(ctx, "no-nats", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	// Create a submission and delete it: the purge job goes through the outbox.
	c, err := client.NewClientWithResponses(base, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionJSONRequestBody{ExternalSubmissionId: "while-nats-is-down"})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create submission with NATS down: %v %s", err, created.Body)
	}
	deleted, err := c.DeleteSubmissionWithResponse(ctx, created.JSON201.Id)
	if err != nil || deleted.StatusCode() >= 300 {
		t.Fatalf("delete submission with NATS down: %v %s", err, deleted.Body)
	}
	if n := outboxRows(t, st); n == 0 {
		t.Fatal("no outbox row waits for NATS")
	}

	srv, err := natsembed.Start(natsembed.Options{StoreDir: t.TempDir(), Port: natsPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	deadline := time.Now().Add(30 * time.Second)
	for outboxRows(t, st) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the outbox was not relayed after NATS came up")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, m := get(t, base+"/metrics"); !strings.Contains(m, "doceval_nats_connected 1") {
		t.Errorf("metrics do not show NATS up:\n%s", grepLines(m, "doceval_nats"))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("api stopped with %v", err)
	}
}

func outboxRows(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), "SELECT count(*) FROM outbox").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func grepLines(s, substr string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}
