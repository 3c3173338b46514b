// Package dispatch is the doceval-dispatcher worker: it fans published events out to
// webhook deliveries, sends them signed, retries them on the schedule, and runs the
// event-log retention.
package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
)

// Config is the dispatcher's configuration.
type Config struct {
	// EventRetention is how long events stay readable (30 days, as the spec's events description says).
	EventRetention time.Duration `env:"DOCEVAL_EVENT_RETENTION" envDefault:"720h"`
	// RetentionEvery is how often expired events are removed.
	RetentionEvery time.Duration `env:"DOCEVAL_EVENT_RETENTION_EVERY" envDefault:"10m"`
	// RetrySchedule is the delay before each retry of a failed delivery (1m, 5m, 30m, 2h, 12h, 24h, as the spec says).
	RetrySchedule []time.Duration `env:"DOCEVAL_WEBHOOK_RETRY_SCHEDULE" envDefault:"1m,5m,30m,2h,12h,24h" envSeparator:","`
	// Timeout bounds one delivery attempt.
	Timeout time.Duration `env:"DOCEVAL_WEBHOOK_TIMEOUT" envDefault:"30s"`
	// AllowPrivate lets deliveries reach loopback and private addresses (the dev stack).
	AllowPrivate bool `env:"DOCEVAL_WEBHOOK_ALLOW_PRIVATE" envDefault:"false"`
	// SecretKey opens the endpoints' sealed signing secrets (the api's key).
	SecretKey string `env:"DOCEVAL_SECRET_KEY"`
	// FanOutAckWait is how long a published event may wait for its fan-out before
	// JetStream hands it to another replica (a dispatcher killed holding it).
	FanOutAckWait time.Duration `env:"DOCEVAL_FANOUT_ACK_WAIT" envDefault:"30s"`
	// Concurrency is the number of deliveries in flight per dispatcher.
	Concurrency int `env:"DOCEVAL_WEBHOOK_CONCURRENCY" envDefault:"32"`
	// ClientConcurrency bounds one API client's deliveries in flight per dispatcher (0:
	// half of Concurrency, at least a quarter of it).
	ClientConcurrency int `env:"DOCEVAL_WEBHOOK_CLIENT_CONCURRENCY" envDefault:"0"`
}

// Build is the dispatcher for service.RunWorker, its signing-secret key ring opened
// first (a bad DOCEVAL_SECRET_KEY stops the service before it connects to anything).
// Built once from the runtime, it runs the retention, the fan-out consumer of
// published events, and the sender.
func Build(cfg Config, log *slog.Logger) (service.Build, error) {
	key, err := secretbox.ParseKeys(cfg.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("DOCEVAL_SECRET_KEY: %w", err)
	}
	box, err := secretbox.NewRing(key)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, rt *service.Runtime) ([]service.Loop, error) {
		d := &Dispatcher{
			Store: rt.Store, Secrets: box, Log: log, Schedule: cfg.RetrySchedule, Timeout: cfg.Timeout,
			AllowPrivate: cfg.AllowPrivate, Concurrency: cfg.Concurrency, ClientConcurrency: cfg.ClientConcurrency,
			Metrics: NewMetrics(rt.Registry), Tracer: rt.Tracer,
		}
		return []service.Loop{
			func(ctx context.Context) error { return Retention(ctx, rt.Store, clock.System{}, cfg, log) },
			func(ctx context.Context) error {
				return rt.Consume(ctx, messaging.ConsumerSpec{
					Stream: messaging.EventsStream, Durable: "dispatcher", FilterSubject: jobs.EventSubjectPrefix + ">",
					AckWait: cfg.FanOutAckWait, MaxDeliver: -1, Concurrency: 4,
				}, d.HandleEvent, log.With("consumer", "fan-out"))
			},
			d.Run,
		}, nil
	}, nil
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
