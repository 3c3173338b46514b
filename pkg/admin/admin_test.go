package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/admin"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

type testBundle struct {
	store *store.Store
}

func setup(t *testing.T) (func(args ...string) (map[string]any, string, int), *testBundle) {
	t.Helper()
	pool, url := dbtest.NewWithURL(t)
	st := store.New(pool)
	// The commands run as the admin CLI's database role (migration 00018), migrate as
	// the owner; the test's own checks use the owner.
	asAdmin := store.New(dbtest.RolePool(t, url, "admin"))
	open := func(_ context.Context, migrate bool) (*store.Store, func(), error) {
		if migrate {
			return st, func() {}, nil
		}
		return asAdmin, func() {}, nil
	}
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
		require.Contains(t, stderr, "Usage:", "%v", args)
	}
	_, stderr, code := run("clients", "create", "--name", "x", "--permissions", "templates:fly")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "unknown permission")
	_, stderr, code = run("clients", "disable", "00000000-0000-0000-0000-000000000001")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no such client")
}

// clients create names the first key; keys list shows every key of a client with its
// prefix, creation, last use (written by authentication) and revocation.
func TestKeysList(t *testing.T) {
	t.Parallel()
	run, b := setup(t)
	ctx := context.Background()
	out, _, code := run("clients", "create", "--name", "Keys")
	require.Equal(t, 0, code)
	clientID, _ := out["api_client_id"].(string)
	firstID, _ := out["api_key_id"].(string)
	firstKey, _ := out["api_key"].(string)
	require.NotEmpty(t, firstID, "clients create returns the first key's id: %v", out)

	out, _, code = run("keys", "create", "--client", clientID)
	require.Equal(t, 0, code)
	secondID, _ := out["api_key_id"].(string)
	_, _, code = run("keys", "revoke", secondID)
	require.Equal(t, 0, code)
	_, err := b.store.Authenticate(ctx, auth.HashKey(firstKey))
	require.NoError(t, err)

	out, _, code = run("keys", "list", "--client", clientID)
	require.Equal(t, 0, code)
	data, _ := out["data"].([]any)
	require.Len(t, data, 2)
	first, second := data[0].(map[string]any), data[1].(map[string]any)
	require.Equal(t, firstID, first["api_key_id"])
	require.Equal(t, auth.DisplayPrefix(firstKey), first["prefix"])
	require.NotEmpty(t, first["created_at"])
	require.NotNil(t, first["last_used_at"], "the key that authenticated shows its last use")
	require.Nil(t, first["revoked_at"])
	require.Equal(t, secondID, second["api_key_id"])
	require.Nil(t, second["last_used_at"], "a key never used has no last use")
	require.NotNil(t, second["revoked_at"])

	_, stderr, code := run("keys", "list", "--client", "01a20f5f-63eb-7cf8-8180-12853f5010c4")
	require.NotEqual(t, 0, code, "keys list of an unknown client: %s", stderr)
}

