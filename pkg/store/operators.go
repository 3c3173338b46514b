package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
)

// Operator roles: an admin manages API clients, keys and permissions (and may review);
// an advisor reviews submissions, of every client or of some.
const (
	RoleAdmin   = "admin"
	RoleAdvisor = "advisor"
)

// Operator is a staff account of the console.
type Operator struct {
	ID    uuid.UUID `json:"operator_id"`
	Email string    `json:"email"`
	Role  string    `json:"role"`
	// PasswordHash is the argon2id hash; nil for an account that signs in through SSO only.
	PasswordHash *string `json:"-"`
	OIDCSubject  *string `json:"oidc_subject,omitempty"`
	// ClientIDs limits what the operator sees when AllClients is false.
	AllClients bool        `json:"all_clients"`
	ClientIDs  []uuid.UUID `json:"api_client_ids,omitempty"`
	Disabled   bool        `json:"disabled"`
	CreatedAt  time.Time   `json:"created_at"`
	// TOTPEnabledAt is when the account's second factor was confirmed (nil: none).
	TOTPEnabledAt *time.Time `json:"totp_enabled_at,omitempty"`
	// SealedTOTP and SealedTOTPPending are the TOTP secret and an enrolment not yet
	// confirmed, sealed with the key ring bound to TOTPOwner(ID).
	SealedTOTP        []byte `json:"-"`
	SealedTOTPPending []byte `json:"-"`
}

// SSOBound says whether the account is bound to a single sign-on identity: it signs
// in through the identity provider only, whose second factor and offboarding apply.
func (o Operator) SSOBound() bool { return o.OIDCSubject != nil }

// NeedsTOTP says whether the account signs in with a password and has no second
// factor yet.
func (o Operator) NeedsTOTP() bool {
	return !o.SSOBound() && o.PasswordHash != nil && o.TOTPEnabledAt == nil
}

// Sees reports whether the operator may see the API client's data.
func (o Operator) Sees(client uuid.UUID) bool {
	if o.AllClients {
		return true
	}
	for _, c := range o.ClientIDs {
		if c == client {
			return true
		}
	}
	return false
}

func operatorFromRow(r db.Operator, clients []uuid.UUID) Operator {
	return Operator{
		ID: r.ID, Email: r.Email, Role: r.Role, PasswordHash: r.PasswordHash, OIDCSubject: r.OidcSubject,
		AllClients: r.AllClients, ClientIDs: clients, Disabled: r.DisabledAt != nil, CreatedAt: r.CreatedAt,
		TOTPEnabledAt: r.TotpEnabledAt, SealedTOTP: r.TotpSecret, SealedTOTPPending: r.TotpPendingSecret,
	}
}

// NewOperator is a staff account to create. ClientIDs nil: every client.
type NewOperator struct {
	Email        string
	Role         string
	PasswordHash *string
	ClientIDs    []uuid.UUID
}

// ErrAdminLimited: admins manage every client, so they cannot be limited to some.
var ErrAdminLimited = errors.New("an admin sees every API client: only advisors can be limited to some")

// CreateOperator creates a staff account; ErrConflict when the e-mail is taken (in any
// letter case), ErrNotFound when a listed client does not exist.
func (s *Store) CreateOperator(ctx context.Context, in NewOperator) (Operator, error) {
	if in.Role == RoleAdmin && in.ClientIDs != nil {
		return Operator{}, ErrAdminLimited
	}
	var op Operator
	err := s.InTx(ctx, func(tx *Tx) error {
		r, err := tx.q.OperatorInsert(ctx, db.OperatorInsertParams{
			ID: s.NewID(), Email: strings.TrimSpace(in.Email), Role: in.Role, PasswordHash: in.PasswordHash,
			AllClients: in.ClientIDs == nil, Now: s.Now(),
		})
		if err != nil {
			return interpretError(err)
		}
		if err := tx.setOperatorClients(ctx, r.ID, in.ClientIDs); err != nil {
			return err
		}
		op = operatorFromRow(r, in.ClientIDs)
		return tx.audit(ctx, "operator.create", "operator", r.ID.String(), map[string]any{
			"email": op.Email, "role": op.Role, "api_client_ids": in.ClientIDs, "password": in.PasswordHash != nil,
		})
	})
	return op, err
}

func (tx *Tx) setOperatorClients(ctx context.Context, id uuid.UUID, clients []uuid.UUID) error {
	if err := tx.q.OperatorClientsClear(ctx, id); err != nil {
		return interpretError(err)
	}
	for _, c := range clients {
		if err := tx.q.OperatorClientAdd(ctx, db.OperatorClientAddParams{OperatorID: id, APIClientID: c}); err != nil {
			return interpretError(err)
		}
	}
	return nil
}

