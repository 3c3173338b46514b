// Package dbtest gives each test a fresh database, cloned in milliseconds from a
// template database that is migrated once per migration set. The cluster comes from
// TEST_DATABASE_URL, which make test points at its private PostgreSQL cluster.
package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/catalog"
	migrations "github.com/doceval/doceval/sql"
)

// EnvVar names the admin connection string of the test cluster.
const EnvVar = "TEST_DATABASE_URL"

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// New returns a pool on a fresh, migrated database that is dropped when the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, _ := NewWithURL(t)
	return pool
}

// NewWithURL is New that also returns the database's connection string, for code under
// test that opens its own connections (services, the admin CLI).
func NewWithURL(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	admin := adminURL(t)
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(context.Background(), admin) })
	if templateErr != nil {
		t.Fatalf("template database: %v", templateErr)
	}
	return create(t, admin, templateName)
}

// NewEmpty returns a fresh database with no migrations applied (for migration tests),
// dropped when the test ends.
func NewEmpty(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	return create(t, adminURL(t), "template0")
}

func adminURL(t testing.TB) string {
	admin := os.Getenv(EnvVar)
	if admin == "" {
		t.Fatalf("%s is not set: run the tests through `make test`, which starts a private PostgreSQL cluster, or point %s at a server you own", EnvVar, EnvVar)
	}
	return admin
}

// create makes a database from template and drops it when the test ends.
func create(t testing.TB, admin, template string) (*pgxpool.Pool, string) {
	t.Helper()
	ctx := context.Background()
	name := "doceval_test_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect %s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("create test database from %s: %v", template, err)
	}
	dbURL := withDatabase(admin, name)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Logf("drop test database: %v", err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("drop test database: %v", err)
		}
	})
	return pool, dbURL
}

// ensureTemplate creates and migrates the template database for the current migration
// files, once across all test processes (an advisory lock serializes the packages that
// go test runs in parallel).
func ensureTemplate(ctx context.Context, admin string) (string, error) {
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "doceval_tmpl_" + sum[:16] // migrations and builtin catalog
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('doceval_dbtest_template'))"); err != nil {
		return "", err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext('doceval_dbtest_template'))") //nolint:errcheck

	var ready bool
	err = conn.QueryRow(ctx, "SELECT datistemplate FROM pg_database WHERE datname = $1", name).Scan(&ready)
	if err == nil && ready {
		return name, nil
	}
	if err == nil { // a half-made template from a crashed run
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE %s WITH (FORCE)", name)); err != nil {
			return "", err
		}
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	pool, err := pgxpool.New(ctx, withDatabase(admin, name))
	if err != nil {
		return "", err
	}
	err = catalog.Prepare(ctx, pool)
	pool.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH is_template true", name)); err != nil {
		return "", err
	}
	return name, nil
}

func migrationsHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.Migrations, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.Migrations, path)
		if err != nil {
			return err
		}
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	h.Write([]byte(catalog.Hash()))
	return hex.EncodeToString(h.Sum(nil)), err
}

func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + name
	return u.String()
}
