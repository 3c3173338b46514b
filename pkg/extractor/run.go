package extractor

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"

	"github.com/doceval/doceval/pkg/service"
)

// Run is the extractor service: the operations on cfg.HTTPAddr, /healthz, /readyz and
// /metrics on cfg.OpsAddr, until ctx is done (SIGTERM); then the documents in work are
// finished within the shutdown timeout. It connects to nothing.
func Run(ctx context.Context, cfg ServerConfig, log *slog.Logger) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), service.BuildInfo("extractor"))
	srv := NewServer(cfg, log, reg)
	if err := srv.Ready(); err != nil {
		log.Warn("document tools missing: not ready", "error", err)
	}
	how, err := cfg.ParserIsolation.Check(ctx, cfg.TempDir)
	if err != nil {
		return fmt.Errorf("extractor: %w", err)
	}
	log.Info("document tools confined", "confinement", how, "max_memory_bytes", cfg.ToolMaxMemory,
		"concurrency", cfg.Concurrency, "max_body_bytes", cfg.MaxBodyBytes)

	api, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listener %s: %w", cfg.HTTPAddr, err)
	}
	ops, err := net.Listen("tcp", cfg.OpsAddr)
	if err != nil {
		api.Close()
		return fmt.Errorf("ops listener %s: %w", cfg.OpsAddr, err)
	}
	log.Info("started", "http_addr", api.Addr().String(), "ops_addr", ops.Addr().String())

	handler := srv.Handler()
	opsMux := http.NewServeMux()
	opsMux.Handle("GET "+pathHealth, handler)
	opsMux.Handle("GET "+pathReady, handler)
	opsMux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	g, ctx := errgroup.WithContext(ctx)
	// No overall read or write timeout: a document's budget is its request's (capped by
	// MaxTimeout), and the body's read deadline is set once its slot is free.
	g.Go(func() error {
		return service.Serve(ctx, &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}, api, cfg.ShutdownTimeout)
	})
	g.Go(func() error {
		return service.Serve(ctx, &http.Server{Handler: opsMux, ReadHeaderTimeout: 5 * time.Second}, ops, cfg.ShutdownTimeout)
	})
	err = g.Wait()
	log.Info("stopped", "error", err)
	return err
}
