// Package console is the lender's staff web application, doceval-console: operators
// manage API clients, keys and permissions; advisors review submissions with the
// documents and the evaluation side by side and decide on document slots
// (SlotReview, document_slot.updated). Pages are rendered on the server from the
// templates in templates/; the few scripts and the stylesheet are embedded, nothing
// comes from elsewhere.
package console

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
)

// Deps are what the console is built from.
type Deps struct {
	Store    *store.Store
	Blobs    *blob.Store
	Log      *slog.Logger
	Settings Settings
	// Health answers /healthz on the public listener (nil: not served); /readyz and
	// /metrics are served on the internal listener only (RunOnListeners).
	Health http.Handler
	// OIDC is the single sign-on provider (nil: passwords only).
	OIDC *OIDC
	// Registry takes the console's own metrics (nil: not exported).
	Registry prometheus.Registerer
}

// Run serves the console on cfg.HTTPAddr until ctx is done.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.HTTPAddr, err)
	}
	return RunOn(ctx, cfg, log, ln)
}

// RunOn serves the console on ln and its ops endpoints on cfg.OpsAddr (RunOnListeners).
func RunOn(ctx context.Context, cfg Config, log *slog.Logger, ln net.Listener) error {
	ops, err := net.Listen("tcp", cfg.OpsAddr)
	if err != nil {
		ln.Close()
		return fmt.Errorf("ops listener %s: %w", cfg.OpsAddr, err)
	}
	return RunOnListeners(ctx, cfg, log, ln, ops)
}

// RunOnListeners serves the console on ln, with an outbox relay for the events
// decisions emit, and removes expired sessions every few minutes. /readyz and /metrics
// are served on ops alone, the internal port (DOCEVAL_OPS_ADDR, as the workers'), never
// on the public listener, which staff reach through the ingress; /healthz on both.
//
// It refuses to start where the page renderer cannot be confined as ParserIsolation
// says (and renders through no extractor).
func RunOnListeners(ctx context.Context, cfg Config, log *slog.Logger, ln, ops net.Listener) error {
	closeAll := func() {
		ln.Close()
		ops.Close()
	}
	// The document viewer renders partners' PDFs: never unconfined unless asked.
	how, err := extractor.CheckConfined(ctx, cfg.Extractor, cfg.ParserIsolation, "")
	if err != nil {
		closeAll()
		return fmt.Errorf("console: page rendering: %w", err)
	}
	log.Info("document tools", "confinement", how)
	rt, err := service.Start(ctx, "console", cfg.Common, log, service.OutboxOnly())
	if err != nil {
		closeAll()
		return err
	}
	defer rt.Close()
	blobs, err := rt.Blobs(ctx)
	if err != nil {
		closeAll()
		return err
	}
	oidc, err := NewOIDC(ctx, cfg.Settings)
	if err != nil {
		closeAll()
		return err
	}
	opsHandler := rt.OpsHandler()
	h, err := New(Deps{Store: rt.Store, Blobs: blobs, Log: log, Settings: cfg.Settings, Health: opsHandler, OIDC: oidc, Registry: rt.Registry})
	if err != nil {
		closeAll()
		return err
	}
	log.Info("started", "addr", ln.Addr().String(), "ops_addr", ops.Addr().String(), "sso", oidc != nil)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	opsSrv := &http.Server{Handler: opsHandler, ReadHeaderTimeout: 5 * time.Second}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return service.Serve(ctx, srv, ln, cfg.ShutdownTimeout) })
	g.Go(func() error { return service.Serve(ctx, opsSrv, ops, cfg.ShutdownTimeout) })
	g.Go(func() error { return rt.RunRelay(ctx) })
	g.Go(func() error {
		return service.Every(ctx, 5*time.Minute, func(ctx context.Context) {
			// Sign-in failures are kept for a day, or for the throttling window if longer.
			if _, err := rt.Store.DeleteExpiredSessions(ctx, cfg.SessionIdle, max(cfg.LoginWindow, 24*time.Hour)); err != nil && ctx.Err() == nil {
				log.Warn("delete expired sessions", "error", err)
			}
		})
	})
	err = g.Wait()
	log.Info("stopped", "error", err)
	return err
}
