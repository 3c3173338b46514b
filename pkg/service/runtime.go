// Package service is what the services share at run time: connecting to
// PostgreSQL and JetStream, migrations, the outbox relay, the ops endpoints
// (/healthz, /readyz, /metrics) and graceful shutdown. RunWorker (ingest, evaluator,
// dispatcher) and RunServer (api, console) run a service built once from its Runtime.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/catalog"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/outbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/tracing"
)

// Runtime is a started service's connections and instruments.
type Runtime struct {
	Name     string
	Config   config.Common
	Log      *slog.Logger
	Store    *store.Store
	NC       *nats.Conn
	JS       jetstream.JetStream
	Registry *prometheus.Registry
	// Tracer is the service's TracerProvider: exporting over OTLP when the OTEL_*
	// environment asks for it, a no-op otherwise (pkg/tracing).
	Tracer trace.TracerProvider

	// outboxOnly: the service reaches JetStream through the outbox relay alone (the api).
	outboxOnly   bool
	streamsReady atomic.Bool
	consumers    *messaging.Metrics
	flushTracing tracing.Shutdown
	blobsOnce    sync.Once
	blobs        *blob.Store
	blobsErr     error
}

// Option adjusts how a service starts.
type Option func(*Runtime)

// OutboxOnly is for a service that reaches JetStream only through its outbox relay (the
// api): start-up does not wait for NATS, the relay creates the streams in the
// background before it publishes, and readiness depends on PostgreSQL alone, since
// the outbox keeps every write while NATS is away. NATS health is the
// doceval_nats_connected metric.
func OutboxOnly() Option { return func(rt *Runtime) { rt.outboxOnly = true } }

// Start connects to PostgreSQL (migrating when configured) and JetStream (ensuring the
// streams unless OutboxOnly). Both wait for their server, so start-up order does not
// matter.
func Start(ctx context.Context, name string, cfg config.Common, log *slog.Logger, opts ...Option) (*Runtime, error) {
	rt := &Runtime{Name: name, Config: cfg, Log: log}
	for _, o := range opts {
		o(rt)
	}
	pool, err := store.Connect(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, err
	}
	if cfg.Migrate {
		if err := catalog.Prepare(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	nc, js, err := messaging.Connect(ctx, cfg.NatsURL, "doceval-"+name, log)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if !rt.outboxOnly {
		if err := messaging.EnsureStreams(ctx, js, cfg.StreamReplicas, log); err != nil {
			nc.Close()
			pool.Close()
			return nil, err
		}
		rt.streamsReady.Store(true)
	}
	tp, flushTracing, err := tracing.New(ctx, name, Version)
	if err != nil {
		nc.Close()
		pool.Close()
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), BuildInfo(name))
	rt.Store, rt.NC, rt.JS, rt.Registry = store.New(pool), nc, js, reg
	rt.Tracer, rt.consumers, rt.flushTracing = tp, messaging.NewMetrics(reg), flushTracing
	reg.MustRegister(outboxCollector{store: rt.Store}, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "doceval_nats_connected", Help: "1 while the service's NATS connection is up, else 0.",
	}, func() float64 {
		if nc.IsConnected() {
			return 1
		}
		return 0
	}))
	return rt, nil
}

// Blobs opens the blob store on first use. Only the services that keep files (api,
// ingest) call it, at start-up, so a bad DOCEVAL_BLOB_URL stops them at once, while the
// evaluator and dispatcher never touch the store (nor need a writable blob directory).
func (rt *Runtime) Blobs(ctx context.Context) (*blob.Store, error) {
	rt.blobsOnce.Do(func() { rt.blobs, rt.blobsErr = blob.Open(ctx, rt.Config.BlobURL) })
	return rt.blobs, rt.blobsErr
}

// Close releases the connections, then flushes the spans still buffered.
func (rt *Runtime) Close() {
	rt.blobsOnce.Do(func() {}) // never opened: stays so
	if rt.blobs != nil {
		_ = rt.blobs.Close()
	}
	_ = rt.NC.Drain()
	rt.Store.Pool().Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rt.flushTracing(ctx); err != nil {
		rt.Log.Warn("flush traces", "error", err)
	}
}

// Consume runs a JetStream consumer of this service (messaging.Consume), counted on its
// registry and traced with its TracerProvider.
func (rt *Runtime) Consume(ctx context.Context, spec messaging.ConsumerSpec, handler messaging.Handler, log *slog.Logger) error {
	return messaging.Consume(ctx, rt.JS, spec, handler, log, messaging.WithMetrics(rt.consumers), messaging.WithTracerProvider(rt.Tracer))
}

// ConsumeFair runs a per-client job queue of this service (messaging.ConsumeFair),
// counted and traced as Consume.
func (rt *Runtime) ConsumeFair(ctx context.Context, spec messaging.FairSpec, handler messaging.Handler, log *slog.Logger) error {
	return messaging.ConsumeFair(ctx, rt.JS, spec, handler, log, messaging.WithMetrics(rt.consumers), messaging.WithTracerProvider(rt.Tracer))
}

// RunRelay runs the outbox relay when the configuration asks for one, after making
// sure the streams exist (an OutboxOnly service did not wait for them at start-up).
func (rt *Runtime) RunRelay(ctx context.Context) error {
	if !rt.Config.OutboxRelay {
		return nil
	}
	published := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "doceval_outbox_published_total", Help: "Outbox rows published to JetStream by this process.",
	})
	rt.Registry.MustRegister(published)
	if !rt.streamsReady.Load() {
		if err := messaging.EnsureStreams(ctx, rt.JS, rt.Config.StreamReplicas, rt.Log); err != nil {
			if ctx.Err() != nil {
				return nil // stopped before NATS came back
			}
			return err
		}
		rt.streamsReady.Store(true)
	}
	r := &outbox.Relay{Store: rt.Store, JS: rt.JS, Log: rt.Log.With("component", "outbox-relay"), Published: published, Tracer: rt.Tracer}
	return r.Run(ctx)
}

// Ready reports whether the service can do its work: the database reachable, and NATS
// connected unless the service only publishes through the outbox (OutboxOnly).
func (rt *Runtime) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := rt.Store.Ping(ctx); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	if !rt.outboxOnly && !rt.NC.IsConnected() {
		return errors.New("nats: not connected")
	}
	return nil
}

// OpsHandler serves /healthz (the process is alive), /readyz (it can work) and /metrics.
func (rt *Runtime) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if err := rt.Ready(r.Context()); err != nil {
			// The reason goes to the log, not to whoever asks: a database error names
			// its host, user and database.
			if rt.Log != nil {
				rt.Log.Warn("not ready", "error", err)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(rt.Registry, promhttp.HandlerOpts{}))
	return mux
}

// Serve runs srv on ln until ctx is done, then shuts it down gracefully within timeout.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, timeout time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// outboxCollector exports the outbox backlog at scrape time.
type outboxCollector struct{ store *store.Store }

var (
	outboxPendingDesc = prometheus.NewDesc("doceval_outbox_pending", "Outbox rows not yet published.", nil, nil)
	outboxLagDesc     = prometheus.NewDesc("doceval_outbox_lag_seconds", "Age of the oldest unpublished outbox row.", nil, nil)
)

func (outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- outboxPendingDesc
	ch <- outboxLagDesc
}

func (c outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pending, lag, err := c.store.OutboxStats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(outboxPendingDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(outboxPendingDesc, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(outboxLagDesc, prometheus.GaugeValue, lag.Seconds())
}
