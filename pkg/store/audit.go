package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/keyset"
)

// Actor is who a change is recorded for in the audit log: a console operator, or the
// operator CLI. The audit log is append-only (a trigger refuses UPDATE and DELETE).
type Actor struct {
	OperatorID *uuid.UUID
	Name       string // the operator's e-mail, or "doceval-admin (user)"
	IP         string
	UserAgent  string
}

// As returns a Store whose writes of staff actions (API clients, keys, permissions,
// operators, slot decisions) add an audit entry for actor in the same transaction.
func (s *Store) As(actor Actor) *Store {
	c := *s
	c.actor = &actor
	return &c
}

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	ID         uuid.UUID       `json:"id"`
	At         time.Time       `json:"at"`
	OperatorID *uuid.UUID      `json:"operator_id"`
	Actor      string          `json:"actor"`
	Action     string          `json:"action"`
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	Details    json.RawMessage `json:"details"`
	IP         string          `json:"ip"`
	UserAgent  string          `json:"user_agent"`
}

// Cursor is the entry's position in the newest-first log.
func (e AuditEntry) Cursor() keyset.Position { return keyset.Position{CreatedAt: e.At, ID: e.ID} }

// audit records a staff action in this transaction when the store acts for someone
// (As); plain partner and worker writes record nothing.
func (tx *Tx) audit(ctx context.Context, action, targetType, targetID string, details any) error {
	if tx.s.actor == nil {
		return nil
	}
	return tx.insertAudit(ctx, *tx.s.actor, action, targetType, targetID, details)
}

func (tx *Tx) insertAudit(ctx context.Context, a Actor, action, targetType, targetID string, details any) error {
	raw := []byte("{}")
	if details != nil {
		var err error
		if raw, err = json.Marshal(details); err != nil {
			return err
		}
	}
	return interpretError(tx.q.AuditInsert(ctx, db.AuditInsertParams{
		ID: tx.s.NewID(), At: tx.s.Now(), OperatorID: a.OperatorID, Actor: a.Name, Action: action,
		TargetType: targetType, TargetID: targetID, Details: raw, Ip: a.IP, UserAgent: a.UserAgent,
	}))
}

// RecordAudit adds an entry that goes with no other write (a sign-in, a sign-out, a
// refused sign-in).
func (s *Store) RecordAudit(ctx context.Context, a Actor, action, targetType, targetID string, details any) error {
	return s.InTx(ctx, func(tx *Tx) error { return tx.insertAudit(ctx, a, action, targetType, targetID, details) })
}

// AuditFilter selects audit entries: one action or all, a page after a cursor.
type AuditFilter struct {
	Action *string
	After  *keyset.Position
	Limit  int
}

// AuditLog lists entries newest first.
func (s *Store) AuditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	p := db.AuditListParams{Action: f.Action, MaxRows: int32(f.Limit)}
	if f.After != nil {
		p.CursorAt, p.CursorID = &f.After.CreatedAt, &f.After.ID
	}
	rows, err := s.queries(ctx).AuditList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = AuditEntry{
			ID: r.ID, At: r.At, OperatorID: r.OperatorID, Actor: r.Actor, Action: r.Action, TargetType: r.TargetType,
			TargetID: r.TargetID, Details: r.Details, IP: r.Ip, UserAgent: r.UserAgent,
		}
	}
	return out, nil
}
