package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/keyset"
)

// Reads of the console across API clients. The console decides what an operator may
// see (Operator.Sees) and reads a submission's details through its client's Tenant.

// QueueFilter selects the advisor's work queue: every client's submissions when
// AllClients, else only those of Clients.
type QueueFilter struct {
	AllClients     bool
	Clients        []uuid.UUID
	Client         *uuid.UUID
	Status         *string
	Outcome        *string
	Recommendation *string
	RiskBand       *string
	CreatedBefore  *time.Time
	CreatedAfter   *time.Time
	OldestFirst    bool
	After          *keyset.Position
	Limit          int
}

// QueueItem is a submission in the queue with the summary of its latest completed
// evaluation (empty strings before the first one completed; a re-evaluation under way
// leaves the last known summary in place).
type QueueItem struct {
	ID                   uuid.UUID
	ClientID             uuid.UUID
	ClientName           string
	DisplayID            string
	ExternalSubmissionID string
	TemplateID           string
	Status               string
	CreatedAt            time.Time
	UpdatedAt            time.Time
	Outcome              string
	Recommendation       string
	RiskBand             string
	// SlotsToReview counts received slots with no decision.
	SlotsToReview int
}

// Cursor is the item's position in the queue.
func (q QueueItem) Cursor() keyset.Position { return keyset.Position{CreatedAt: q.CreatedAt, ID: q.ID} }

// Queue lists submissions for review.
func (s *Store) Queue(ctx context.Context, f QueueFilter) ([]QueueItem, error) {
	p := db.QueueListParams{
		AllClients: f.AllClients, ClientIds: f.Clients, ClientID: f.Client, Status: f.Status, Outcome: f.Outcome,
		Recommendation: f.Recommendation, RiskBand: f.RiskBand, CreatedBefore: f.CreatedBefore, CreatedAfter: f.CreatedAfter,
		OldestFirst: f.OldestFirst, MaxRows: int32(f.Limit),
	}
	if p.ClientIds == nil {
		p.ClientIds = []uuid.UUID{}
	}
	if f.After != nil {
		p.CursorCreatedAt, p.CursorID = &f.After.CreatedAt, &f.After.ID
	}
	rows, err := s.queries(ctx).QueueList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]QueueItem, len(rows))
	for i, r := range rows {
		out[i] = queueItemFromRow(r)
	}
	return out, nil
}

// QueueSearch finds the submissions, among those f lets the operator see (AllClients
// or Clients; f's other fields are not read), whose display id (in any case) or
// external submission id (exactly) is term, newest first, at most limit.
func (s *Store) QueueSearch(ctx context.Context, f QueueFilter, term string, limit int) ([]QueueItem, error) {
	clients := f.Clients
	if clients == nil {
		clients = []uuid.UUID{}
	}
	rows, err := s.queries(ctx).QueueSearch(ctx, db.QueueSearchParams{
		AllClients: f.AllClients, ClientIds: clients, Term: term, MaxRows: int32(limit),
	})
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]QueueItem, len(rows))
	for i, r := range rows {
		out[i] = queueItemFromRow(db.QueueListRow(r)) // the same columns
	}
	return out, nil
}

func queueItemFromRow(r db.QueueListRow) QueueItem {
	return QueueItem{
		ID: r.ID, ClientID: r.APIClientID, ClientName: r.ClientName, DisplayID: r.DisplayID,
		ExternalSubmissionID: r.ExternalSubmissionID, TemplateID: r.TemplateID, Status: r.Status,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Outcome: r.Outcome,
		Recommendation: r.Recommendation, RiskBand: r.RiskBand, SlotsToReview: int(r.SlotsToReview),
	}
}

// SubmissionOwner is the API client a submission belongs to and whether it is being
// purged (the console says so instead of "not found").
func (s *Store) SubmissionOwner(ctx context.Context, id uuid.UUID) (client uuid.UUID, purging bool, err error) {
	r, err := s.queries(ctx).SubmissionOwnerOf(ctx, id)
	return r.APIClientID, r.Purging, interpretError(err)
}

// UploadOwner is the client and submission an upload belongs to.
func (s *Store) UploadOwner(ctx context.Context, id uuid.UUID) (client, submissionID uuid.UUID, err error) {
	r, err := s.queries(ctx).UploadClientOf(ctx, id)
	return r.APIClientID, r.SubmissionID, interpretError(err)
}

// UploadPage reads page n of an upload as ingest stored it; ErrNotFound when it has no
// such page.
func (s *Store) UploadPage(ctx context.Context, uploadID uuid.UUID, n int) (document.Page, error) {
	r, err := s.queries(ctx).PageGeometryOne(ctx, db.PageGeometryOneParams{UploadID: uploadID, Page: int32(n)})
	if err != nil {
		return document.Page{}, interpretError(err)
	}
	return pageFromRow(r), nil
}

// EndpointHealth is how an endpoint's deliveries since a time ended, by status.
type EndpointHealth struct {
	ByStatus     map[string]int
	LastActivity time.Time
}

// EndpointsHealth summarises the deliveries of a client's endpoints since since.
func (s *Store) EndpointsHealth(ctx context.Context, client uuid.UUID, since time.Time) (map[uuid.UUID]EndpointHealth, error) {
	rows, err := s.queries(ctx).EndpointDeliveryHealth(ctx, db.EndpointDeliveryHealthParams{APIClientID: client, Since: since})
	if err != nil {
		return nil, interpretError(err)
	}
	out := map[uuid.UUID]EndpointHealth{}
	for _, r := range rows {
		h, ok := out[r.EndpointID]
		if !ok {
			h.ByStatus = map[string]int{}
		}
		h.ByStatus[r.Status] += int(r.Deliveries)
		if r.LastActivityAt.After(h.LastActivity) {
			h.LastActivity = r.LastActivityAt
		}
		out[r.EndpointID] = h
	}
	return out, nil
}
