package dispatch_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

// BenchmarkDeliveries: deliveries per second to a local receiver answering 200 at once,
// with one and with two dispatcher replicas sharing the work (one op = 2000 deliveries).
func BenchmarkDeliveries(b *testing.B) {
	const perOp = 2000
	ctx := context.Background()
	st := store.New(dbtest.New(b))
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, _ := secretbox.New(key)
	c, _, _, err := st.CreateClient(ctx, "bench", auth.AllPermissions)
	if err != nil {
		b.Fatal(err)
	}
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		received.Add(1)
	}))
	defer srv.Close()
	tenant := st.Tenant(c.ID)
	// Several endpoints, as real traffic has: the per-endpoint limit applies to each.
	for i := range 8 {
		if _, err := tenant.CreateWebhookEndpoint(ctx, srv.URL+"/"+string(rune('a'+i)), "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_b"), id[:]) }); err != nil {
			b.Fatal(err)
		}
	}
	emitBatch := func(n int) {
		for i := 0; i < n; i += 8 { // 8 endpoints: n/8 events
			var id uuid.UUID
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				env, err := tx.Emit(ctx, events.Draft{APIClientID: c.ID, Type: events.FileReady, Data: map[string]string{"k": "v"}})
				if err == nil {
					id, err = events.ParseID(env.ID)
				}
				return err
			}); err != nil {
				b.Fatal(err)
			}
			if _, err := st.FanOut(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, replicas := range []int{1, 2} {
		name := "1_replica"
		if replicas == 2 {
			name = "2_replicas"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				emitBatch(perOp)
				target := received.Load() + perOp
				b.StartTimer()
				runCtx, cancel := context.WithCancel(ctx)
				var wg sync.WaitGroup
				for range replicas {
					d := &dispatch.Dispatcher{Store: st, Secrets: box, Log: slog.New(slog.DiscardHandler), Timeout: 5 * time.Second, Concurrency: 64, AllowPrivate: true}
					wg.Go(func() { d.Run(runCtx) })
				}
				for received.Load() < target {
					time.Sleep(2 * time.Millisecond)
				}
				cancel()
				wg.Wait()
			}
			b.ReportMetric(float64(perOp)*float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkDeliveryLatency: event commit to receipt through the whole path (outbox,
// relay, JetStream, fan-out, dispatcher) at a steady 1,000 events/s for 5 s; reports p50
// and p99, and the rate the events were written at (events/s: below 1,000 when the
// machine could not keep the pace).
func BenchmarkDeliveryLatency(b *testing.B) {
	ctx := context.Background()
	pool, dbURL := dbtest.NewWithURL(b)
	st := store.New(pool)
	key := secretbox.NewKey()
	k, _ := secretbox.ParseKey(key)
	box, _ := secretbox.New(k)
	c, _, _, err := st.CreateClient(ctx, "bench", auth.AllPermissions)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var latencies []time.Duration
	sent := map[string]time.Time{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		now := time.Now()
		id, _, _ := strings.Cut(strings.TrimPrefix(string(body), `{"id":"`), `"`)
		mu.Lock()
		if t0, ok := sent[id]; ok {
			latencies = append(latencies, now.Sub(t0))
		}
		mu.Unlock()
	}))
	defer srv.Close()
	if _, err := st.Tenant(c.ID).CreateWebhookEndpoint(ctx, srv.URL, "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_b"), id[:]) }); err != nil {
		b.Fatal(err)
	}
	common := config.Common{DatabaseURL: dbURL, NatsURL: natstest.URL(b), LogLevel: slog.LevelWarn, StreamReplicas: 1,
		OpsAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second, OutboxRelay: true, BlobURL: blob.FileURL(b.TempDir())}
	log := slog.New(slog.DiscardHandler)
	worker, err := dispatch.Build(dispatch.Config{SecretKey: key, Timeout: 5 * time.Second, Concurrency: 32, EventRetention: 720 * time.Hour, AllowPrivate: true}, log)
	if err != nil {
		b.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- service.RunWorker(runCtx, "dispatcher", common, log, worker) }()
	defer func() { cancel(); <-done }()
	time.Sleep(500 * time.Millisecond) // streams and consumers up

	const rate, seconds = 1000, 5
	emit := func() {
		if err := st.InTx(ctx, func(tx *store.Tx) error {
			env, err := tx.Emit(ctx, events.Draft{APIClientID: c.ID, Type: events.FileReady, Data: map[string]string{"k": "v"}})
			if err == nil {
				mu.Lock()
				sent[env.ID] = time.Now() // just before commit: the latency includes it
				mu.Unlock()
			}
			return err
		}); err != nil {
			b.Error(err)
		}
	}
	var written time.Duration
	for b.Loop() {
		mu.Lock()
		latencies = latencies[:0]
		mu.Unlock()
		// Each event is written at its time on the schedule, by one of a few writers
		// (a commit may take longer than the 1 ms between events).
		due := make(chan struct{}, rate)
		var writers sync.WaitGroup
		for range 4 {
			writers.Go(func() {
				for range due {
					emit()
				}
			})
		}
		start := time.Now()
		for i := range rate * seconds {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / rate)))
			due <- struct{}{}
		}
		close(due)
		writers.Wait()
		written += time.Since(start)
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			n := len(latencies)
			mu.Unlock()
			if n >= rate*seconds || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(latencies) < rate*seconds {
		b.Fatalf("%d of %d events delivered", len(latencies), rate*seconds)
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	b.ReportMetric(float64(rate*seconds*b.N)/written.Seconds(), "events/s")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}
