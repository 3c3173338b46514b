// Package devstack is what make run and make test stand on: a private PostgreSQL
// cluster, an embedded NATS JetStream and, for make run, the api, the workers (ingest,
// evaluator, dispatcher) and the console in one process with a dev API client.
package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/doceval/doceval/pkg/devtools/internal/pgcluster"
)

// WithPostgres runs command with TEST_DATABASE_URL pointing at a private, throw-away
// PostgreSQL cluster (one per make test), unless TEST_DATABASE_URL is already set. It
// returns the command's exit status.
func WithPostgres(ctx context.Context, command []string, log io.Writer) (int, error) {
	if len(command) == 0 {
		return 2, errors.New("with-postgres: no command given")
	}
	if os.Getenv("TEST_DATABASE_URL") == "" {
		dir, err := os.MkdirTemp("", "doceval-pg-")
		if err != nil {
			return 1, err
		}
		defer os.RemoveAll(dir)
		cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Log: log, Ephemeral: true})
		if err != nil {
			return 1, fmt.Errorf("start PostgreSQL: %w", err)
		}
		defer cluster.Stop(context.WithoutCancel(ctx)) //nolint:errcheck
		os.Setenv("TEST_DATABASE_URL", cluster.URL("postgres"))
		fmt.Fprintf(log, "devstack: PostgreSQL for tests on 127.0.0.1:%d\n", cluster.Port)
	}
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}
