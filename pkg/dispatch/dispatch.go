// Package dispatch is the doceval-dispatcher worker. Today it runs the event-log
// retention; webhook deliveries (issue 6) join it here.
package dispatch

import (
	"context"
	"log/slog"
	"time"

	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
)

// Config is the dispatcher's configuration.
type Config struct {
	// EventRetention is how long events stay readable (section 8: 30 days).
	EventRetention time.Duration `env:"DOCEVAL_EVENT_RETENTION" envDefault:"720h"`
	// RetentionEvery is how often expired events are removed.
	RetentionEvery time.Duration `env:"DOCEVAL_EVENT_RETENTION_EVERY" envDefault:"10m"`
}

// Tasks are the dispatcher's background tasks, for service.RunWorker.
func Tasks(cfg Config, log *slog.Logger) []service.Task {
	return []service.Task{func(ctx context.Context, rt *service.Runtime) error {
		return Retention(ctx, rt.Store, clock.System{}, cfg, log)
	}}
}

// Retention removes events older than the retention period now and then every
// RetentionEvery, until ctx ends. Every replica may run it: the delete is idempotent.
func Retention(ctx context.Context, st *store.Store, c clock.Clock, cfg Config, log *slog.Logger) error {
	every := cfg.RetentionEvery
	if every <= 0 {
		every = 10 * time.Minute
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		n, err := st.DeleteEventsBefore(ctx, c.Now().Add(-cfg.EventRetention))
		switch {
		case err != nil && ctx.Err() == nil:
			log.WarnContext(ctx, "event retention", "error", err)
		case n > 0:
			log.InfoContext(ctx, "expired events removed", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