func (s *Store) operator(ctx context.Context, r db.Operator, err error) (Operator, error) {
	if err != nil {
		return Operator{}, interpretError(err)
	}
	var clients []uuid.UUID
	if !r.AllClients {
		if clients, err = s.queries(ctx).OperatorClientsOf(ctx, r.ID); err != nil {
			return Operator{}, interpretError(err)
		}
	}
	return operatorFromRow(r, clients), nil
}

// OperatorByID reads a staff account.
func (s *Store) OperatorByID(ctx context.Context, id uuid.UUID) (Operator, error) {
	r, err := s.queries(ctx).OperatorGetByID(ctx, id)
	return s.operator(ctx, r, err)
}

// OperatorByEmail reads a staff account by e-mail, in any letter case.
func (s *Store) OperatorByEmail(ctx context.Context, email string) (Operator, error) {
	r, err := s.queries(ctx).OperatorGetByEmail(ctx, strings.TrimSpace(email))
	return s.operator(ctx, r, err)
}

// OperatorByOIDCSubject reads the account bound to a single sign-on identity.
func (s *Store) OperatorByOIDCSubject(ctx context.Context, subject string) (Operator, error) {
	r, err := s.queries(ctx).OperatorGetByOIDCSubject(ctx, &subject)
	return s.operator(ctx, r, err)
}

// BindOIDCSubject binds a single sign-on identity to an account at its first SSO
// sign-in. ErrConflict: the account is bound to another identity (which may have been
// bound a moment ago by a concurrent sign-in), or the identity is bound to another account.
func (s *Store) BindOIDCSubject(ctx context.Context, id uuid.UUID, subject string) error {
	n, err := s.queries(ctx).OperatorSetOIDCSubject(ctx, db.OperatorSetOIDCSubjectParams{ID: id, OidcSubject: &subject, Now: s.Now()})
	if err != nil {
		return interpretError(err)
	}
	if n == 0 {
		if _, err := s.queries(ctx).OperatorGetByID(ctx, id); err != nil {
			return interpretError(err)
		}
		return ErrConflict
	}
	return nil
}

// Operators lists every staff account, by e-mail.
func (s *Store) Operators(ctx context.Context) ([]Operator, error) {
	rows, err := s.queries(ctx).OperatorList(ctx)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]Operator, 0, len(rows))
	for _, r := range rows {
		op, err := s.operator(ctx, r, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, nil
}

// SetOperatorPassword replaces an account's password hash (nil: SSO only) and ends its
// sessions.
func (s *Store) SetOperatorPassword(ctx context.Context, id uuid.UUID, hash *string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.q.OperatorGetByID(ctx, id); err != nil {
			return interpretError(err)
		}
		if err := tx.q.OperatorSetPassword(ctx, db.OperatorSetPasswordParams{ID: id, PasswordHash: hash, Now: s.Now()}); err != nil {
			return interpretError(err)
		}
		if _, err := tx.q.SessionDeleteOfOperator(ctx, id); err != nil {
			return interpretError(err)
		}
		return tx.audit(ctx, "operator.password", "operator", id.String(), map[string]any{"password": hash != nil})
	})
}

// SetOperatorAccess sets an account's role and the clients it sees (nil: all).
func (s *Store) SetOperatorAccess(ctx context.Context, id uuid.UUID, role string, clients []uuid.UUID) error {
	if role == RoleAdmin && clients != nil {
		return ErrAdminLimited
	}
	return s.InTx(ctx, func(tx *Tx) error {
		before, err := tx.q.OperatorGetByID(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		beforeClients, err := tx.q.OperatorClientsOf(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		if err := tx.q.OperatorSetRole(ctx, db.OperatorSetRoleParams{ID: id, Role: role, AllClients: clients == nil, Now: s.Now()}); err != nil {
			return interpretError(err)
		}
		if err := tx.setOperatorClients(ctx, id, clients); err != nil {
			return err
		}
		return tx.audit(ctx, "operator.access", "operator", id.String(), map[string]any{
			"role": role, "api_client_ids": clients, "before": map[string]any{"role": before.Role, "all_clients": before.AllClients, "api_client_ids": beforeClients},
		})
	})
}

// SetOperatorDisabled disables an account (its sessions end at once) or enables it.
func (s *Store) SetOperatorDisabled(ctx context.Context, id uuid.UUID, disabled bool) error {
	now := s.Now()
	var at *time.Time
	if disabled {
		at = &now
	}
	return s.InTx(ctx, func(tx *Tx) error {
		n, err := tx.q.OperatorSetDisabled(ctx, db.OperatorSetDisabledParams{ID: id, DisabledAt: at, Now: now})
		if err != nil {
			return interpretError(err)
		}
		if n == 0 {
			return ErrNotFound
		}
		if disabled {
			if _, err := tx.q.SessionDeleteOfOperator(ctx, id); err != nil {
				return interpretError(err)
			}
		}
		action := "operator.enable"
		if disabled {
			action = "operator.disable"
		}
		return tx.audit(ctx, action, "operator", id.String(), nil)
	})
}
