// Command doceval-ingest runs the ingest worker: it extracts the text of uploaded files
// page by page (poppler, tesseract, antiword, DOCX), runs submission purges, relays the
// outbox, and serves /healthz, /readyz and /metrics on DOCEVAL_OPS_ADDR.
package main

import (
	"context"
	"log/slog"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/ingest"
	"github.com/doceval/doceval/pkg/service"
)

type settings struct {
	config.Common
	ingest.Config
}

func main() {
	service.Main("ingest", func(ctx context.Context, cfg settings, log *slog.Logger) error {
		how, err := cfg.CheckParsers(ctx)
		if err != nil {
			return err
		}
		log.Info("document tools", "confinement", how, "max_memory_bytes", cfg.ToolMaxMemory)
		return service.RunWorker(ctx, "ingest", cfg.Common, log, ingest.Build(cfg.Config, log))
	})
}
