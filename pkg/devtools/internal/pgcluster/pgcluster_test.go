package pgcluster_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/doceval/doceval/pkg/devtools/internal/pgcluster"
)

// A cluster starts on a free port, serves queries, creates databases idempotently,
// stops, and starts again from the same directory with its data intact.
func TestStartStopReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pgcluster-test-") // under /tmp, reachable by the postgres user
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Log: testWriter{t}, Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(ctx) })
	if c.Port == 0 {
		t.Fatal("no port")
	}
	for range 2 {
		if err := c.CreateDatabase(ctx, "doceval"); err != nil {
			t.Fatal(err)
		}
	}
	exec(t, c.URL("doceval"), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)")

	// A login member of a group role gets the group's rights, and only those.
	exec(t, c.URL("doceval"), "CREATE ROLE readers NOLOGIN; GRANT SELECT ON kept TO readers")
	for range 2 {
		if err := c.EnsureLogin(ctx, "reader_login", "readers"); err != nil {
			t.Fatal(err)
		}
	}
	exec(t, c.URLAs("reader_login", "doceval"), "SELECT v FROM kept")
	if err := execErr(c.URLAs("reader_login", "doceval"), "DELETE FROM kept"); err == nil {
		t.Fatal("the reader deleted rows")
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("second stop: %v", err)
	}

	c2, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c2.Stop(ctx) })
	conn, err := pgx.Connect(ctx, c2.URL("doceval"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != 42 {
		t.Fatalf("data after restart: %d, %v", v, err)
	}
	if _, err := os.Stat(c2.Dir); err != nil {
		t.Fatal(err)
	}
}

func exec(t *testing.T, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

func execErr(url, sql string) error {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), sql)
	return err
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
