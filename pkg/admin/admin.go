// Package admin is the operator CLI, doceval-admin: API clients, keys, permissions and
// migrations. Output is JSON on stdout; errors go to
// stderr with a non-zero status.
package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
)

// usageError is a command line that names no command, an unknown one, a wrong number of
// arguments or a bad flag: the command's usage follows the message, and the exit
// status is 2.
type usageError struct{ error }

// Opener connects to the database (and migrates it for "migrate").
type Opener func(ctx context.Context, migrate bool) (*store.Store, func(), error)

// Run executes one command and returns the process exit status: 0, 1 when the command
// failed, 2 on a usage error. Results are JSON on stdout; errors and usage go to
// stderr.
func Run(ctx context.Context, args []string, open Opener, stdout, stderr io.Writer) int {
	root := newRoot(open)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage) || strings.HasPrefix(err.Error(), "unknown command"):
		fmt.Fprintf(stderr, "doceval-admin: %v\n\n%s", err, cmd.UsageString())
		return 2
	default:
		fmt.Fprintf(stderr, "doceval-admin: %v\n", err)
		return 1
	}
}

// permissionsHelp lists the permissions a client may hold.
var permissionsHelp = "permissions: all, or a comma-separated list of " + strings.Join(auth.Strings(auth.AllPermissions), ", ")

func newRoot(open Opener) *cobra.Command {
	root := &cobra.Command{
		Use:   "doceval-admin",
		Short: "The operator CLI: API clients, keys, permissions, console accounts, migrations",
		Long: "doceval-admin manages doceval's API clients, their keys and permissions, the console's\n" +
			"staff accounts and the database schema. It reads DATABASE_URL; every change is in the\n" +
			"console's audit log under the operating-system user. Results are JSON on stdout.",
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE:          groupOnly,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(&cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations",
		Args:  exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			_, closeDB, err := open(c.Context(), true)
			if err != nil {
				return err
			}
			closeDB()
			return printJSON(c, map[string]string{"status": "migrated"})
		},
	})
	root.AddCommand(clientsCommand(open), keysCommand(open), secretsCommand(open), operatorsCommand(open))
	return root
}

// groupOnly is what a command of commands does when named alone or with an unknown
// subcommand: a usage error.
func groupOnly(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())}
	}
	return usageError{errors.New("a command is missing")}
}

func group(use, short string, cmds ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{Use: use, Short: short, RunE: groupOnly}
	g.AddCommand(cmds...)
	return g
}

// exactArgs is cobra.ExactArgs as a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(c, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// action is a command's work on the database, as the CLI's audited actor.
type action func(ctx context.Context, st *store.Store) (any, error)

// run opens the database, does the work and prints its result.
func run(c *cobra.Command, open Opener, do action) error {
	ctx := c.Context()
	st, closeDB, err := open(ctx, false)
	if err != nil {
		return err
	}
	defer closeDB()
	// Every change is in the console's audit log, under the operating-system user.
	result, err := do(ctx, st.As(store.Actor{Name: "doceval-admin (" + osUser() + ")"}))
	name := c.Parent().Name() + " " + c.Name()
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%s: no such client, key or operator", name)
	case errors.Is(err, store.ErrAdminLimited):
		return fmt.Errorf("%s: --clients is for advisors: %w", name, err)
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("%s: already exists (an operator with this e-mail?)", name)
	case err != nil:
		return err
	}
	return printJSON(c, result)
}

func printJSON(c *cobra.Command, v any) error {
	out := json.NewEncoder(c.OutOrStdout())
	out.SetIndent("", "  ")
	return out.Encode(v)
}

// idArg parses the command's one argument, an id.
func idArg(args []string) (uuid.UUID, error) {
	id, err := uuid.Parse(args[0])
	if err != nil {
		return uuid.Nil, fmt.Errorf("%q is not a UUID", args[0])
	}
	return id, nil
}

// byID is a command whose one argument is an id, which do gets.
func byID(open Opener, use, short string, do func(ctx context.Context, st *store.Store, id uuid.UUID) (any, error)) *cobra.Command {
	return &cobra.Command{
		Use: use + " ID", Short: short, Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := idArg(args)
			if err != nil {
				return err
			}
			return run(c, open, func(ctx context.Context, st *store.Store) (any, error) { return do(ctx, st, id) })
		},
	}
}

