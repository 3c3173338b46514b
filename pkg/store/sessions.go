package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
)

// ConsoleSession is a signed-in console session. The cookie carries a random token;
// the database keeps only its SHA-256 (TokenHash).
type ConsoleSession struct {
	TokenHash  []byte
	OperatorID uuid.UUID
	CSRFToken  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// sessionTouchResolution: how stale last_seen_at may get before a request moves it.
const sessionTouchResolution = time.Minute

// NewSession is a session to open.
type NewSession struct {
	TokenHash  []byte
	OperatorID uuid.UUID
	CSRFToken  string
	MaxAge     time.Duration // absolute lifetime
	IP         string
	UserAgent  string
	// Method is how the operator signed in (password, password+totp, oidc), for the
	// audit log.
	Method string
	// MFAPending: the password was right and the second factor is still to come; the
	// session opens only the code form (PendingSession), and is not audited as a sign-in.
	MFAPending bool
}

// CreateSession opens a session; acting for someone (As), it records the sign-in in
// the audit log in the same transaction.
func (s *Store) CreateSession(ctx context.Context, in NewSession) (ConsoleSession, error) {
	now := s.Now()
	err := s.InTx(ctx, func(tx *Tx) error {
		err := tx.q.SessionInsert(ctx, db.SessionInsertParams{
			TokenHash: in.TokenHash, OperatorID: in.OperatorID, CsrfToken: in.CSRFToken, Now: now,
			ExpiresAt: now.Add(in.MaxAge), Ip: in.IP, UserAgent: in.UserAgent, MfaPending: in.MFAPending,
		})
		if err != nil {
			return interpretError(err)
		}
		if in.MFAPending {
			return nil
		}
		return tx.audit(ctx, "signin", "operator", in.OperatorID.String(), map[string]any{"method": in.Method})
	})
	if err != nil {
		return ConsoleSession{}, err
	}
	return ConsoleSession{TokenHash: in.TokenHash, OperatorID: in.OperatorID, CSRFToken: in.CSRFToken, CreatedAt: now, ExpiresAt: now.Add(in.MaxAge)}, nil
}

// Session resolves a session token's hash and marks it used. ErrNotFound: unknown,
// idle for longer than idle, past its absolute expiry, or its operator disabled.
func (s *Store) Session(ctx context.Context, tokenHash []byte, idle time.Duration) (ConsoleSession, error) {
	now := s.Now()
	r, err := s.queries(ctx).SessionTouch(ctx, db.SessionTouchParams{
		TokenHash: tokenHash, Now: now, IdleBefore: now.Add(-idle), StaleBefore: now.Add(-sessionTouchResolution),
	})
	if err != nil {
		return ConsoleSession{}, interpretError(err)
	}
	return ConsoleSession{TokenHash: r.TokenHash, OperatorID: r.OperatorID, CSRFToken: r.CsrfToken, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}, nil
}

// PendingSession resolves the token of a session waiting for its second factor.
// ErrNotFound: unknown, expired, a full session, or its operator disabled.
func (s *Store) PendingSession(ctx context.Context, tokenHash []byte) (ConsoleSession, error) {
	r, err := s.queries(ctx).SessionPendingGet(ctx, db.SessionPendingGetParams{TokenHash: tokenHash, Now: s.Now()})
	if err != nil {
		return ConsoleSession{}, interpretError(err)
	}
	return ConsoleSession{TokenHash: r.TokenHash, OperatorID: r.OperatorID, CSRFToken: r.CsrfToken, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt}, nil
}

// DeleteSession ends one session (sign-out).
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	return interpretError(s.queries(ctx).SessionDelete(ctx, tokenHash))
}

// DeleteSessionsOf ends every session of an operator (sign-out everywhere).
func (s *Store) DeleteSessionsOf(ctx context.Context, operatorID uuid.UUID) (int64, error) {
	n, err := s.queries(ctx).SessionDeleteOfOperator(ctx, operatorID)
	return n, interpretError(err)
}

// DeleteExpiredSessions removes sessions past either expiry and sign-in failures older
// than keepFailures.
func (s *Store) DeleteExpiredSessions(ctx context.Context, idle, keepFailures time.Duration) (int64, error) {
	now := s.Now()
	n, err := s.queries(ctx).SessionDeleteExpired(ctx, db.SessionDeleteExpiredParams{Now: now, IdleBefore: now.Add(-idle)})
	if err != nil {
		return n, interpretError(err)
	}
	_, err = s.queries(ctx).LoginFailureDeleteBefore(ctx, now.Add(-keepFailures))
	return n, interpretError(err)
}

// LoginFailureKind says what a failed sign-in got wrong.
type LoginFailureKind string

const (
	FailedPassword LoginFailureKind = "password"
	// FailedCode is a wrong second-factor code, after a right password.
	FailedCode LoginFailureKind = "code"
)

// RecordLoginFailure counts a failed sign-in (a password or a second-factor code)
// against the e-mail and the source address; the id is for ForgetLoginFailure.
func (s *Store) RecordLoginFailure(ctx context.Context, email, source string, kind LoginFailureKind) (int64, error) {
	id, err := s.queries(ctx).LoginFailureInsert(ctx, db.LoginFailureInsertParams{Email: email, Ip: source, Kind: string(kind), Now: s.Now()})
	return id, interpretError(err)
}

// ForgetLoginFailure takes back one counted failure: an attempt that was never
// checked (no free password-checking slot), or a right password whose code is still
// to come.
func (s *Store) ForgetLoginFailure(ctx context.Context, id int64) error {
	return interpretError(s.queries(ctx).LoginFailureDelete(ctx, id))
}

// LoginFailureCounts are the failed sign-ins within a window that throttling looks at.
type LoginFailureCounts struct {
	// ByAccountSource: for the e-mail from the source, passwords and codes.
	ByAccountSource int64
	// BySource: from the source for any e-mail.
	BySource int64
	// CodesByAccount: wrong second-factor codes for the e-mail from any source.
	CodesByAccount int64
}

// LoginFailures counts failed sign-ins within window for the e-mail and the source.
func (s *Store) LoginFailures(ctx context.Context, email, source string, window time.Duration) (LoginFailureCounts, error) {
	r, err := s.queries(ctx).LoginFailureCount(ctx, db.LoginFailureCountParams{Email: email, Ip: source, Since: s.Now().Add(-window)})
	if err != nil {
		return LoginFailureCounts{}, interpretError(err)
	}
	return LoginFailureCounts{ByAccountSource: r.ByAccountSource, BySource: r.BySource, CodesByAccount: r.CodesByAccount}, nil
}

// ClearLoginFailures forgets an e-mail's failures from one source after a sign-in from
// there; failures from other sources stay counted.
func (s *Store) ClearLoginFailures(ctx context.Context, email, source string) error {
	return interpretError(s.queries(ctx).LoginFailureClear(ctx, db.LoginFailureClearParams{Email: email, Ip: source}))
}
