package dispatch_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
	pool := dbtest.New(b)
	st := store.New(pool)
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
			cpu := cpuMeter{pool: pool}
			for b.Loop() {
				b.StopTimer()
				emitBatch(perOp)
				analyze(b, pool)
				target := received.Load() + perOp
				cpu.start(b)
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
				b.StopTimer()
				cpu.stop(b)
				b.StartTimer()
			}
			b.ReportMetric(float64(perOp)*float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
			cpu.report(b, perOp*b.N, "delivery")
		})
	}
}

// BenchmarkDeliveryLatency: event commit to receipt through the whole path (outbox,
// relay, JetStream, fan-out, dispatcher) at a steady 1,000 events/s for 5 s; reports p50
// and p99, the rate the events were written at (events/s: below 1,000 when the
// machine could not keep the pace), and the CPU per event of the whole path in this
// process and in PostgreSQL (NATS not counted).
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
	// writeAtRate writes n events at the rate, each at its time on the schedule, by
	// one of a few writers (a commit may take longer than the 1 ms between events),
	// waits until all were received, and returns how long the writing took.
	writeAtRate := func(n int) time.Duration {
		mu.Lock()
		latencies = latencies[:0]
		mu.Unlock()
		due := make(chan struct{}, n)
		var writers sync.WaitGroup
		for range 4 {
			writers.Go(func() {
				for range due {
					emit()
				}
			})
		}
		start := time.Now()
		for i := range n {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / rate)))
			due <- struct{}{}
		}
		close(due)
		writers.Wait()
		took := time.Since(start)
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			got := len(latencies)
			mu.Unlock()
			if got >= n || time.Now().After(deadline) {
				return took
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// One second of warm-up, then the planner's statistics of a database in use (as
	// autovacuum keeps them; a new database has none).
	writeAtRate(rate)
	analyze(b, pool)
	var written time.Duration
	cpu := cpuMeter{pool: pool}
	for b.Loop() {
		cpu.start(b)
		written += writeAtRate(rate * seconds)
		cpu.stop(b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(latencies) < rate*seconds {
		b.Fatalf("%d of %d events delivered", len(latencies), rate*seconds)
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	b.ReportMetric(float64(rate*seconds*b.N)/written.Seconds(), "events/s")
	cpu.report(b, rate*seconds*b.N, "event")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}

// analyze gives the planner statistics of the tables the dispatcher reads, as
// autovacuum keeps them in a database in use: the benchmarks' databases are new.
func analyze(b *testing.B, pool *pgxpool.Pool) {
	b.Helper()
	if _, err := pool.Exec(context.Background(), "ANALYZE deliveries, events, webhook_endpoints, api_clients"); err != nil {
		b.Fatal(err)
	}
}

// cpuMeter adds up the CPU time of this process (dispatcher, receiver) and of the
// PostgreSQL backends serving the benchmark's database, between start and stop: on a
// machine busy with other work the figures per delivery hold where the rates do not.
// The backends' time is read from /proc (Linux, a server on this machine); without it
// only the process is reported.
type cpuMeter struct {
	pool          *pgxpool.Pool
	self, pg      time.Duration
	selfAt        time.Duration
	pgAt          map[int]time.Duration
	pgUnavailable bool
}

func (m *cpuMeter) start(b *testing.B) {
	m.selfAt = processCPU(b)
	m.pgAt = m.backendsCPU(b)
}

func (m *cpuMeter) stop(b *testing.B) {
	m.self += processCPU(b) - m.selfAt
	for pid, t := range m.backendsCPU(b) {
		m.pg += t - m.pgAt[pid] // a backend started meanwhile counts from zero
	}
}

func (m *cpuMeter) report(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(m.self.Microseconds())/float64(n), "proc-cpu-µs/"+unit)
	if !m.pgUnavailable {
		b.ReportMetric(float64(m.pg.Microseconds())/float64(n), "pg-cpu-µs/"+unit)
	}
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendsCPU reads each backend's utime and stime (fields 14 and 15 of
// /proc/<pid>/stat, in ticks of 1/100 s).
func (m *cpuMeter) backendsCPU(b *testing.B) map[int]time.Duration {
	out := map[int]time.Duration{}
	if m.pgUnavailable {
		return out
	}
	rows, err := m.pool.Query(context.Background(), "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
		if err != nil {
			if len(out) == 0 && os.IsNotExist(err) {
				m.pgUnavailable = true // not on this machine
				return out
			}
			continue // ended meanwhile
		}
		_, after, _ := strings.Cut(string(stat), ") ") // the command name may hold spaces
		fields := strings.Fields(after)
		if len(fields) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		out[int(pid)] = time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return out
}
