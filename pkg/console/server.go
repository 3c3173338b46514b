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
	// The document viewer renders partners' PDFs: never unconfined unless asked.
	how, err := extractor.CheckConfined(ctx, cfg.Extractor, cfg.ParserIsolation, "")
	if err != nil {
		ln.Close()
		ops.Close()
		return fmt.Errorf("console: page rendering: %w", err)
	}
	log.Info("document tools", "confinement", how)
	return service.RunServer(ctx, "console", cfg.Common, log, ln, ops, func(ctx context.Context, rt *service.Runtime) (service.Server, error) {
		blobs, err := rt.Blobs(ctx)
		if err != nil {
			return service.Server{}, err
		}
		oidc, err := NewOIDC(ctx, cfg.Settings)
		if err != nil {
			return service.Server{}, err
		}
		h, err := New(Deps{Store: rt.Store, Blobs: blobs, Log: log, Settings: cfg.Settings, Health: rt.OpsHandler(), OIDC: oidc, Registry: rt.Registry})
		if err != nil {
			return service.Server{}, err
		}
		expiredSessions := func(ctx context.Context) error {
			return service.Every(ctx, 5*time.Minute, func(ctx context.Context) {
				// Sign-in failures are kept for a day, or for the throttling window if longer.
				if _, err := rt.Store.DeleteExpiredSessions(ctx, cfg.SessionIdle, max(cfg.LoginWindow, 24*time.Hour)); err != nil && ctx.Err() == nil {
					log.Warn("delete expired sessions", "error", err)
				}
			})
		}
		return service.Server{Handler: h, Loops: []service.Loop{expiredSessions}, Started: []any{"sso", oidc != nil}}, nil
	})
}
