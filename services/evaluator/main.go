// Command doceval-evaluator runs the evaluator worker: it consumes its JetStream subjects, relays the
// outbox, and serves /healthz, /readyz and /metrics on DOCEVAL_OPS_ADDR.
package main

import (
	"context"
	"log/slog"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/service"
)

func main() {
	service.Main("evaluator", func(ctx context.Context, cfg config.Common, log *slog.Logger) error {
		return service.RunWorker(ctx, "evaluator", cfg, log)
	})
}
