package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/logging"
)

// Configured is a service configuration that embeds config.Common.
type Configured interface{ Level() slog.Level }

// Version is the build's version, set by the image build:
// -ldflags "-X github.com/doceval/doceval/pkg/service.Version=1.2.3".
var Version = "dev"

// Main is the body of every service's main: configuration from the environment, a JSON
// logger, a context canceled by SIGTERM or SIGINT, and an exit status.
func Main[T Configured](name string, run func(context.Context, T, *slog.Logger) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := config.Load[T]()
	if err != nil {
		fmt.Fprintf(os.Stderr, "doceval-%s: %v\n", name, err)
		os.Exit(2)
	}
	log := logging.New(os.Stdout, cfg.Level(), name, httpx.RequestIDFromContext).With("version", Version)
	if err := run(ctx, cfg, log); err != nil {
		log.Error("exiting", "error", err)
		os.Exit(1)
	}
}
