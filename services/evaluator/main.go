// Command doceval-evaluator runs the evaluator worker: it runs queued evaluations (the
// deterministic engine, and an optional language model for custom checks and fields),
// relays the outbox, and serves /healthz, /readyz and /metrics on DOCEVAL_OPS_ADDR.
package main

import (
	"context"
	"log/slog"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/evaluator"
	"github.com/doceval/doceval/pkg/service"
)

type settings struct {
	config.Common
	evaluator.Config
}

func main() {
	service.Main("evaluator", func(ctx context.Context, cfg settings, log *slog.Logger) error {
		worker, err := evaluator.Build(cfg.Config, log)
		if err != nil {
			return err
		}
		return service.RunWorker(ctx, "evaluator", cfg.Common, log, worker)
	})
}
