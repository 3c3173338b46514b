package service

import (
	"context"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// served is an HTTP server and the listener it serves.
type served struct {
	srv *http.Server
	ln  net.Listener
}

// opsServer serves the runtime's ops endpoints (OpsHandler) on an internal listener.
func opsServer(rt *Runtime) *http.Server {
	return &http.Server{Handler: rt.OpsHandler(), ReadHeaderTimeout: 5 * time.Second}
}

// run is the body RunWorker and RunServer share: the servers, the outbox relay and the
// loops until ctx is done or one of them fails; then the servers shut down gracefully
// within the shutdown timeout and the loops finish the work in hand.
func (rt *Runtime) run(ctx context.Context, servers []served, loops []Loop) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, s := range servers {
		g.Go(func() error { return Serve(ctx, s.srv, s.ln, rt.Config.ShutdownTimeout) })
	}
	g.Go(func() error { return rt.RunRelay(ctx) })
	for _, loop := range loops {
		g.Go(func() error { return loop(ctx) })
	}
	err := g.Wait()
	rt.Log.Info("stopped", "error", err)
	return err
}
