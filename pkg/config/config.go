// Package config reads service configuration from the environment into structs; every
// setting has an env tag, a default where one makes sense, and a line in docs/configuration.md.
package config

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
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

// Load reads the environment into a new T. Any setting NAME of T may instead be given
// as NAME_FILE, the path of a file holding its value (Docker and Kubernetes secrets
// mounted as files); NAME itself wins when both are set.
func Load[T any]() (T, error) {
	var cfg T
	fields, err := env.GetFieldParams(&cfg)
	if err != nil {
		return cfg, fmt.Errorf("configuration: %w", err)
	}
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		names = append(names, f.Key)
	}
	environment, err := Environment(names...)
	if err != nil {
		return cfg, err
	}
	if err := env.ParseWithOptions(&cfg, env.Options{Environment: environment}); err != nil {
		return cfg, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

// Environment is the process environment where each of names that is unset but has a
// NAME_FILE is set to that file's content, less a trailing newline.
func Environment(names ...string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	for _, name := range names {
		path := vars[name+"_FILE"]
		if _, set := vars[name]; set || path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("configuration: %s_FILE: %w", name, err)
		}
		vars[name] = strings.TrimRight(string(b), "\r\n")
	}
	return vars, nil
}

// Level is the configured log level (for service.Main).
func (c Common) Level() slog.Level { return c.LogLevel }
