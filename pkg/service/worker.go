package service

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/doceval/doceval/pkg/config"
)

// Task is one long-running part of a worker (a JetStream consumer, a periodic job). It
// returns when ctx is done, after finishing the work in hand.
type Task func(ctx context.Context, rt *Runtime) error

// Shared memoizes build per runtime: the tasks of one RunWorker share what it builds
// from their runtime (a worker, its metrics registered once), and another runtime gets
// its own.
func Shared[T any](build func(*Runtime) T) func(*Runtime) T {
	var mu sync.Mutex
	built := map[*Runtime]T{}
	return func(rt *Runtime) T {
		mu.Lock()
		defer mu.Unlock()
		v, ok := built[rt]
		if !ok {
			v = build(rt)
			built[rt] = v
		}
		return v
	}
}

// RunWorker runs a worker service: the ops endpoints, the outbox relay and its tasks,
// until ctx is done (SIGTERM), then drains within the shutdown timeout.
func RunWorker(ctx context.Context, name string, cfg config.Common, log *slog.Logger, tasks ...Task) error {
	rt, err := Start(ctx, name, cfg, log)
	if err != nil {
		return err
	}
	defer rt.Close()
	ln, err := net.Listen("tcp", cfg.OpsAddr)
	if err != nil {
		return fmt.Errorf("ops listener %s: %w", cfg.OpsAddr, err)
	}
	log.Info("started", "ops_addr", ln.Addr().String())
	g, ctx := errgroup.WithContext(ctx)
	ops := &http.Server{Handler: rt.OpsHandler(), ReadHeaderTimeout: 5 * time.Second}
	g.Go(func() error { return Serve(ctx, ops, ln, cfg.ShutdownTimeout) })
	g.Go(func() error { return rt.RunRelay(ctx) })
	for _, task := range tasks {
		g.Go(func() error { return task(ctx, rt) })
	}
	err = g.Wait()
	log.Info("stopped", "error", err)
	return err
}
