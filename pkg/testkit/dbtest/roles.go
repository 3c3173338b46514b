package dbtest

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Services are the services with a database role of their own (migration 00018):
// each has the NOLOGIN group role "doceval_" + service.
var Services = []string{"api", "ingest", "evaluator", "dispatcher", "console", "admin"}

// loginPassword is the password of the test login roles; the clusters make test starts
// trust loopback connections, a TEST_DATABASE_URL server may ask for it.
const loginPassword = "doceval-test"

var logins sync.Map // login role name -> *sync.Once

// RoleURL returns dbURL (from NewWithURL) connecting as a login role that is a member
// of the service's group role and nothing else, so the code under test has exactly the
// rights that service has in production. The login roles are made once per cluster.
func RoleURL(t testing.TB, dbURL, service string) string {
	t.Helper()
	group := "doceval_" + service
	login := "doceval_test_" + service
	once, _ := logins.LoadOrStore(login, new(sync.Once))
	var err error
	once.(*sync.Once).Do(func() { err = ensureLogin(context.Background(), adminURL(t), login, group) })
	if err != nil {
		logins.Delete(login)
		t.Fatalf("login role for %s: %v", group, err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("database URL: %v", err)
	}
	u.User = url.UserPassword(login, loginPassword)
	return u.String()
}

// RolePool is a pool on RoleURL, closed when the test ends.
func RolePool(t testing.TB, dbURL, service string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), RoleURL(t, dbURL, service))
	if err != nil {
		t.Fatalf("open database as %s: %v", service, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// ensureLogin makes login a login role whose only membership is group. Test processes
// run in parallel: an advisory lock serializes them.
func ensureLogin(ctx context.Context, admin, login, group string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('doceval_dbtest_roles'))"); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtext('doceval_dbtest_roles'))") //nolint:errcheck
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", login).Scan(&exists); err != nil {
		return err
	}
	id := pgx.Identifier{login}.Sanitize()
	if !exists {
		if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", id, loginPassword)); err != nil {
			return err
		}
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("GRANT %s TO %s", pgx.Identifier{group}.Sanitize(), id))
	return err
}
