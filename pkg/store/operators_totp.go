package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
)

// ErrTOTPReplayed: a code of this time step (or a later one) signed in already.
var ErrTOTPReplayed = fmt.Errorf("%w: the code was used already", ErrConflict)

// TOTPOwner is the additional data a TOTP secret is sealed with: the operator's id
// with a purpose, so the value opens on no other row and as no other kind of secret.
func TOTPOwner(operator uuid.UUID) []byte { return append([]byte("operator-totp:"), operator[:]...) }

// SetTOTPPending stores a sealed secret for an enrolment the operator has yet to
// confirm with a code. ErrConflict: the account has a second factor already.
func (s *Store) SetTOTPPending(ctx context.Context, id uuid.UUID, sealed []byte) error {
	n, err := s.queries(ctx).OperatorSetTOTPPending(ctx, db.OperatorSetTOTPPendingParams{ID: id, Secret: sealed, Now: s.Now()})
	if err != nil {
		return interpretError(err)
	}
	if n == 0 {
		return ErrConflict
	}
	return nil
}

// EnableTOTP makes the pending secret (the sealed value the code was checked against)
// the account's second factor, the code's time step used, in the same transaction as
// its audit entry. ErrConflict: another enrolment replaced it, or one finished first.
func (s *Store) EnableTOTP(ctx context.Context, id uuid.UUID, pending []byte, step int64) error {
	return s.InTx(ctx, func(tx *Tx) error {
		n, err := tx.q.OperatorEnableTOTP(ctx, db.OperatorEnableTOTPParams{ID: id, Pending: pending, Step: step, Now: s.Now()})
		if err != nil {
			return interpretError(err)
		}
		if n == 0 {
			return ErrConflict
		}
		return tx.audit(ctx, "operator.totp_enable", "operator", id.String(), nil)
	})
}

// UseTOTPStep records that a code of step signed in; ErrTOTPReplayed when one of this
// step or a later one did already.
func (s *Store) UseTOTPStep(ctx context.Context, id uuid.UUID, step int64) error {
	n, err := s.queries(ctx).OperatorUseTOTPStep(ctx, db.OperatorUseTOTPStepParams{ID: id, Step: step})
	if err != nil {
		return interpretError(err)
	}
	if n == 0 {
		return ErrTOTPReplayed
	}
	return nil
}

// ResetTOTP removes an account's second factor (a lost phone) and ends its sessions;
// with DOCEVAL_CONSOLE_REQUIRE_MFA the operator enrols again at the next sign-in.
func (s *Store) ResetTOTP(ctx context.Context, id uuid.UUID) error {
	return s.InTx(ctx, func(tx *Tx) error {
		n, err := tx.q.OperatorResetTOTP(ctx, db.OperatorResetTOTPParams{ID: id, Now: s.Now()})
		if err != nil {
			return interpretError(err)
		}
		if n == 0 {
			return ErrNotFound
		}
		if _, err := tx.q.SessionDeleteOfOperator(ctx, id); err != nil {
			return interpretError(err)
		}
		return tx.audit(ctx, "operator.totp_reset", "operator", id.String(), nil)
	})
}

// ResealTOTPSecrets passes every stored TOTP secret (enabled and pending) through
// reseal and stores what it returns when it says the value changed, a page of accounts
// per transaction. It returns how many values were sealed anew. reseal is
// secretbox.Box.Reseal; the owner is TOTPOwner(id).
func (s *Store) ResealTOTPSecrets(ctx context.Context, reseal Resealer) (int, error) {
	return resealPages(ctx, s, "totp_secrets", func(ctx context.Context, tx *Tx, after uuid.UUID) (int, uuid.UUID, int, error) {
		rows, err := tx.q.OperatorTOTPSecretsPage(ctx, db.OperatorTOTPSecretsPageParams{After: after, PageSize: resealPageSize})
		if err != nil {
			return 0, after, 0, interpretError(err)
		}
		changed := 0
		for _, r := range rows {
			secret, c1, err := resealOptional(reseal, r.TotpSecret, TOTPOwner(r.ID))
			if err != nil {
				return 0, after, 0, fmt.Errorf("operator %s, TOTP secret: %w", r.ID, err)
			}
			pending, c2, err := resealOptional(reseal, r.TotpPendingSecret, TOTPOwner(r.ID))
			if err != nil {
				return 0, after, 0, fmt.Errorf("operator %s, pending TOTP secret: %w", r.ID, err)
			}
			if !c1 && !c2 {
				continue
			}
			if err := tx.q.OperatorTOTPSecretsSet(ctx, db.OperatorTOTPSecretsSetParams{ID: r.ID, Secret: secret, PendingSecret: pending}); err != nil {
				return 0, after, 0, interpretError(err)
			}
			changed += btoi(c1) + btoi(c2)
		}
		return len(rows), lastOf(rows, after, func(r db.OperatorTOTPSecretsPageRow) uuid.UUID { return r.ID }), changed, nil
	})
}
