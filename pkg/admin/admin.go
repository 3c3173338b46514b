// Package admin is the operator CLI, doceval-admin: API clients, keys, permissions and
// migrations. Output is JSON on stdout; errors go to
// stderr with a non-zero status.
package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
)

// Usage is printed for -h and usage errors.
const Usage = `usage: doceval-admin COMMAND (reads DATABASE_URL)

  migrate                                        apply pending database migrations
  clients create --name NAME [--permissions all|p1,p2]
                                                 create an API client and its first key
  clients list                                   list API clients
  clients disable ID | clients enable ID         disable (403 api_client_disabled; deliveries and
                                                 jobs held) or enable (held ones resume)
  clients set-permissions ID p1,p2               replace a client's permissions ("all" for all)
  keys create --client ID                        issue another key for a client
  keys list --client ID                          a client's keys: id, prefix, created, last used, revoked
  keys revoke KEY_ID                             revoke a key at once (401 invalid_api_key)
  secrets reencrypt                              after a key rotation: seal every webhook signing
                                                 secret and response kept for Idempotency-Key
                                                 replay with the first key of DOCEVAL_SECRET_KEY,
                                                 and every staff TOTP secret with the first key
                                                 of DOCEVAL_CONSOLE_SECRET_KEY (each when set)
  operators create --email E --role admin|advisor [--clients ID,ID] [--sso-only]
                                                 a console account; its password is printed once
                                                 (--clients: an advisor sees only these clients)
  operators list                                 console accounts
  operators set-password ID                      a new random password (printed once); ends sessions
  operators set-access ID --role R [--clients ID,ID]
                                                 change role and visible clients
  operators disable ID | operators enable ID     disabling ends the account's sessions at once
  operators reset-totp ID                        remove the account's second factor (a lost device);
                                                 ends its sessions

permissions: ` + "templates:read templates:write catalog:read catalog:write submissions:read submissions:write files:read files:write evaluations:read evaluations:write events:read events:write webhooks:read webhooks:write" + `
`

var errUsage = errors.New("usage")

// Opener connects to the database (and migrates it for "migrate").
type Opener func(ctx context.Context, migrate bool) (*store.Store, func(), error)

// Run executes one command and returns the process exit status.
func Run(ctx context.Context, args []string, open Opener, stdout, stderr io.Writer) int {
	err := run(ctx, args, open, stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprint(stderr, Usage)
		return 2
	default:
		fmt.Fprintf(stderr, "doceval-admin: %v\n", err)
		return 1
	}
}

func run(ctx context.Context, args []string, open Opener, stdout io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	cmd := args[0]
	if len(args) > 1 && cmd != "migrate" {
		cmd += " " + args[1]
		args = args[2:]
	} else {
		args = args[1:]
	}
	out := json.NewEncoder(stdout)
	out.SetIndent("", "  ")

	if cmd == "migrate" {
		if len(args) != 0 {
			return errUsage
		}
		_, closeDB, err := open(ctx, true)
		if err != nil {
			return err
		}
		closeDB()
		return out.Encode(map[string]string{"status": "migrated"})
	}

	handler, ok := commands[cmd]
	if !ok {
		return errUsage
	}
	st, closeDB, err := open(ctx, false)
	if err != nil {
		return err
	}
	defer closeDB()
	// Every change is in the console's audit log, under the operating-system user.
	result, err := handler(ctx, st.As(store.Actor{Name: "doceval-admin (" + osUser() + ")"}), args)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%s: no such client, key or operator", cmd)
	case errors.Is(err, store.ErrAdminLimited):
		return fmt.Errorf("%s: --clients is for advisors: %w", cmd, err)
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("%s: already exists (an operator with this e-mail?)", cmd)
	case err != nil:
		return err
	}
	return out.Encode(result)
}

func osUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown user"
}

type command func(ctx context.Context, st *store.Store, args []string) (any, error)

var commands = map[string]command{
	"clients create": clientsCreate,
	"clients list":   clientsList,
	"clients disable": func(ctx context.Context, st *store.Store, args []string) (any, error) {
		return setDisabled(ctx, st, args, true)
	},
	"clients enable": func(ctx context.Context, st *store.Store, args []string) (any, error) {
		return setDisabled(ctx, st, args, false)
	},
	"clients set-permissions": clientsSetPermissions,
	"keys create":             keysCreate,
	"keys list":               keysList,
	"keys revoke":             keysRevoke,
	"secrets reencrypt":       secretsReencrypt,
	"operators create":        operatorsCreate,
	"operators list":          operatorsList,
	"operators set-password":  operatorsSetPassword,
	"operators set-access":    operatorsSetAccess,
	"operators disable":       operatorsSetDisabled(true),
	"operators enable":        operatorsSetDisabled(false),
	"operators reset-totp":    operatorsResetTOTP,
}

