package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"go.opentelemetry.io/otel"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/logging"
	"github.com/doceval/doceval/pkg/tracing"
)

// Configured is a service configuration that embeds config.Common.
type Configured interface{ Level() slog.Level }

// Version is the build's version, set by the image build:
// -ldflags "-X github.com/doceval/doceval/pkg/service.Version=1.2.3".
var Version = "dev"

// Main is the body of every service's main: configuration from the environment, a JSON
// logger, a context canceled by SIGTERM or SIGINT, and an exit status. Tracing starts
// with the service's Runtime (Start) and is flushed when it closes.
func Main[T Configured](name string, run func(context.Context, T, *slog.Logger) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := config.Load[T]()
	if err != nil {
		fmt.Fprintf(os.Stderr, "doceval-%s: %v\n", name, err)
		os.Exit(2)
	}
	log := logging.New(os.Stdout, cfg.Level(), name, httpx.RequestIDFromContext).With("version", Version)
	// OpenTelemetry's process-wide settings, for libraries that read them: doceval's own
	// code is given its provider and propagator explicitly. Export failures (a collector
	// down) go to the service's JSON log, not a bare line on stderr.
	otel.SetTextMapPropagator(tracing.Propagator())
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("opentelemetry", "error", err) }))
	if err := run(ctx, cfg, log); err != nil {
		log.Error("exiting", "error", err)
		os.Exit(1)
	}
}