func clientsCommand(open Opener) *cobra.Command {
	create := &cobra.Command{
		Use:   "create --name NAME [--permissions all|p1,p2]",
		Short: "Create an API client and its first key (printed once)",
		Long:  "Create an API client and its first key; the key is printed once.\n\n" + permissionsHelp,
		Args:  exactArgs(0),
	}
	name := create.Flags().String("name", "", "the client's name (required)")
	perms := create.Flags().String("permissions", "all", "all, or a comma-separated list")
	ifAbsent := create.Flags().Bool("if-absent", false, "when a client of this name exists, print it (without a key) instead of creating another: for a setup that runs at every start, such as the Docker Compose file")
	create.RunE = func(c *cobra.Command, _ []string) error {
		if strings.TrimSpace(*name) == "" {
			return usageError{errors.New("--name is required")}
		}
		ps, err := auth.ParsePermissions(*perms)
		if err != nil {
			return err
		}
		return run(c, open, func(ctx context.Context, st *store.Store) (any, error) {
			if *ifAbsent {
				clients, err := st.ListClients(ctx)
				if err != nil {
					return nil, err
				}
				if i := slices.IndexFunc(clients, func(cl store.Client) bool { return cl.Name == strings.TrimSpace(*name) }); i >= 0 {
					// No api_key field: a script reading .api_key gets null, never a
					// sentence to use as a key.
					return map[string]any{"api_client_id": clients[i].ID, "existing": true,
						"note": "the client exists and its key was shown once; issue another with: doceval-admin keys create --client " + clients[i].ID.String()}, nil
				}
			}
			client, first, key, err := st.CreateClient(ctx, strings.TrimSpace(*name), ps)
			if err != nil {
				return nil, err
			}
			return map[string]any{"api_client_id": client.ID, "api_key_id": first.ID, "api_key": key}, nil
		})
	}
	list := &cobra.Command{
		Use: "list", Short: "List API clients", Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return run(c, open, func(ctx context.Context, st *store.Store) (any, error) {
				clients, err := st.ListClients(ctx)
				return map[string]any{"data": clients}, err
			})
		},
	}
	setDisabled := func(disabled bool) func(context.Context, *store.Store, uuid.UUID) (any, error) {
		return func(ctx context.Context, st *store.Store, id uuid.UUID) (any, error) {
			return st.SetClientDisabled(ctx, id, disabled)
		}
	}
	setPermissions := &cobra.Command{
		Use:   "set-permissions ID p1,p2",
		Short: `Replace a client's permissions ("all" for all)`,
		Long:  "Replace a client's permissions.\n\n" + permissionsHelp,
		Args:  exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := idArg(args)
			if err != nil {
				return err
			}
			ps, err := auth.ParsePermissions(args[1])
			if err != nil {
				return err
			}
			return run(c, open, func(ctx context.Context, st *store.Store) (any, error) {
				return st.SetClientPermissions(ctx, id, ps)
			})
		},
	}
	return group("clients", "API clients: create, list, disable, enable, set permissions",
		create, list,
		byID(open, "disable", "Disable a client (403 api_client_disabled; its deliveries and jobs are held)", setDisabled(true)),
		byID(open, "enable", "Enable a client (held deliveries and jobs resume)", setDisabled(false)),
		setPermissions)
}

func keysCommand(open Opener) *cobra.Command {
	// withClient is a keys command on the client named by --client.
	withClient := func(use, short string, do func(ctx context.Context, st *store.Store, client uuid.UUID) (any, error)) *cobra.Command {
		c := &cobra.Command{Use: use + " --client ID", Short: short, Args: exactArgs(0)}
		client := c.Flags().String("client", "", "the API client's id (required)")
		c.RunE = func(c *cobra.Command, _ []string) error {
			id, err := uuid.Parse(*client)
			if err != nil {
				return fmt.Errorf("--client: %q is not a UUID", *client)
			}
			return run(c, open, func(ctx context.Context, st *store.Store) (any, error) { return do(ctx, st, id) })
		}
		return c
	}
	return group("keys", "API keys: issue, list, revoke",
		withClient("create", "Issue another key for a client (printed once)", func(ctx context.Context, st *store.Store, client uuid.UUID) (any, error) {
			key, secret, err := st.CreateKey(ctx, client)
			if err != nil {
				return nil, err
			}
			return map[string]any{"api_key_id": key.ID, "api_key": secret}, nil
		}),
		withClient("list", "A client's keys: id, prefix, created, last used, revoked", func(ctx context.Context, st *store.Store, client uuid.UUID) (any, error) {
			keys, err := st.ListKeys(ctx, client)
			return map[string]any{"data": keys}, err
		}),
		byID(open, "revoke", "Revoke a key at once (401 invalid_api_key)", func(ctx context.Context, st *store.Store, id uuid.UUID) (any, error) {
			return st.RevokeKey(ctx, id)
		}))
}

func secretsCommand(open Opener) *cobra.Command {
	return group("secrets", "Sealed secrets: re-encrypt after a key rotation", &cobra.Command{
		Use:   "reencrypt",
		Short: "Seal every secret with the newest key of its ring",
		Long: "After a key rotation (a new key put first): seal every webhook signing secret and\n" +
			"response kept for Idempotency-Key replay with the first key of DOCEVAL_SECRET_KEY,\n" +
			"and every staff TOTP secret with the first key of DOCEVAL_CONSOLE_SECRET_KEY (each\n" +
			"ring when set); then the old keys can be dropped.",
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error { return run(c, open, secretsReencrypt) },
	})
}

func osUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown user"
}

// secretsReencrypt moves sealed secrets to the newest key of their ring (secretbox): run
// it after putting a new key first, before dropping the old ones. Each ring given is
// done: DOCEVAL_SECRET_KEY for webhook signing secrets and responses kept for
// Idempotency-Key replay (which may carry a signing_secret; one kept in clear before
// responses were sealed is sealed too), DOCEVAL_CONSOLE_SECRET_KEY for staff TOTP
// secrets. The two rings must not share a key: the console holds its own ring and
// reads webhook_endpoints, so with a key of the api's it could open every signing
// secret.
func secretsReencrypt(ctx context.Context, st *store.Store) (any, error) {
	environment, err := config.Environment("DOCEVAL_SECRET_KEY", "DOCEVAL_CONSOLE_SECRET_KEY") // or their _FILE
	if err != nil {
		return nil, err
	}
	apiEnv, consoleEnv := environment["DOCEVAL_SECRET_KEY"], environment["DOCEVAL_CONSOLE_SECRET_KEY"]
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
