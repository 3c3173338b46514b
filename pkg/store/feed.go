package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/doceval/doceval/gen/db"
)

// FeedPosition is a place in a client's event feed (listEventFeed): after the event of
// transaction Tx with sequence Seq. At is when the position was reached, so a position
// older than the event retention can be refused.
type FeedPosition struct {
	Tx  uint64    `json:"x"`
	Seq int64     `json:"s"`
	At  time.Time `json:"t"`
}

// ErrBadPosition is a feed cursor that does not decode.
var ErrBadPosition = errors.New("not a feed cursor")

// Encode renders the position as an opaque cursor.
func (p FeedPosition) Encode() string {
	b, _ := json.Marshal(p) // numbers and a time always marshal
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeFeedPosition reads a cursor Encode made.
func DecodeFeedPosition(s string) (FeedPosition, error) {
	var p FeedPosition
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &p) != nil || p.At.IsZero() || p.Seq < 0 {
		return FeedPosition{}, ErrBadPosition
	}
	return p, nil
}

func (p FeedPosition) after(q FeedPosition) bool {
	return p.Tx > q.Tx || (p.Tx == q.Tx && p.Seq > q.Seq)
}

// FeedStart is where a feed read without a cursor begins: the oldest retained event
// (fromStart), or the current end — past the newest event readable now and past every
// transaction that has ended — so only events from now on are read. (Events of
// transactions still running at that moment may be passed over: they began before.)
func (t Tenant) FeedStart(ctx context.Context, fromStart bool) (FeedPosition, error) {
	now := t.s.Now()
	if fromStart {
		return FeedPosition{At: now}, nil
	}
	h, err := t.s.feedHorizon(ctx)
	if err != nil {
		return FeedPosition{}, err
	}
	end := FeedPosition{Tx: h, At: now}
	last, err := t.s.queries(ctx).EventFeedLast(ctx, t.clientID)
	switch err := interpretError(err); {
	case errors.Is(err, ErrNotFound):
		return end, nil // no event yet
	case err != nil:
		return FeedPosition{}, err
	}
	tx, err := strconv.ParseUint(last.Tx, 10, 64)
	if err != nil {
		return FeedPosition{}, err
	}
	if p := (FeedPosition{Tx: tx, Seq: deref(last.Seq, 0), At: now}); p.after(end) {
		end = p
	}
	return end, nil
}

func (s *Store) feedHorizon(ctx context.Context) (uint64, error) {
	h, err := s.queries(ctx).EventFeedHorizon(ctx)
	if err != nil {
		return 0, interpretError(err)
	}
	return strconv.ParseUint(h, 10, 64)
}

// Feed reads up to limit events after the position, oldest first, of the given types
// (all when none), and the position to continue from. Events appear once every
// transaction that began before theirs has ended, so positions only move forward past
// events that can no longer be preceded: no event is skipped or read twice.
func (t Tenant) Feed(ctx context.Context, after FeedPosition, types []string, limit int) ([]StoredEvent, FeedPosition, error) {
	// The horizon is read first: every transaction below it had ended by then, so the
	// read that follows sees all their events.
	horizon, err := t.s.feedHorizon(ctx)
	if err != nil {
		return nil, after, err
	}
	if types == nil {
		types = []string{}
	}
	rows, err := t.s.queries(ctx).EventFeed(ctx, db.EventFeedParams{
		APIClientID: t.clientID, AfterTx: strconv.FormatUint(after.Tx, 10), AfterSeq: after.Seq,
		Horizon: strconv.FormatUint(horizon, 10), Types: types, MaxRows: int32(limit),
	})
	if err != nil {
		return nil, after, interpretError(err)
	}
	next := after
	out := make([]StoredEvent, len(rows))
	for i, r := range rows {
		out[i] = StoredEvent{ID: r.ID, CreatedAt: r.CreatedAt, Envelope: r.Envelope}
		tx, err := strconv.ParseUint(r.Tx, 10, 64)
		if err != nil {
			return nil, after, err
		}
		next = FeedPosition{Tx: tx, Seq: deref(r.Seq, 0)}
	}
	if len(rows) < limit {
		// Nothing else below the horizon matches: the position may move up to it, so an
		// idle reader's cursor stays fresh.
		if end := (FeedPosition{Tx: horizon}); end.after(next) {
			next = end
		}
	}
	next.At = t.s.Now()
	return out, next, nil
}
