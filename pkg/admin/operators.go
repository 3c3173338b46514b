package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
)

// Staff accounts of the console. A new account gets a random password, printed once;
// --sso-only makes an account that signs in through single sign-on alone.

func operatorsCommand(open Opener) *cobra.Command {
	create := &cobra.Command{
		Use:   "create --email E --role admin|advisor [--clients ID,ID] [--sso-only]",
		Short: "Create a console account; its password is printed once",
		Args:  exactArgs(0),
	}
	email := create.Flags().String("email", "", "the operator's e-mail, their sign-in name (required)")
	access := accessFlags(create)
	ssoOnly := create.Flags().Bool("sso-only", false, "no password: sign in through single sign-on only")
	create.RunE = func(c *cobra.Command, _ []string) error {
		if !strings.Contains(*email, "@") {
			return usageError{errors.New("--email is required")}
		}
		role, ids, err := access()
		if err != nil {
			return err
		}
		return run(c, open, func(ctx context.Context, st *store.Store) (any, error) {
			in := store.NewOperator{Email: *email, Role: role, ClientIDs: ids}
			password := ""
			if !*ssoOnly {
				var hash string
				var err error
				if password, hash, err = auth.NewPasswordHash(20); err != nil {
					return nil, err
				}
				in.PasswordHash = &hash
			}
			op, err := st.CreateOperator(ctx, in)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"operator": op}
			if password != "" {
				out["password"] = password
			}
			return out, nil
		})
	}
	list := &cobra.Command{
		Use: "list", Short: "List console accounts", Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			return run(c, open, func(ctx context.Context, st *store.Store) (any, error) {
				ops, err := st.Operators(ctx)
				return map[string]any{"data": ops}, err
			})
		},
	}
	setAccess := &cobra.Command{
		Use:   "set-access ID --role admin|advisor [--clients ID,ID]",
		Short: "Change an account's role and the clients it sees",
		Args:  exactArgs(1),
	}
	newAccess := accessFlags(setAccess)
	setAccess.RunE = func(c *cobra.Command, args []string) error {
		id, err := idArg(args)
		if err != nil {
			return err
		}
		role, ids, err := newAccess()
		if err != nil {
			return err
		}
		return run(c, open, func(ctx context.Context, st *store.Store) (any, error) {
			if err := st.SetOperatorAccess(ctx, id, role, ids); err != nil {
				return nil, err
			}
			return st.OperatorByID(ctx, id)
		})
	}
	setDisabled := func(disabled bool) func(context.Context, *store.Store, uuid.UUID) (any, error) {
		return func(ctx context.Context, st *store.Store, id uuid.UUID) (any, error) {
			if err := st.SetOperatorDisabled(ctx, id, disabled); err != nil {
				return nil, err
			}
			return st.OperatorByID(ctx, id)
		}
	}
	return group("operators", "Console accounts: create, list, passwords, access, second factors",
		create, list,
		byID(open, "set-password", "Give an account a new random password (printed once); ends its sessions", operatorsSetPassword),
		setAccess,
		byID(open, "disable", "Disable an account; ends its sessions at once", setDisabled(true)),
		byID(open, "enable", "Enable an account", setDisabled(false)),
		byID(open, "reset-totp", "Remove an account's second factor (a lost device); ends its sessions", operatorsResetTOTP))
}

// accessFlags adds --role and --clients to c and returns what reads them.
func accessFlags(c *cobra.Command) func() (role string, clients []uuid.UUID, err error) {
	role := c.Flags().String("role", "", "admin or advisor (required)")
	clients := c.Flags().String("clients", "", "comma-separated API client ids an advisor may see (default: all)")
	return func() (string, []uuid.UUID, error) {
		if *role != store.RoleAdmin && *role != store.RoleAdvisor {
			return "", nil, fmt.Errorf("--role: %q is neither admin nor advisor", *role)
		}
		ids, err := parseClientIDs(*clients)
		return *role, ids, err
	}
}

// operatorsSetPassword gives an account a new random password (printed once) and ends
// its sessions.
func operatorsSetPassword(ctx context.Context, st *store.Store, id uuid.UUID) (any, error) {
	password, hash, err := auth.NewPasswordHash(20)
	if err != nil {
		return nil, err
	}
	if err := st.SetOperatorPassword(ctx, id, &hash); err != nil {
		return nil, err
	}
	return map[string]any{"operator_id": id, "password": password}, nil
}

// parseClientIDs reads a comma-separated list of client ids; "" is nil (all clients).
func parseClientIDs(s string) ([]uuid.UUID, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	ids := []uuid.UUID{}
	for _, part := range strings.Split(s, ",") {
		id, err := uuid.Parse(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("--clients: %q is not a UUID", part)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// operatorsResetTOTP removes an account's second factor and ends its sessions; the
// operator enrols anew from the console (at once, when DOCEVAL_CONSOLE_REQUIRE_MFA).
func operatorsResetTOTP(ctx context.Context, st *store.Store, id uuid.UUID) (any, error) {
	if err := st.ResetTOTP(ctx, id); err != nil {
		return nil, err
	}
	return st.OperatorByID(ctx, id)
}
