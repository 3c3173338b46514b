package admin

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
)

// Staff accounts of the console. A new account gets a random password, printed once;
// --sso-only makes an account that signs in through single sign-on alone.

func operatorsCreate(ctx context.Context, st *store.Store, args []string) (any, error) {
	fs := flag.NewFlagSet("operators create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "the operator's e-mail (their sign-in name)")
	role := fs.String("role", "", "admin or advisor")
	clients := fs.String("clients", "", "comma-separated API client ids the operator may see (default: all)")
	ssoOnly := fs.Bool("sso-only", false, "no password: sign in through single sign-on only")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || !strings.Contains(*email, "@") {
		return nil, errUsage
	}
	if *role != store.RoleAdmin && *role != store.RoleAdvisor {
		return nil, fmt.Errorf("--role: %q is neither admin nor advisor", *role)
	}
	ids, err := parseClientIDs(*clients)
	if err != nil {
		return nil, err
	}
	in := store.NewOperator{Email: *email, Role: *role, ClientIDs: ids}
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
}

func operatorsList(ctx context.Context, st *store.Store, args []string) (any, error) {
	if len(args) != 0 {
		return nil, errUsage
	}
	ops, err := st.Operators(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": ops}, nil
}

// operatorsSetPassword gives an account a new random password (printed once) and ends
// its sessions.
func operatorsSetPassword(ctx context.Context, st *store.Store, args []string) (any, error) {
	id, err := oneID(args, 1)
	if err != nil {
		return nil, err
	}
	password, hash, err := auth.NewPasswordHash(20)
	if err != nil {
		return nil, err
	}
	if err := st.SetOperatorPassword(ctx, id, &hash); err != nil {
		return nil, err
	}
	return map[string]any{"operator_id": id, "password": password}, nil
}

func operatorsSetAccess(ctx context.Context, st *store.Store, args []string) (any, error) {
	if len(args) < 1 {
		return nil, errUsage
	}
	id, err := oneID(args[:1], 1)
	if err != nil {
		return nil, err
	}
	fs := flag.NewFlagSet("operators set-access", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	role := fs.String("role", "", "admin or advisor")
	clients := fs.String("clients", "", "comma-separated API client ids (default: all)")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
		return nil, errUsage
	}
	if *role != store.RoleAdmin && *role != store.RoleAdvisor {
		return nil, fmt.Errorf("--role: %q is neither admin nor advisor", *role)
	}
	ids, err := parseClientIDs(*clients)
	if err != nil {
		return nil, err
	}
	if err := st.SetOperatorAccess(ctx, id, *role, ids); err != nil {
		return nil, err
	}
	return st.OperatorByID(ctx, id)
}

func operatorsSetDisabled(disabled bool) command {
	return func(ctx context.Context, st *store.Store, args []string) (any, error) {
		id, err := oneID(args, 1)
		if err != nil {
			return nil, err
		}
		if err := st.SetOperatorDisabled(ctx, id, disabled); err != nil {
			return nil, err
		}
		return st.OperatorByID(ctx, id)
	}
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
func operatorsResetTOTP(ctx context.Context, st *store.Store, args []string) (any, error) {
	id, err := oneID(args, 1)
	if err != nil {
		return nil, err
	}
	if err := st.ResetTOTP(ctx, id); err != nil {
		return nil, err
	}
	return st.OperatorByID(ctx, id)
}
