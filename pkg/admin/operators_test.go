package admin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
)

func TestOperatorAccounts(t *testing.T) {
	t.Parallel()
	run, b := setup(t)
	ctx := context.Background()
	c, _, _, err := b.store.CreateClient(ctx, "Broker", auth.AllPermissions)
	require.NoError(t, err)

	out, _, code := run("operators", "create", "--email", "ada@lender.example", "--role", "advisor", "--clients", c.ID.String())
	require.Equal(t, 0, code)
	password, _ := out["password"].(string)
	require.Len(t, password, 20)
	op, err := b.store.OperatorByEmail(ctx, "ada@lender.example")
	require.NoError(t, err)
	require.Equal(t, store.RoleAdvisor, op.Role)
	require.False(t, op.AllClients)
	require.Equal(t, []uuid.UUID{c.ID}, op.ClientIDs)
	require.True(t, auth.CheckPassword(op.PasswordHash, password), "the printed password signs in")
	require.NotContains(t, *op.PasswordHash, password, "stored as a hash")

	_, stderr, code := run("operators", "create", "--email", "ADA@lender.example", "--role", "admin")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "already exists")
	_, _, code = run("operators", "create", "--email", "bob@lender.example", "--role", "owner")
	require.Equal(t, 1, code)
	_, stderr, code = run("operators", "create", "--email", "bob@lender.example", "--role", "admin", "--clients", c.ID.String())
	require.Equal(t, 1, code, "an admin limited to some clients")
	require.Contains(t, stderr, "--clients is for advisors")

	// A new password replaces the old one; SSO-only accounts have none.
	out, _, code = run("operators", "set-password", op.ID.String())
	require.Equal(t, 0, code)
	op, err = b.store.OperatorByID(ctx, op.ID)
	require.NoError(t, err)
	require.False(t, auth.CheckPassword(op.PasswordHash, password))
	require.True(t, auth.CheckPassword(op.PasswordHash, out["password"].(string)))
	out, _, code = run("operators", "create", "--email", "sso@lender.example", "--role", "admin", "--sso-only")
	require.Equal(t, 0, code)
	require.NotContains(t, out, "password")

	_, _, code = run("operators", "set-access", op.ID.String(), "--role", "admin")
	require.Equal(t, 0, code)
	op, err = b.store.OperatorByID(ctx, op.ID)
	require.NoError(t, err)
	require.Equal(t, store.RoleAdmin, op.Role)
	require.True(t, op.AllClients)

	_, _, code = run("operators", "disable", op.ID.String())
	require.Equal(t, 0, code)
	out, _, code = run("operators", "list")
	require.Equal(t, 0, code)
	require.Len(t, out["data"], 2)

	// What the CLI changed is in the audit log, under the CLI.
	entries, err := b.store.AuditLog(ctx, store.AuditFilter{Limit: 20})
	require.NoError(t, err)
	var actions []string
	for _, e := range entries {
		require.True(t, strings.HasPrefix(e.Actor, "doceval-admin ("), e.Actor)
		actions = append(actions, e.Action)
	}
	require.Equal(t, []string{"operator.disable", "operator.access", "operator.create", "operator.password", "operator.create"}, actions)
}
