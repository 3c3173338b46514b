package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
)

// Emit writes an event to the event log and its announcement to the outbox, inside the
// transaction of the state change it reports. This is the one way events are emitted.
func (tx *Tx) Emit(ctx context.Context, d events.Draft) (events.Envelope, error) {
	data, err := json.Marshal(d.Data)
	if err != nil {
		return events.Envelope{}, fmt.Errorf("marshal %s data: %w", d.Type, err)
	}
	id := tx.s.NewID()
	env := events.Envelope{
		ID:          events.FormatID(id),
		Type:        d.Type,
		CreatedAt:   tx.s.Now(),
		APIClientID: d.APIClientID,
		Data:        data,
		Triggered:   d.Triggered,
	}
	body, err := json.Marshal(env)
	if err != nil {
		return events.Envelope{}, fmt.Errorf("marshal %s envelope: %w", d.Type, err)
	}
	if err := tx.q.EventInsert(ctx, db.EventInsertParams{
		ID: id, APIClientID: d.APIClientID, Type: string(d.Type), SubmissionID: d.SubmissionID,
		EndpointID: d.EndpointID, Envelope: body, CreatedAt: env.CreatedAt,
	}); err != nil {
		return events.Envelope{}, interpretError(err)
	}
	if err := tx.Enqueue(ctx, jobs.EventPublished{EventID: id, Type: d.Type}); err != nil {
		return events.Envelope{}, err
	}
	return env, nil
}

// Enqueue writes a message to the outbox, on its own subject; the relay publishes it
// after commit, with the trace context of ctx, so the consumer's work continues the
// trace that wrote it.
func (tx *Tx) Enqueue(ctx context.Context, m jobs.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("marshal %s payload: %w", m.Subject(), err)
	}
	return interpretError(tx.q.OutboxInsert(ctx, db.OutboxInsertParams{
		ID: tx.s.NewID(), Subject: m.Subject(), Payload: body, TraceContext: traceContext(ctx), CreatedAt: tx.s.Now(),
	}))
}

// OutboxMessage is one unpublished outbox row.
type OutboxMessage struct {
	Seq     int64
	ID      uuid.UUID
	Subject string
	Payload []byte
	// TraceContext holds the W3C trace context fields of the writing transaction (nil
	// when tracing was off).
	TraceContext map[string]string
}

// OutboxBatch is a claimed batch of outbox rows. The rows stay locked (invisible to other
// relays) until Done or Abort.
type OutboxBatch struct {
	Messages []OutboxMessage
	tx       pgx.Tx
}

// ClaimOutbox locks up to max unpublished rows, oldest first.
func (s *Store) ClaimOutbox(ctx context.Context, max int) (*OutboxBatch, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(tx).OutboxClaim(ctx, int32(max))
	if err != nil {
		_ = tx.Rollback(ctx)
		return nil, interpretError(err)
	}
	b := &OutboxBatch{tx: tx, Messages: make([]OutboxMessage, len(rows))}
	for i, r := range rows {
		b.Messages[i] = OutboxMessage{Seq: r.Seq, ID: r.ID, Subject: r.Subject, Payload: r.Payload, TraceContext: traceFields(r.TraceContext)}
	}
	return b, nil
}

// Done deletes the given published rows and releases the batch.
func (b *OutboxBatch) Done(ctx context.Context, published []int64) error {
	if len(published) > 0 {
		if err := db.New(b.tx).OutboxDelete(ctx, published); err != nil {
			_ = b.tx.Rollback(ctx)
			return interpretError(err)
		}
	}
	return b.tx.Commit(ctx)
}

// Abort releases the batch without deleting anything.
func (b *OutboxBatch) Abort(ctx context.Context) { _ = b.tx.Rollback(ctx) }

// OutboxStats reports the unpublished backlog: its size and the age of its oldest row.
func (s *Store) OutboxStats(ctx context.Context) (pending int64, oldestAge time.Duration, err error) {
	now := s.Now()
	row, err := s.queries(ctx).OutboxOldest(ctx, now)
	if err != nil {
		return 0, 0, interpretError(err)
	}
	return row.Pending, now.Sub(row.Oldest), nil
}
