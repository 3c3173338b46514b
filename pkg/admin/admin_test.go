package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/admin"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/dbtest"
	"github.com/doceval/doceval/pkg/store"
)

type testBundle struct {
	store *store.Store
}

func setup(t *testing.T) (func(args ...string) (map[string]any, string, int), *testBundle) {
	t.Helper()
	st := store.New(dbtest.New(t))
	open := func(context.Context, bool) (*store.Store, func(), error) { return st, func() {}, nil }
	run := func(args ...string) (map[string]any, string, int) {
		var stdout, stderr bytes.Buffer
		code := admin.Run(context.Background(), args, open, &stdout, &stderr)
		var out map[string]any
		if code == 0 {
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
		}
		return out, stderr.String(), code
	}
	return run, &testBundle{store: st}
}

func TestClientLifecycle(t *testing.T) {
	t.Parallel()
	run, b := setup(t)
	ctx := context.Background()

	out, _, code := run("clients", "create", "--name", "Acme Broker", "--permissions", "templates:read,events:read")
	require.Equal(t, 0, code)
	key, _ := out["api_key"].(string)
	require.True(t, auth.WellFormed(key), "key %q", key)
	clientID, _ := out["api_client_id"].(string)

	cred, err := b.store.Authenticate(ctx, auth.HashKey(key))
	require.NoError(t, err)
	require.Equal(t, clientID, cred.Principal.ClientID.String())
	require.Equal(t, []auth.Permission{"templates:read", "events:read"}, cred.Principal.Permissions)

	_, _, code = run("clients", "disable", clientID)
	require.Equal(t, 0, code)
	cred, err = b.store.Authenticate(ctx, auth.HashKey(key))
	require.NoError(t, err)
	require.True(t, cred.Disabled)
	_, _, code = run("clients", "enable", clientID)
	require.Equal(t, 0, code)

	_, _, code = run("clients", "set-permissions", clientID, "all")
	require.Equal(t, 0, code)
	cred, err = b.store.Authenticate(ctx, auth.HashKey(key))
	require.NoError(t, err)
	require.False(t, cred.Disabled)
	require.ElementsMatch(t, auth.AllPermissions, cred.Principal.Permissions)

	out, _, code = run("keys", "create", "--client", clientID)
	require.Equal(t, 0, code)
	second, _ := out["api_key"].(string)
	require.NotEqual(t, key, second)
	_, _, code = run("keys", "revoke", out["api_key_id"].(string))
	require.Equal(t, 0, code)
	_, err = b.store.Authenticate(ctx, auth.HashKey(second))
	require.ErrorIs(t, err, store.ErrNotFound, "a revoked key must not authenticate")
	_, err = b.store.Authenticate(ctx, auth.HashKey(key))
	require.NoError(t, err, "revoking one key leaves the others")

	out, _, code = run("clients", "list")
	require.Equal(t, 0, code)
	require.Len(t, out["data"], 1)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	run, _ := setup(t)
	for _, args := range [][]string{
		{},
		{"clients"},
		{"clients", "create"},
		{"clients", "frobnicate"},
		{"keys", "revoke"},
	} {
		_, stderr, code := run(args...)
		require.Equal(t, 2, code, "%v", args)
		require.Contains(t, stderr, "usage:", "%v", args)
	}
	_, stderr, code := run("clients", "create", "--name", "x", "--permissions", "templates:fly")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "unknown permission")
	_, stderr, code = run("clients", "disable", "00000000-0000-0000-0000-000000000001")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no such client")
}
