// Package apiserver is the doceval-api service: the Echo strict server generated from
// openapi/openapi.yaml, wired with the cross-cutting middleware of pkg/httpx, and the
// handlers, a file per resource in this package (submissions.go, uploads.go, …).
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
)

// MaxJSONBody bounds JSON request bodies; larger ones answer 413 request_too_large.
const MaxJSONBody = 1 << 20

// DefaultMaxUploadBytes is the default size limit of one uploaded file (100 MiB).
const DefaultMaxUploadBytes = 100 << 20

// Config is the API service's configuration.
type Config struct {
	config.Common
	Tunables
}

// Tunables are the API's own settings (the dev stack reads only these).
type Tunables struct {
	HTTPAddr string `env:"DOCEVAL_HTTP_ADDR" envDefault:":8080"`
	// PublicURL is where API clients reach this API (https://api.example.com): the
	// server that /openapi.yaml and /openapi.json name. Empty keeps the spec's
	// templated server.
	PublicURL string `env:"DOCEVAL_PUBLIC_URL"`
	// RateLimit is requests per second per API client (0 turns limiting off);
	// RateLimitBurst is the bucket size.
	RateLimit      float64 `env:"DOCEVAL_RATE_LIMIT" envDefault:"50"`
	RateLimitBurst int     `env:"DOCEVAL_RATE_LIMIT_BURST" envDefault:"100"`
	// InvalidKeyRate is requests without a valid key per second per source address (0
	// turns that limit off); InvalidKeyBurst is the bucket size.
	InvalidKeyRate  float64 `env:"DOCEVAL_INVALID_KEY_RATE" envDefault:"1"`
	InvalidKeyBurst int     `env:"DOCEVAL_INVALID_KEY_BURST" envDefault:"20"`
	// TrustedProxies are the reverse proxies (CIDRs or addresses, comma-separated) whose
	// X-Forwarded-For names a request's source; otherwise the peer address is.
	TrustedProxies string `env:"DOCEVAL_TRUSTED_PROXIES" envDefault:""`
	MaxUploadBytes int64  `env:"DOCEVAL_MAX_UPLOAD_BYTES" envDefault:"104857600"`
	// MaxConcurrentUploads is how many uploads one API client may send at once to one
	// replica (0: any number); UploadIdleTimeout cuts off an upload whose bytes stop
	// arriving for that long (0: never).
	MaxConcurrentUploads int           `env:"DOCEVAL_MAX_CONCURRENT_UPLOADS" envDefault:"16"`
	UploadIdleTimeout    time.Duration `env:"DOCEVAL_UPLOAD_IDLE_TIMEOUT" envDefault:"30s"`
	// MaxUploadsPerSubmission and MaxPagesPerEvaluation cap a submission's uploads and
	// the pages one evaluation reads (0: no cap).
	MaxUploadsPerSubmission int `env:"DOCEVAL_MAX_UPLOADS_PER_SUBMISSION" envDefault:"200"`
	MaxPagesPerEvaluation   int `env:"DOCEVAL_MAX_PAGES_PER_EVALUATION" envDefault:"2000"`
	// MaxFeedWaits is how many listEventFeed long-polls of one API client wait at once
	// on one replica; beyond it a read answers at once (0: any number).
	MaxFeedWaits int `env:"DOCEVAL_MAX_FEED_WAITS" envDefault:"4"`
	// KeyCacheTTL is how long an API key's lookup is answered from memory at most
	// (store.KeyCache: changes to keys and clients empty it at once; 0: every request
	// looks its key up).
	KeyCacheTTL time.Duration `env:"DOCEVAL_API_KEY_CACHE_TTL" envDefault:"10s"`
	// SecretKey encrypts webhook signing secrets at rest: 32 bytes in base64.
	SecretKey string `env:"DOCEVAL_SECRET_KEY"`
	// SecretRotationGrace is how long a rotated-out signing secret stays valid.
	SecretRotationGrace time.Duration `env:"DOCEVAL_SECRET_ROTATION_GRACE" envDefault:"24h"`
}

