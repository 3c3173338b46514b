package messaging

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PublishAckTimeout bounds the wait for a publish's acknowledgement. Without it, a
// message whose stream leader dies before it answers leaves its future unresolved for
// ever, and the outbox relay waiting on it holds its claimed rows locked: no other relay
// would publish them. Timed out, the rows are published again, and JetStream drops the
// duplicate if the first publish was stored after all.
const PublishAckTimeout = 5 * time.Second

// Connect dials NATS and keeps reconnecting forever: a NATS restart must not take a
// service down. name shows up in NATS monitoring.
func Connect(ctx context.Context, url, name string, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "error", err)
			}
		}),
		// The URL without its user and password: a log is no place for credentials.
		nats.ReconnectHandler(func(c *nats.Conn) { log.Info("nats reconnected", "url", c.ConnectedUrlRedacted()) }),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to NATS: %w", err)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(PublishAckTimeout))
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	return nc, js, nil
}

// EnsureStreams creates or updates the streams. It retries until ctx is done, because a
// freshly started NATS cluster may not have elected a JetStream leader yet.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, replicas int, log *slog.Logger) error {
	delay := 200 * time.Millisecond
	for {
		var err error
		for _, cfg := range StreamConfigs(replicas) {
			if _, err = js.CreateOrUpdateStream(ctx, cfg); err != nil {
				err = fmt.Errorf("stream %s: %w", cfg.Name, err)
				break
			}
		}
		if err == nil {
			return nil
		}
		log.Warn("jetstream streams not ready yet", "error", err, "retry_in", delay)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}
