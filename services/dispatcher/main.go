// Command doceval-dispatcher runs the dispatcher worker: event-log retention (and, with
// issue 6, webhook deliveries); it relays the outbox and serves /healthz, /readyz and
// /metrics on DOCEVAL_OPS_ADDR.
package main

import (
	"context"
	"log/slog"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/service"
)

type settings struct {
	config.Common
	dispatch.Config
}

func main() {
	service.Main("dispatcher", func(ctx context.Context, cfg settings, log *slog.Logger) error {
		return service.RunWorker(ctx, "dispatcher", cfg.Common, log, dispatch.Tasks(cfg.Config, log)...)
	})
}
