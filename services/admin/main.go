// Command doceval-admin is the operator CLI: API clients, keys, permissions, migrations.
package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/doceval/doceval/pkg/admin"
	"github.com/doceval/doceval/pkg/catalog"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(admin.Run(ctx, os.Args[1:], openStore, os.Stdout, os.Stderr))
}

func openStore(ctx context.Context, migrate bool) (*store.Store, func(), error) {
	environment, err := config.Environment("DATABASE_URL") // or DATABASE_URL_FILE
	if err != nil {
		return nil, nil, err
	}
	url := environment["DATABASE_URL"]
	if url == "" {
		return nil, nil, errors.New("DATABASE_URL is not set")
	}
	// An operator's command fails within a bound instead of waiting for the database.
	connectCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pool, err := store.Connect(connectCtx, url, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, nil, err
	}
	if migrate {
		if err := catalog.Prepare(ctx, pool); err != nil {
			pool.Close()
			return nil, nil, err
		}
	}
	return store.New(pool), pool.Close, nil
}