// Deps are what the HTTP server is built from.
type Deps struct {
	Store *store.Store
	// Keys answers key lookups from memory (nil: every request looks its key up in
	// Store); its Watch must run.
	Keys        *store.KeyCache
	Log         *slog.Logger
	Registry    prometheus.Registerer
	RateLimiter *httpx.RateLimiter
	// InvalidKeyLimiter limits requests that do not authenticate per source (nil: off).
	InvalidKeyLimiter *httpx.InvalidKeyLimiter
	// TrustedProxies may name a request's source in X-Forwarded-For (none: the peer
	// address is the source).
	TrustedProxies []netip.Prefix
	// Ready reports readiness for /readyz (nil: always ready).
	Ready func(context.Context) error
	// Ops serves /healthz, /readyz and /metrics (nil: built from Ready and Registry).
	Ops http.Handler
	// Blobs holds uploaded files.
	Blobs *blob.Store
	// MaxUploadBytes bounds one uploaded file (DOCEVAL_MAX_UPLOAD_BYTES).
	MaxUploadBytes int64
	// MaxConcurrentUploads bounds one client's uploads in progress on this replica and
	// UploadIdle cuts off an upload that stops sending (0: neither).
	MaxConcurrentUploads int
	UploadIdle           time.Duration
	// Limits caps each client's uploads per submission and pages per evaluation (zero:
	// no cap).
	Limits store.Limits
	// MaxFeedWaits bounds one client's waiting listEventFeed reads on this replica (0:
	// no bound).
	MaxFeedWaits int
	// Secrets seals webhook signing secrets and the responses kept for Idempotency-Key
	// replay (required); RotationGrace is the rotated-out secret's validity (default
	// 24h).
	Secrets       *secretbox.Box
	RotationGrace time.Duration
	// PublicURL is the server the served contract names (DOCEVAL_PUBLIC_URL; empty: the
	// spec's templated server).
	PublicURL string
	// TracerProvider traces /v1 requests (nil: not traced).
	TracerProvider trace.TracerProvider
	// Handlers overrides the generated interface's implementation (tests); nil means
	// NewServer(d).
	Handlers api.StrictServerInterface
}

// New builds the Echo server: request id → trace span (/v1) → logging and metrics →
// panic recovery → bearer auth (failures limited per source) → rate limit → contract (routing, permission,
// validation) → Idempotency-Key → handler.
func New(d Deps) (*echo.Echo, error) {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Secrets == nil {
		return nil, errors.New("apiserver: Deps.Secrets is required (responses kept for Idempotency-Key replay are sealed with it)")
	}
	doc, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("embedded spec: %w", err)
	}
	contract, err := httpx.NewContract(doc, httpx.BodyLimits{
		JSON: MaxJSONBody, Upload: max(d.MaxUploadBytes, DefaultMaxUploadBytes) + MaxJSONBody, UploadIdle: d.UploadIdle,
	})
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = httpx.ErrorHandler(d.Log)
	e.IPExtractor = httpx.IPExtractor(d.TrustedProxies)

	tp := d.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	e.Use(httpx.RequestID(), httpx.Under("/v1/", httpx.Trace(tp)), httpx.Observe(d.Registry, d.Log), httpx.Recover(d.Log))
	if d.Ops != nil {
		ops := echo.WrapHandler(d.Ops)
		e.GET("/healthz", ops)
		e.GET("/readyz", ops)
		e.GET("/metrics", ops)
	}

	if err := mountDocs(e, doc, d.PublicURL); err != nil {
		return nil, err
	}

	var keys httpx.Authenticator = d.Store
	if d.Keys != nil {
		keys = d.Keys
	}
	e.Use(httpx.Under("/v1/",
		httpx.Authenticate(keys, d.InvalidKeyLimiter),
		d.RateLimiter.Middleware(),
		contract.Middleware(),
		idempotency(d.Store, d.Secrets, d.Log),
	))
	handlers := d.Handlers
	if handlers == nil {
		handlers = NewServer(d)
	}
	api.RegisterHandlers(e, api.NewStrictHandler(handlers, nil))
	return e, nil
}

// Run is the doceval-api main: listen on HTTPAddr and serve.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.HTTPAddr, err)
	}
	return RunOn(ctx, cfg, log, ln)
}

