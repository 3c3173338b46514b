package service

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/doceval/doceval/pkg/config"
)

// Server is a server service (the api, the console) as built from its runtime.
type Server struct {
	// Handler serves the public listener; where RunServer has no ops listener it
	// answers the ops endpoints itself (the api's Deps.Ops).
	Handler http.Handler
	// Loops run beside the relay, e.g. the removal of expired rows.
	Loops []Loop
	// Started are attributes of the "started" log line beyond the listeners' addresses.
	Started []any
}

// ServerBuild makes a server from its started runtime, once.
type ServerBuild func(ctx context.Context, rt *Runtime) (Server, error)

// RunServer runs a server service, the counterpart of RunWorker: it starts the runtime
// as OutboxOnly (a server writes to JetStream only through the outbox, so it serves
// while NATS is away), builds the server, then serves its handler on ln, the ops
// endpoints on ops unless ops is nil, and runs the outbox relay and the server's loops
// until ctx is done (SIGTERM); then it shuts the servers down gracefully within the
// shutdown timeout. The listeners are closed on every path.
func RunServer(ctx context.Context, name string, cfg config.Common, log *slog.Logger, ln, ops net.Listener, build ServerBuild) error {
	rt, err := Start(ctx, name, cfg, log, OutboxOnly())
	if err != nil {
		closeListeners(ln, ops)
		return err
	}
	defer rt.Close()
	s, err := build(ctx, rt)
	if err != nil {
		closeListeners(ln, ops)
		return err
	}
	servers := []served{{&http.Server{Handler: s.Handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}, ln}}
	started := []any{"addr", ln.Addr().String()}
	if ops != nil {
		servers = append(servers, served{opsServer(rt), ops})
		started = append(started, "ops_addr", ops.Addr().String())
	}
	log.Info("started", append(started, s.Started...)...)
	return rt.run(ctx, servers, s.Loops)
}

// closeListeners closes the listeners a service will not serve; nil ones are skipped.
func closeListeners(lns ...net.Listener) {
	for _, ln := range lns {
		if ln != nil {
			_ = ln.Close()
		}
	}
}
