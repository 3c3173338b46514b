package service

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/doceval/doceval/pkg/config"
)

// Loop is one long-running part of a service (a JetStream consumer, a periodic job). It
// returns when ctx is done, after finishing the work in hand.
type Loop func(ctx context.Context) error

// Build makes a worker from its started runtime, once, and returns its loops. Whatever
// the loops share (the worker, its metrics registered once) is built there.
type Build func(ctx context.Context, rt *Runtime) ([]Loop, error)

// RunWorker runs a worker service: it starts the runtime, builds each worker in builds,
// then serves the ops endpoints on cfg.OpsAddr and runs the outbox relay and the
// workers' loops until ctx is done (SIGTERM), then drains within the shutdown timeout.
// No build is a service with the relay alone.
func RunWorker(ctx context.Context, name string, cfg config.Common, log *slog.Logger, builds ...Build) error {
	rt, err := Start(ctx, name, cfg, log)
	if err != nil {
		return err
	}
	defer rt.Close()
	var loops []Loop
	for _, build := range builds {
		more, err := build(ctx, rt)
		if err != nil {
			return err
		}
		loops = append(loops, more...)
	}
	ln, err := net.Listen("tcp", cfg.OpsAddr)
	if err != nil {
		return fmt.Errorf("ops listener %s: %w", cfg.OpsAddr, err)
	}
	log.Info("started", "ops_addr", ln.Addr().String())
	return rt.run(ctx, []served{{opsServer(rt), ln}}, loops)
}
