// Command doceval-dispatcher runs the dispatcher worker: signed webhook deliveries with
// retries, and event-log retention; it relays the outbox and serves /healthz, /readyz
// and /metrics on DOCEVAL_OPS_ADDR.
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
		worker, err := dispatch.Build(cfg.Config, log)
		if err != nil {
			return err
		}
		return service.RunWorker(ctx, "dispatcher", cfg.Common, log, worker)
	})
}
