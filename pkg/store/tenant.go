package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/keyset"
)

// Tenant is the store seen by one API client. Every read and write a request makes goes
// through the Tenant of its authenticated principal, and every query it runs carries
// api_client_id, so another client's rows are not found (404 not_found) rather than
// forbidden: their existence is not revealed.
type Tenant struct {
	s        *Store
	clientID uuid.UUID
	limits   Limits
}

// Limits are the caps a tenant's writes are held to; zero is no cap.
type Limits struct {
	// UploadsPerSubmission caps a submission's uploads (createUpload, createSlotUpload).
	UploadsPerSubmission int
	// PagesPerEvaluation caps the pages of the ready uploads an evaluation reads
	// (startEvaluation).
	PagesPerEvaluation int
}

// Tenant scopes the store to one API client.
func (s *Store) Tenant(clientID uuid.UUID) Tenant { return Tenant{s: s, clientID: clientID} }

// WithLimits is the tenant held to limits.
func (t Tenant) WithLimits(limits Limits) Tenant {
	t.limits = limits
	return t
}

// ClientID is the API client the tenant is scoped to.
func (t Tenant) ClientID() uuid.UUID { return t.clientID }

// StoredEvent is an event of the log: its id, time and the exact envelope bytes that
// webhooks deliver.
type StoredEvent struct {
	ID        uuid.UUID
	CreatedAt time.Time
	Envelope  []byte
}

// Cursor is the keyset position of the event in a newest-first list.
func (e StoredEvent) Cursor() keyset.Position {
	return keyset.Position{CreatedAt: e.CreatedAt, ID: e.ID}
}

// EventFilter selects events: optional type and submission, the page's start and size.
type EventFilter struct {
	Type         *string
	SubmissionID *uuid.UUID
	After        *keyset.Position
	// Limit is the page size; Events returns up to Limit+1 rows so page.Trim can tell
	// whether a next page exists.
	Limit int
}

// Event reads one of the tenant's events.
func (t Tenant) Event(ctx context.Context, id uuid.UUID) (StoredEvent, error) {
	r, err := t.s.queries(ctx).EventGetByID(ctx, db.EventGetByIDParams{APIClientID: t.clientID, ID: id})
	if err != nil {
		return StoredEvent{}, interpretError(err)
	}
	return StoredEvent{ID: r.ID, CreatedAt: r.CreatedAt, Envelope: r.Envelope}, nil
}

// Events lists the tenant's events newest first.
func (t Tenant) Events(ctx context.Context, f EventFilter) ([]StoredEvent, error) {
	p := db.EventListParams{APIClientID: t.clientID, Type: f.Type, SubmissionID: f.SubmissionID, MaxRows: int32(f.Limit + 1)}
	if f.After != nil {
		p.CursorCreatedAt, p.CursorID = &f.After.CreatedAt, &f.After.ID
	}
	rows, err := t.s.queries(ctx).EventList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]StoredEvent, len(rows))
	for i, r := range rows {
		out[i] = StoredEvent{ID: r.ID, CreatedAt: r.CreatedAt, Envelope: r.Envelope}
	}
	return out, nil
}

// retentionBatch is how many events one statement of DeleteEventsBefore removes.
const retentionBatch = 2000

// DeleteEventsBefore removes the event log's entries older than before (retention), with
// their deliveries, and returns how many. It deletes a batch of the oldest at a time, each
// in its own transaction, so a day's backlog holds no lock for long and a failure keeps
// what was deleted before it.
func (s *Store) DeleteEventsBefore(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		n, err := s.queries(ctx).EventDeleteOlderThan(ctx, db.EventDeleteOlderThanParams{Before: before, Batch: retentionBatch})
		total += n
		if err != nil || n < retentionBatch {
			return total, interpretError(err)
		}
	}
}
