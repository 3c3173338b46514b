package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// insufficientPrivilege is SQLSTATE 42501, PostgreSQL's "permission denied".
const insufficientPrivilege = "42501"

// roleConn connects to the database at dbURL as the service's role.
func roleConn(t *testing.T, dbURL, service string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbtest.RoleURL(t, dbURL, service))
	if err != nil {
		t.Fatalf("connect as %s: %v", service, err)
	}
	t.Cleanup(func() { conn.Close(context.WithoutCancel(ctx)) })
	return conn
}

// refused runs sql in a transaction that is rolled back, and reports whether the
// database refused it for want of privilege; another error fails the test.
func refused(t *testing.T, conn *pgx.Conn, sql string) bool {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, sql)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == insufficientPrivilege {
		return true
	}
	if err != nil {
		t.Fatalf("%s: %v (want success or %s)", sql, err, insufficientPrivilege)
	}
	return false
}

// Each service's role is refused the tables it has no business with, and allowed the
// ones its work needs.
func TestServiceRolesConfined(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	for _, c := range []struct {
		service string
		refused []string
		allowed []string
	}{
		{"api",
			[]string{
				"SELECT * FROM operators", "SELECT * FROM console_sessions", "SELECT * FROM audit_log",
				"UPDATE api_clients SET disabled_at = now()", "INSERT INTO api_clients VALUES (gen_random_uuid(), 'x', '{}', NULL, now(), now())",
				"UPDATE api_keys SET revoked_at = NULL", "DELETE FROM events",
			},
			[]string{
				"SELECT * FROM api_clients", "UPDATE api_keys SET last_used_at = now()", "SELECT * FROM idempotency_keys",
				"DELETE FROM idempotency_keys", "UPDATE submissions SET updated_at = now()", "SELECT * FROM outbox",
			}},
		{"ingest",
			[]string{
				"SELECT * FROM api_keys", "SELECT * FROM api_clients", "SELECT * FROM webhook_endpoints",
				"SELECT * FROM operators", "SELECT * FROM idempotency_keys", "SELECT * FROM events",
				"SELECT * FROM evaluations", "DELETE FROM uploads",
			},
			[]string{
				"SELECT * FROM uploads", "UPDATE uploads SET updated_at = now()", "SELECT * FROM upload_pages", "DELETE FROM submissions",
				"SELECT id, disabled_at FROM api_clients",
			}},
		{"evaluator",
			[]string{
				"SELECT * FROM api_keys", "SELECT * FROM webhook_endpoints", "SELECT * FROM operators",
				"UPDATE uploads SET updated_at = now()", "INSERT INTO upload_pages (upload_id, page, text, chars, ocr) VALUES (gen_random_uuid(), 1, '', 0, false)",
				"DELETE FROM submissions",
			},
			[]string{"SELECT * FROM upload_pages", "UPDATE evaluations SET updated_at = now()", "SELECT id, disabled_at FROM api_clients"}},
		{"dispatcher",
			[]string{
				"SELECT * FROM operators", "SELECT * FROM console_sessions", "SELECT * FROM api_keys",
				"SELECT * FROM api_clients", "SELECT * FROM submissions", "SELECT * FROM upload_pages", "UPDATE webhook_endpoints SET url = 'https://evil.example'",
				"INSERT INTO outbox (id, subject, payload, created_at) VALUES (gen_random_uuid(), 'x', '', now())",
			},
			[]string{
				"SELECT * FROM webhook_endpoints", "UPDATE deliveries SET lease_until = NULL", "DELETE FROM events",
				"SELECT id, disabled_at FROM api_clients",
			}},
		{"console",
			[]string{
				"SELECT * FROM idempotency_keys", "UPDATE webhook_endpoints SET url = 'https://evil.example'",
				"INSERT INTO operators (id, email, role, created_at, updated_at) VALUES (gen_random_uuid(), 'x@y.z', 'admin', now(), now())",
				"DELETE FROM operators",
				"INSERT INTO operator_clients VALUES (gen_random_uuid(), gen_random_uuid())",
				"DELETE FROM submissions", "UPDATE upload_pages SET text = ''",
				"UPDATE operators SET role = 'admin'", "UPDATE operators SET password_hash = NULL",
				"UPDATE uploads SET upload_status = 'ready'", "UPDATE evaluations SET status = 'succeeded'",
				"UPDATE deliveries SET lease_until = NULL", "UPDATE deliveries SET attempt_count = 0", "DELETE FROM deliveries",
			},
			[]string{
				"SELECT * FROM operators", "SELECT * FROM audit_log", "DELETE FROM console_sessions", "UPDATE document_slots SET review_reason = NULL",
				"UPDATE deliveries SET status = 'pending', next_retry_at = now(), requeue_requested = false",
				"UPDATE operators SET totp_last_step = totp_last_step", "UPDATE uploads SET held_at = NULL", "UPDATE evaluations SET held_at = NULL",
			}},
		{"admin",
			[]string{
				"SELECT * FROM submissions", "SELECT * FROM upload_pages", "DELETE FROM idempotency_keys",
				"UPDATE uploads SET upload_status = 'ready'",
				"SELECT * FROM events", "SELECT * FROM audit_log",
			},
			[]string{
				"SELECT * FROM operators", "UPDATE webhook_endpoints SET secret = secret", "DELETE FROM console_sessions",
				"UPDATE idempotency_keys SET response_sealed = response_sealed", "UPDATE uploads SET held_at = NULL",
			}},
	} {
		t.Run(c.service, func(t *testing.T) {
			conn := roleConn(t, dbURL, c.service)
			for _, sql := range c.refused {
				if !refused(t, conn, sql) {
					t.Errorf("%s allowed: %s", c.service, sql)
				}
			}
			for _, sql := range c.allowed {
				if refused(t, conn, sql) {
					t.Errorf("%s refused: %s", c.service, sql)
				}
			}
		})
	}
}

