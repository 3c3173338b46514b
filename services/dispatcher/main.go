// Command doceval-dispatcher runs the dispatcher worker: it consumes its JetStream subjects, relays the
// outbox, and serves /healthz, /readyz and /metrics on DOCEVAL_OPS_ADDR.
package main

import (
	"context"
	"log/slog"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/service"
)

func main() {
	service.Main("dispatcher", func(ctx context.Context, cfg config.Common, log *slog.Logger) error {
		return service.RunWorker(ctx, "dispatcher", cfg, log)
	})
}
