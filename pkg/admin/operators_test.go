package admin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/secretbox"
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

// Staff TOTP secrets (enabled and pending) move to the new key of the console's own
// ring (DOCEVAL_CONSOLE_SECRET_KEY) with secrets reencrypt, never to the api's
// (DOCEVAL_SECRET_KEY), and a console ring sharing a key with the api's is refused;
// operators reset-totp removes a second factor.
func TestTOTPSecretsReencryptAndReset(t *testing.T) {
	run, b := setup(t)
	ctx := context.Background()
	oldKey, newKey := secretbox.NewKey(), secretbox.NewKey()
	oldBytes, _ := secretbox.ParseKey(oldKey)
	newBytes, _ := secretbox.ParseKey(newKey)
	oldBox, err := secretbox.New(oldBytes)
	require.NoError(t, err)
	var ids []uuid.UUID
	for _, email := range []string{"enabled@example.com", "pending@example.com"} {
		op, err := b.store.CreateOperator(ctx, store.NewOperator{Email: email, Role: store.RoleAdvisor})
		require.NoError(t, err)
		require.NoError(t, b.store.SetTOTPPending(ctx, op.ID, oldBox.Seal([]byte("SECRET"+email), store.TOTPOwner(op.ID))))
		ids = append(ids, op.ID)
	}
	enabled, err := b.store.OperatorByID(ctx, ids[0])
	require.NoError(t, err)
	require.NoError(t, b.store.EnableTOTP(ctx, ids[0], enabled.SealedTOTPPending, 1))

	// The api's ring alone leaves them as they are.
	apiKey := secretbox.NewKey()
	t.Setenv("DOCEVAL_SECRET_KEY", apiKey+","+oldKey)
	t.Setenv("DOCEVAL_CONSOLE_SECRET_KEY", "")
	out, stderr, code := run("secrets", "reencrypt")
	require.Equal(t, 0, code, stderr)
	require.Nil(t, out["totp_resealed"])
	require.EqualValues(t, 0, out["resealed"])
	for i, id := range ids {
		op, err := b.store.OperatorByID(ctx, id)
		require.NoError(t, err)
		sealed := op.SealedTOTPPending
		if i == 0 {
			sealed = op.SealedTOTP
		}
		_, err = oldBox.Open(sealed, store.TOTPOwner(id))
		require.NoError(t, err, "a TOTP secret resealed with DOCEVAL_SECRET_KEY")
	}
	// A console ring with a key of the api's is refused, and changes nothing.
	t.Setenv("DOCEVAL_CONSOLE_SECRET_KEY", newKey+","+apiKey)
	_, stderr, code = run("secrets", "reencrypt")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "shares a key")

	t.Setenv("DOCEVAL_SECRET_KEY", "")
	t.Setenv("DOCEVAL_CONSOLE_SECRET_KEY", newKey+","+oldKey)
	out, stderr, code = run("secrets", "reencrypt")
	require.Equal(t, 0, code, stderr)
	require.EqualValues(t, 2, out["totp_resealed"])
	require.Nil(t, out["webhook_secrets"], "webhook secrets touched without DOCEVAL_SECRET_KEY")
	out, _, code = run("secrets", "reencrypt")
	require.Equal(t, 0, code)
	require.EqualValues(t, 0, out["resealed"])

	newOnly, err := secretbox.New(newBytes)
	require.NoError(t, err)
	for i, email := range []string{"enabled@example.com", "pending@example.com"} {
		op, err := b.store.OperatorByID(ctx, ids[i])
		require.NoError(t, err)
		sealed := op.SealedTOTPPending
		if i == 0 {
			sealed = op.SealedTOTP
		}
		plain, err := newOnly.Open(sealed, store.TOTPOwner(op.ID))
		require.NoError(t, err, email)
		require.Equal(t, "SECRET"+email, string(plain))
	}

	_, stderr, code = run("operators", "reset-totp", ids[0].String())
	require.Equal(t, 0, code, stderr)
	op, err := b.store.OperatorByID(ctx, ids[0])
	require.NoError(t, err)
	require.Nil(t, op.TOTPEnabledAt)
	require.Nil(t, op.SealedTOTP)
}
