// Package config reads service configuration from the environment into structs; every
// setting has an env tag, a default where one makes sense, and a line in README.md.
package config

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/caarlos0/env/v11"
)

// Common is what every service reads.
type Common struct {
	DatabaseURL string     `env:"DATABASE_URL,required,notEmpty"`
	NatsURL     string     `env:"NATS_URL,required,notEmpty"`
	LogLevel    slog.Level `env:"DOCEVAL_LOG_LEVEL" envDefault:"info"`
	// Migrate applies pending migrations at start-up (under an advisory lock). Platform
	// teams that run `doceval-admin migrate` as a deploy hook may turn it off.
	Migrate bool `env:"DOCEVAL_MIGRATE" envDefault:"true"`
	// StreamReplicas is the JetStream replication of the streams (3 on a NATS cluster).
	StreamReplicas int `env:"DOCEVAL_STREAM_REPLICAS" envDefault:"1"`
	// OpsAddr serves /healthz, /readyz and /metrics for the workers (the api serves
	// them on its own listener too).
	OpsAddr string `env:"DOCEVAL_OPS_ADDR" envDefault:":9090"`
	// ShutdownTimeout is how long a service drains after SIGTERM.
	ShutdownTimeout time.Duration `env:"DOCEVAL_SHUTDOWN_TIMEOUT" envDefault:"20s"`
	// BlobURL locates uploaded files: file:///dir locally, s3://bucket?region=… (any
	// S3-compatible store, endpoint= for MinIO and the like) in production.
	BlobURL string `env:"DOCEVAL_BLOB_URL" envDefault:"file:///var/lib/doceval/blobs"`
	// OutboxRelay runs an outbox relay in this process.
	OutboxRelay bool `env:"DOCEVAL_OUTBOX_RELAY" envDefault:"true"`
}

// Load reads the environment into a new T.
func Load[T any]() (T, error) {
	var cfg T
	if err := env.Parse(&cfg); err != nil {
		return cfg, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

// Level is the configured log level (for service.Main).
func (c Common) Level() slog.Level { return c.LogLevel }