// A key rotation: with a new key first in the ring and the old one after it, every
// secret still opens; secrets reencrypt moves them all to the new key, after which the
// new key alone opens them.
func TestSecretsReencrypt(t *testing.T) {
	run, b := setup(t)
	ctx := context.Background()
	oldKey, newKey := secretbox.NewKey(), secretbox.NewKey()
	oldBytes, _ := secretbox.ParseKey(oldKey)
	newBytes, _ := secretbox.ParseKey(newKey)
	oldBox, err := secretbox.New(oldBytes)
	require.NoError(t, err)
	c, _, _, err := b.store.CreateClient(ctx, "hooks", auth.AllPermissions)
	require.NoError(t, err)
	tenant := b.store.Tenant(c.ID)
	var endpoints []uuid.UUID
	for i := range 3 {
		w, err := tenant.CreateWebhookEndpoint(ctx, "https://example.com/hook"+strconv.Itoa(i), "", nil,
			func(id uuid.UUID) []byte { return oldBox.Seal([]byte("whsec_"+strconv.Itoa(i)), id[:]) })
		require.NoError(t, err)
		endpoints = append(endpoints, w.ID)
	}
	// One endpoint in the middle of a secret rotation keeps a previous secret too.
	_, err = tenant.RotateWebhookSecret(ctx, endpoints[1], 24*time.Hour, func(id uuid.UUID) []byte { return oldBox.Seal([]byte("whsec_rotated"), id[:]) })
	require.NoError(t, err)

	// Responses kept for Idempotency-Key replay: two sealed with the old key, one kept in
	// clear by a version from before responses were sealed.
	kept := map[string]string{
		"create-1": `{"signing_secret":"whsec_0"}`, "rotate-1": `{"signing_secret":"whsec_rotated"}`, "legacy-1": `{"signing_secret":"whsec_legacy"}`,
	}
	for k, body := range kept {
		owner := uuid.New()
		claimed, _, err := b.store.ClaimIdempotencyKey(ctx, c.ID, k, owner)
		require.True(t, claimed)
		require.NoError(t, err)
		require.NoError(t, b.store.FinishIdempotencyKey(ctx, c.ID, k, owner, []byte("h"), store.StoredResponse{
			Status: 201, ContentType: "application/json", SealedBody: oldBox.Seal([]byte(body), store.IdempotencyOwner(c.ID, k)),
		}))
	}
	_, err = b.store.Pool().Exec(ctx, `UPDATE idempotency_keys SET response_body = $2, response_sealed = NULL WHERE key = $1`, "legacy-1", kept["legacy-1"])
	require.NoError(t, err)

	t.Setenv("DOCEVAL_SECRET_KEY", newKey+","+oldKey)
	t.Setenv("DOCEVAL_CONSOLE_SECRET_KEY", "")
	out, stderr, code := run("secrets", "reencrypt")
	require.Equal(t, 0, code, stderr)
	require.EqualValues(t, 4, out["webhook_secrets"])
	require.EqualValues(t, 3, out["idempotency_responses"])
	require.EqualValues(t, 7, out["resealed"])
	out, _, code = run("secrets", "reencrypt")
	require.Equal(t, 0, code)
	require.EqualValues(t, 0, out["resealed"], "a second run finds nothing sealed with an old key")

	newOnly, err := secretbox.New(newBytes)
	require.NoError(t, err)
	for i, id := range endpoints {
		var secret, previous []byte
		require.NoError(t, b.store.Pool().QueryRow(ctx, "SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1", id).Scan(&secret, &previous))
		plain, err := newOnly.Open(secret, id[:])
		require.NoError(t, err, "endpoint %d", i)
		want := "whsec_" + strconv.Itoa(i)
		if i == 1 {
			want = "whsec_rotated"
			prev, err := newOnly.Open(previous, id[:])
			require.NoError(t, err)
			require.Equal(t, "whsec_1", string(prev))
		}
		require.Equal(t, want, string(plain))
	}
	for k, body := range kept {
		var clear, sealed []byte
		require.NoError(t, b.store.Pool().QueryRow(ctx, "SELECT response_body, response_sealed FROM idempotency_keys WHERE api_client_id = $1 AND key = $2", c.ID, k).Scan(&clear, &sealed))
		require.Nil(t, clear, "key %s: a body left in clear", k)
		plain, err := newOnly.Open(sealed, store.IdempotencyOwner(c.ID, k))
		require.NoError(t, err, "key %s", k)
		require.Equal(t, body, string(plain))
		claimed, rec, err := b.store.ClaimIdempotencyKey(ctx, c.ID, k, uuid.New())
		require.NoError(t, err)
		require.False(t, claimed)
		require.Equal(t, sealed, rec.Response.SealedBody, "key %s: the replay reads what was sealed", k)
	}
	t.Setenv("DOCEVAL_SECRET_KEY", "not-a-key")
	_, _, code = run("secrets", "reencrypt")
	require.NotEqual(t, 0, code)
	t.Setenv("DOCEVAL_SECRET_KEY", "")
	_, stderr, code = run("secrets", "reencrypt")
	require.NotEqual(t, 0, code, "no key ring at all")
	require.Contains(t, stderr, "DOCEVAL_CONSOLE_SECRET_KEY")
}

// Every command has its own help, with its flags; a usage error shows the usage of the
// command it was in; shell completion is generated. None of them opens the database.
func TestHelpAndCompletion(t *testing.T) {
	t.Parallel()
	noDB := func(context.Context, bool) (*store.Store, func(), error) {
		t.Error("the database was opened")
		return nil, nil, errors.New("no database")
	}
	cli := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		code := admin.Run(context.Background(), args, noDB, &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}
	for args, want := range map[string][]string{
		"--help":                      {"clients", "keys", "operators", "secrets", "migrate", "completion"},
		"clients create --help":       {"--name", "--permissions", "templates:read", "webhooks:write"},
		"keys list --help":            {"--client"},
		"operators set-access --help": {"--role", "--clients"},
		"secrets reencrypt --help":    {"DOCEVAL_SECRET_KEY", "DOCEVAL_CONSOLE_SECRET_KEY"},
		"completion bash":             {"bash completion"},
		"help operators reset-totp":   {"second factor"},
	} {
		out, _, code := cli(strings.Fields(args)...)
		require.Equal(t, 0, code, args)
		for _, w := range want {
			require.Contains(t, out, w, args)
		}
	}
	_, stderr, code := cli("operators", "create", "--role", "admin")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--email is required")
	require.Contains(t, stderr, "--sso-only", "the usage of operators create follows the error")
	_, stderr, code = cli("keys", "revoke", "a", "b")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "keys revoke ID")
	_, stderr, code = cli("clients", "create", "--name", "x", "--colour", "blue")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "unknown flag: --colour")
}

// clients create --if-absent makes the client and its key once; run again (a setup
// that runs at every start) it names the existing client and issues no other key.
func TestClientsCreateIfAbsent(t *testing.T) {
	t.Parallel()
	run, b := setup(t)
	ctx := context.Background()
	out, _, code := run("clients", "create", "--name", "compose", "--if-absent")
	require.Equal(t, 0, code)
	clientID, _ := out["api_client_id"].(string)
	key, _ := out["api_key"].(string)
	_, err := b.store.Authenticate(ctx, auth.HashKey(key))
	require.NoError(t, err, "the first run prints a working key")

	out, _, code = run("clients", "create", "--name", "compose", "--if-absent")
	require.Equal(t, 0, code)
	require.Equal(t, clientID, out["api_client_id"])
	require.Equal(t, true, out["existing"])
	require.NotContains(t, out, "api_key", "no key, and nothing a script could take for one")
	require.Contains(t, out["note"], "keys create --client "+clientID)
	keys, _, _ := run("keys", "list", "--client", clientID)
	require.Len(t, keys["data"], 1, "no second key")

	out, _, _ = run("clients", "create", "--name", "compose")
	require.NotEqual(t, clientID, out["api_client_id"], "without --if-absent a second client is made")
}