// The audit log is insert-only for every application role by privilege, not only by
// its trigger: UPDATE, DELETE and TRUNCATE are refused, and no role can drop or disable
// the trigger, since none owns the table. The console and the admin CLI write entries.
func TestAuditLogInsertOnlyForEveryRole(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	insert := "INSERT INTO audit_log (id, at, actor, action, target_type, target_id, details, ip, user_agent) " +
		"VALUES (gen_random_uuid(), now(), 'a', 'test', 't', 'x', '{}', '', '')"
	for _, service := range dbtest.Services {
		t.Run(service, func(t *testing.T) {
			conn := roleConn(t, dbURL, service)
			for _, sql := range []string{
				"UPDATE audit_log SET actor = 'someone else'",
				"DELETE FROM audit_log",
				"TRUNCATE audit_log",
				"DROP TRIGGER audit_log_append_only ON audit_log",
				"ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only",
				"DROP TABLE audit_log",
			} {
				if !refused(t, conn, sql) {
					t.Errorf("%s allowed: %s", service, sql)
				}
			}
			writes := service == "console" || service == "admin"
			if refused(t, conn, insert) == writes {
				t.Errorf("%s: audit entry insert refused = %v, want %v", service, !writes, !writes)
			}
		})
	}
}

// Every table is given to some service deliberately: a table added without grants
// (a later migration forgot its block) fails here rather than in production. And no
// role holds rights no service needs: TRUNCATE, REFERENCES, TRIGGER, or ownership.
func TestEveryTableHasAGrant(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.NewWithURL(t)
	ctx := context.Background()
	rows, err := pool.Query(ctx, `
		SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'goose_db_version'
		  AND NOT EXISTS (SELECT FROM unnest($1::text[]) AS r(name)
		                  WHERE has_table_privilege(r.name, c.oid, 'SELECT, INSERT, UPDATE, DELETE'))
		ORDER BY 1`, roleNames())
	if err != nil {
		t.Fatal(err)
	}
	ungranted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(ungranted) > 0 {
		t.Errorf("tables no service role may use (add them to a role's block, as in 00018_service_roles.sql): %v", ungranted)
	}
	rows, err = pool.Query(ctx, `
		SELECT format('%s %s on %s', g.grantee, g.privilege_type, g.table_name)
		FROM information_schema.role_table_grants g
		WHERE g.grantee = ANY($1) AND g.privilege_type IN ('TRUNCATE', 'REFERENCES', 'TRIGGER')
		UNION ALL
		SELECT format('%s owns %s', pg_get_userbyid(c.relowner), c.relname)
		FROM pg_class c WHERE pg_get_userbyid(c.relowner) = ANY($1)
		ORDER BY 1`, roleNames())
	if err != nil {
		t.Fatal(err)
	}
	excess, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(excess) > 0 {
		t.Errorf("rights no service needs: %v", excess)
	}
	var logins []string
	rows, err = pool.Query(ctx, "SELECT rolname FROM pg_roles WHERE rolname = ANY($1) AND (rolcanlogin OR rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls)", roleNames())
	if err == nil {
		logins, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(logins) > 0 {
		t.Errorf("group roles that can log in or hold attributes: %v", logins)
	}
}

func roleNames() []string {
	names := make([]string, len(dbtest.Services))
	for i, s := range dbtest.Services {
		names[i] = fmt.Sprintf("doceval_%s", s)
	}
	return names
}

// A service started with DOCEVAL_MIGRATE on its own role is told that migrations need
// the owner, instead of a bare "permission denied".
func TestMigrateAsServiceRoleNamesTheOwner(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	err := store.Migrate(context.Background(), dbtest.RolePool(t, dbURL, "api"))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != insufficientPrivilege || !strings.Contains(err.Error(), "DOCEVAL_MIGRATE=false") {
		t.Fatalf("migrate as the api's role: %v", err)
	}
}
