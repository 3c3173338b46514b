package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	migrations "github.com/doceval/doceval/sql"
)

// DefaultConnectTimeout bounds a new database connection when DATABASE_URL sets no
// connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// Connect opens a pool and waits for the database to answer, so a service started before
// its database (as on Kubernetes) comes up once the database does, instead of crashing.
func Connect(ctx context.Context, url string, log *slog.Logger) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// A database behind a network partition drops the connection attempt instead of
		// refusing it: without a bound, a write made after the request's deadline (an
		// idempotency key's release) would wait for the kernel's timeout of minutes.
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	delay := 200 * time.Millisecond
	for {
		err := pool.Ping(ctx)
		if err == nil {
			return pool, nil
		}
		log.Warn("database not reachable yet", "error", err, "retry_in", delay)
		select {
		case <-ctx.Done():
			pool.Close()
			return nil, fmt.Errorf("database not reachable: %w", err)
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// Migrate applies the pending migrations. A PostgreSQL advisory lock serializes replicas
// that start together, so exactly one applies each migration.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	return migrateDB(ctx, sqlDB)
}

func migrateDB(ctx context.Context, sqlDB *sql.DB) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return err
	}
	fsys, err := fs.Sub(migrations.Migrations, "migrations")
	if err != nil {
		return err
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, fsys, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42501" {
			// A service's own role (migration 00018) may not touch the schema.
			return fmt.Errorf("apply migrations: %w (migrations run as the owner of the tables: run doceval-admin migrate with the owner's DATABASE_URL and start the service with DOCEVAL_MIGRATE=false)", err)
		}
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}