// RunOn serves the API on ln, with the outbox relay, until ctx is done. The ops
// endpoints are routes of the API's own listener (Deps.Ops).
func RunOn(ctx context.Context, cfg Config, log *slog.Logger, ln net.Listener) error {
	key, err := secretbox.ParseKeys(cfg.SecretKey)
	if err != nil {
		ln.Close()
		return fmt.Errorf("DOCEVAL_SECRET_KEY: %w", err)
	}
	secrets, err := secretbox.NewRing(key)
	if err != nil {
		ln.Close()
		return err
	}
	proxies, err := config.ParseProxies(cfg.TrustedProxies)
	if err != nil {
		ln.Close()
		return fmt.Errorf("DOCEVAL_TRUSTED_PROXIES: %w", err)
	}
	if err := CheckPublicURL(cfg.PublicURL); err != nil {
		ln.Close()
		return fmt.Errorf("DOCEVAL_PUBLIC_URL: %w", err)
	}
	return service.RunServer(ctx, "api", cfg.Common, log, ln, nil, func(ctx context.Context, rt *service.Runtime) (service.Server, error) {
		blobs, err := rt.Blobs(ctx)
		if err != nil {
			return service.Server{}, err
		}
		keys := store.NewKeyCache(rt.Store, cfg.KeyCacheTTL, log)
		e, err := New(Deps{
			Store: rt.Store, Keys: keys, Blobs: blobs, Log: log, Registry: rt.Registry, TracerProvider: rt.Tracer, Ops: rt.OpsHandler(),
			RateLimiter: httpx.NewRateLimiter(cfg.RateLimit, cfg.RateLimitBurst, nil), MaxUploadBytes: cfg.MaxUploadBytes,
			InvalidKeyLimiter: httpx.NewInvalidKeyLimiter(cfg.InvalidKeyRate, cfg.InvalidKeyBurst, nil), TrustedProxies: proxies,
			Secrets: secrets, RotationGrace: cfg.SecretRotationGrace, PublicURL: cfg.PublicURL,
			MaxConcurrentUploads: cfg.MaxConcurrentUploads, UploadIdle: cfg.UploadIdleTimeout, MaxFeedWaits: cfg.MaxFeedWaits,
			Limits: store.Limits{UploadsPerSubmission: cfg.MaxUploadsPerSubmission, PagesPerEvaluation: cfg.MaxPagesPerEvaluation},
		})
		if err != nil {
			return service.Server{}, err
		}
		expiredKeys := func(ctx context.Context) error {
			return service.Every(ctx, 10*time.Minute, func(ctx context.Context) {
				if _, err := rt.Store.DeleteExpiredIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
					log.Warn("delete expired idempotency keys", "error", err)
				}
			})
		}
		return service.Server{Handler: e, Loops: []service.Loop{expiredKeys, keys.Watch}}, nil
	})
}

// Server implements the generated strict server interface.
type Server struct {
	store     *store.Store
	blobs     *blob.Store
	log       *slog.Logger
	maxUpload int64
	limits    store.Limits
	// uploads and feedWaits count each client's uploads and waiting feed reads in
	// progress on this replica.
	uploads, feedWaits *httpx.ClientSlots

	secrets       *secretbox.Box
	rotationGrace time.Duration
}

var _ api.StrictServerInterface = (*Server)(nil)

// NewServer returns the handlers of every operation.
func NewServer(d Deps) *Server {
	if d.MaxUploadBytes <= 0 {
		d.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.RotationGrace <= 0 {
		d.RotationGrace = 24 * time.Hour
	}
	return &Server{store: d.Store, blobs: d.Blobs, log: d.Log, maxUpload: d.MaxUploadBytes, limits: d.Limits,
		uploads: httpx.NewClientSlots(d.MaxConcurrentUploads), feedWaits: httpx.NewClientSlots(d.MaxFeedWaits),
		secrets: d.Secrets, rotationGrace: d.RotationGrace}
}

// tenant is the store scoped to the request's authenticated API client, held to the
// deployment's limits.
func (s *Server) tenant(ctx context.Context) (store.Tenant, error) {
	p, err := httpx.Principal(ctx)
	if err != nil {
		return store.Tenant{}, err
	}
	return s.store.Tenant(p.ClientID).WithLimits(s.limits), nil
}

// listStart is the prelude of every list operation: the tenant, the page size (limit
// rules of the Limit parameter) and the position after which the page starts.
func (s *Server) listStart(ctx context.Context, limit *int, cursor *string) (store.Tenant, int, *page.Cursor, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return store.Tenant{}, 0, nil, err
	}
	n, err := page.Limit(limit)
	if err != nil {
		return store.Tenant{}, 0, nil, err
	}
	after, err := page.Decode(cursor)
	if err != nil {
		return store.Tenant{}, 0, nil, err
	}
	return t, n, after, nil
}