func clientsCreate(ctx context.Context, st *store.Store, args []string) (any, error) {
	fs := flag.NewFlagSet("clients create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("name", "", "client name")
	perms := fs.String("permissions", "all", "all, or a comma-separated list")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || strings.TrimSpace(*name) == "" {
		return nil, errUsage
	}
	ps, err := auth.ParsePermissions(*perms)
	if err != nil {
		return nil, err
	}
	client, first, key, err := st.CreateClient(ctx, strings.TrimSpace(*name), ps)
	if err != nil {
		return nil, err
	}
	return map[string]any{"api_client_id": client.ID, "api_key_id": first.ID, "api_key": key}, nil
}

func clientsList(ctx context.Context, st *store.Store, args []string) (any, error) {
	if len(args) != 0 {
		return nil, errUsage
	}
	clients, err := st.ListClients(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": clients}, nil
}

func setDisabled(ctx context.Context, st *store.Store, args []string, disabled bool) (any, error) {
	id, err := oneID(args, 1)
	if err != nil {
		return nil, err
	}
	return st.SetClientDisabled(ctx, id, disabled)
}

func clientsSetPermissions(ctx context.Context, st *store.Store, args []string) (any, error) {
	if len(args) != 2 {
		return nil, errUsage
	}
	id, err := oneID(args[:1], 1)
	if err != nil {
		return nil, err
	}
	ps, err := auth.ParsePermissions(args[1])
	if err != nil {
		return nil, err
	}
	return st.SetClientPermissions(ctx, id, ps)
}

// clientFlag reads the --client ID of a keys command.
func clientFlag(name string, args []string) (uuid.UUID, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	client := fs.String("client", "", "API client id")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		return uuid.Nil, errUsage
	}
	id, err := uuid.Parse(*client)
	if err != nil {
		return uuid.Nil, fmt.Errorf("--client: %q is not a UUID", *client)
	}
	return id, nil
}

func keysList(ctx context.Context, st *store.Store, args []string) (any, error) {
	id, err := clientFlag("keys list", args)
	if err != nil {
		return nil, err
	}
	keys, err := st.ListKeys(ctx, id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": keys}, nil
}

// secretsReencrypt moves sealed secrets to the newest key of their ring (secretbox): run
// it after putting a new key first, before dropping the old ones. Each ring given is
// done: DOCEVAL_SECRET_KEY for webhook signing secrets and responses kept for
// Idempotency-Key replay (which may carry a signing_secret; one kept in clear before
// responses were sealed is sealed too), DOCEVAL_CONSOLE_SECRET_KEY for staff TOTP
// secrets. The two rings must not share a key: the console holds its own ring and
// reads webhook_endpoints, so with a key of the api's it could open every signing
// secret.
func secretsReencrypt(ctx context.Context, st *store.Store, args []string) (any, error) {
	if len(args) != 0 {
		return nil, errUsage
	}
	apiEnv, consoleEnv := os.Getenv("DOCEVAL_SECRET_KEY"), os.Getenv("DOCEVAL_CONSOLE_SECRET_KEY")
	if apiEnv == "" && consoleEnv == "" {
		return nil, errors.New("set DOCEVAL_SECRET_KEY (webhook signing secrets, replayed responses), DOCEVAL_CONSOLE_SECRET_KEY (staff TOTP secrets), or both")
	}
	apiKeys, err := parseRing("DOCEVAL_SECRET_KEY", apiEnv)
	if err != nil {
		return nil, err
	}
	consoleKeys, err := parseRing("DOCEVAL_CONSOLE_SECRET_KEY", consoleEnv)
	if err != nil {
		return nil, err
	}
	for _, k := range consoleKeys {
		if slices.ContainsFunc(apiKeys, func(a []byte) bool { return bytes.Equal(a, k) }) {
			return nil, errors.New("DOCEVAL_CONSOLE_SECRET_KEY shares a key with DOCEVAL_SECRET_KEY: the console's ring must be its own, or it could open every webhook signing secret")
		}
	}
	out, total := map[string]any{}, 0
	if len(apiKeys) > 0 {
		box, err := secretbox.NewRing(apiKeys)
		if err != nil {
			return nil, err
		}
		secrets, err := st.ResealWebhookSecrets(ctx, box.Reseal)
		if err != nil {
			return nil, err
		}
		responses, err := st.ResealIdempotencyResponses(ctx, box.Reseal, box.Seal)
		if err != nil {
			return nil, err
		}
		total += secrets + responses
		out["webhook_secrets"], out["idempotency_responses"], out["keys_in_ring"] = secrets, responses, len(apiKeys)
	}
	if len(consoleKeys) > 0 {
		box, err := secretbox.NewRing(consoleKeys)
		if err != nil {
			return nil, err
		}
		totp, err := st.ResealTOTPSecrets(ctx, box.Reseal)
		if err != nil {
			return nil, err
		}
		total += totp
		out["totp_resealed"], out["console_keys_in_ring"] = totp, len(consoleKeys)
	}
	out["resealed"] = total
	return out, nil
}

// parseRing reads a key ring (NEW,OLD,...) from the variable name; none when empty.
func parseRing(name, value string) ([][]byte, error) {
	if value == "" {
		return nil, nil
	}
	keys, err := secretbox.ParseKeys(value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return keys, nil
}

func keysCreate(ctx context.Context, st *store.Store, args []string) (any, error) {
	id, err := clientFlag("keys create", args)
	if err != nil {
		return nil, err
	}
	key, secret, err := st.CreateKey(ctx, id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"api_key_id": key.ID, "api_key": secret}, nil
}

func keysRevoke(ctx context.Context, st *store.Store, args []string) (any, error) {
	id, err := oneID(args, 1)
	if err != nil {
		return nil, err
	}
	return st.RevokeKey(ctx, id)
}

func oneID(args []string, n int) (uuid.UUID, error) {
	if len(args) != n {
		return uuid.Nil, errUsage
	}
	id, err := uuid.Parse(args[0])
	if err != nil {
		return uuid.Nil, fmt.Errorf("%q is not a UUID", args[0])
	}
	return id, nil
}
