package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
)

// Delivery statuses (DeliveryStatus) and attempt outcomes.
const (
	DeliveryPending         = "pending"
	DeliverySucceeded       = "succeeded"
	DeliveryFailedRetryable = "failed_retryable"
	DeliveryFailedPermanent = "failed_permanent"
	DeliveryAbandoned       = "abandoned"
)

// Delivery is an event's delivery to one endpoint, with its attempts.
type Delivery struct {
	ID              uuid.UUID
	LeaseToken      uuid.UUID // set on claimed deliveries: only its holder settles
	EventID         uuid.UUID
	EndpointID      uuid.UUID
	APIClientID     uuid.UUID // set on claimed deliveries
	EndpointURL     string
	Status          string
	AttemptCount    int
	NextRetryAt     *time.Time
	LastAttemptedAt *time.Time
	Attempts        []Attempt
	// TraceContext is the trace context of the event's fan-out (set on claimed
	// deliveries; nil when tracing was off), the parent of each attempt's span.
	TraceContext map[string]string
	// Target is what sending it needs (set on claimed deliveries, as of the claim).
	Target DeliveryTarget
}

// Attempt is one try to deliver.
type Attempt struct {
	Number         int
	AttemptedAt    time.Time
	Outcome        string
	ResponseStatus *int
	TransportError *string
	ResponseTimeMs int
}

// FanOut creates the deliveries of an event: one per active endpoint of its client that
// subscribes to its type. Idempotent (a redelivered message creates nothing new). The
// deliveries keep the trace context of ctx for their attempts.
func (s *Store) FanOut(ctx context.Context, eventID uuid.UUID) (int64, error) {
	n, err := s.queries(ctx).DeliveryFanOut(ctx, db.DeliveryFanOutParams{EventID: eventID, Now: s.Now(), TraceContext: traceContext(ctx)})
	return n, interpretError(err)
}

// ClaimLimits bound a claim of deliveries.
type ClaimLimits struct {
	Max         int // deliveries claimed at most
	PerEndpoint int // leased per endpoint at most, across all dispatchers
	// PerClient bounds one API client's sends in this dispatcher: those in InFlight
	// (by client) and those claimed now.
	PerClient int
	InFlight  map[uuid.UUID]int
}

// ClaimDeliveries leases due deliveries for lease, within limits: other dispatchers
// skip them, and a dispatcher killed mid-delivery leaves them due again when the lease
// ends. A disabled client's deliveries are not claimed: they wait, as they are, until
// it is enabled.
func (s *Store) ClaimDeliveries(ctx context.Context, limits ClaimLimits, lease time.Duration) ([]Delivery, error) {
	now := s.Now()
	params := db.DeliveryClaimParams{
		Now: now, LeaseUntil: now.Add(lease), MaxRows: int32(limits.Max),
		PerEndpoint: int64(limits.PerEndpoint), PerClient: int64(limits.PerClient),
		InFlightClients: make([]uuid.UUID, 0, len(limits.InFlight)), InFlightCounts: make([]int64, 0, len(limits.InFlight)),
	}
	for client, n := range limits.InFlight {
		params.InFlightClients = append(params.InFlightClients, client)
		params.InFlightCounts = append(params.InFlightCounts, int64(n))
	}
	rows, err := s.queries(ctx).DeliveryClaim(ctx, params)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]Delivery, len(rows))
	for i, r := range rows {
		out[i] = Delivery{
			ID: r.ID, EventID: r.EventID, EndpointID: r.EndpointID, APIClientID: r.APIClientID, Status: r.Status, AttemptCount: int(r.AttemptCount),
			NextRetryAt: r.NextRetryAt, LastAttemptedAt: r.LastAttemptedAt, TraceContext: traceFields(r.TraceContext),
			Target: s.target(r.Envelope, r.URL, r.Secret, r.PreviousSecret, r.PreviousSecretExpiresAt, r.EndpointDeleted, false),
		}
		if r.LeaseToken != nil {
			out[i].LeaseToken = *r.LeaseToken
		}
	}
	return out, nil
}

// DisabledClients returns which of clients are disabled now.
func (s *Store) DisabledClients(ctx context.Context, clients []uuid.UUID) (map[uuid.UUID]bool, error) {
	ids, err := s.queries(ctx).APIClientsDisabled(ctx, clients)
	if err != nil {
		return nil, interpretError(err)
	}
	disabled := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		disabled[id] = true
	}
	return disabled, nil
}

// DeliveryTarget is what sending a delivery needs: the exact envelope bytes and the
// endpoint's URL and sealed secrets (the previous one while its window lasts).
// ClientDisabled: the API client was disabled since the delivery was claimed; it is
// not sent.
type DeliveryTarget struct {
	Envelope        []byte
	URL             string
	SealedSecrets   [][]byte
	EndpointDeleted bool
	ClientDisabled  bool
}

// Target reads a delivery's target.
func (s *Store) Target(ctx context.Context, id uuid.UUID) (DeliveryTarget, error) {
	r, err := s.queries(ctx).DeliveryTarget(ctx, id)
	if err != nil {
		return DeliveryTarget{}, interpretError(err)
	}
	return s.target(r.Envelope, r.URL, r.Secret, r.PreviousSecret, r.PreviousSecretExpiresAt, r.EndpointDeleted, r.ClientDisabled), nil
}

// target keeps the previous secret while its window lasts.
func (s *Store) target(envelope []byte, url string, secret, previous []byte, previousExpires *time.Time, endpointDeleted, clientDisabled bool) DeliveryTarget {
	t := DeliveryTarget{Envelope: envelope, URL: url, SealedSecrets: [][]byte{secret}, EndpointDeleted: endpointDeleted, ClientDisabled: clientDisabled}
	if previous != nil && previousExpires != nil && previousExpires.After(s.Now()) {
		t.SealedSecrets = append(t.SealedSecrets, previous)
	}
	return t
}

// Settle records an attempt (when a is not nil) and the delivery's new state, if this
// dispatcher still holds its lease; a redelivery asked for meanwhile makes it pending.
// A lost lease (expired and taken over) changes nothing: the new holder records.
func (s *Store) Settle(ctx context.Context, d Delivery, a *Attempt) error {
	if a == nil {
		_, err := s.queries(ctx).DeliverySettle(ctx, db.DeliverySettleParams{
			ID: d.ID, LeaseToken: &d.LeaseToken, Status: d.Status, AttemptCount: int32(d.AttemptCount),
			LastAttemptedAt: d.LastAttemptedAt, NextRetryAt: d.NextRetryAt, Now: s.Now(),
		})
		if errors.Is(interpretError(err), ErrNotFound) {
			return nil
		}
		return interpretError(err)
	}
	return s.SettleAttempts(ctx, []Settlement{{Delivery: d, Attempt: *a}})
}

// Settlement is a delivery's new state and the attempt that led to it.
type Settlement struct {
	Delivery Delivery
	Attempt  Attempt
}

// SettleAttempts settles many attempts as Settle does, in one statement.
func (s *Store) SettleAttempts(ctx context.Context, settled []Settlement) error {
	if len(settled) == 0 {
		return nil
	}
	n := len(settled)
	p := db.DeliverySettleAttemptsParams{
		Ids: make([]uuid.UUID, n), LeaseTokens: make([]uuid.UUID, n), Statuses: make([]string, n), AttemptNumbers: make([]int32, n),
		AttemptedAts: make([]time.Time, n), NextRetryAts: make([]time.Time, n), Outcomes: make([]string, n),
		ResponseStatuses: make([]int32, n), TransportErrors: make([]string, n), ResponseTimesMs: make([]int32, n), Now: s.Now(),
	}
	for i, st := range settled {
		d, a := st.Delivery, st.Attempt
		p.Ids[i], p.LeaseTokens[i], p.Statuses[i], p.AttemptNumbers[i] = d.ID, d.LeaseToken, d.Status, int32(a.Number)
		p.AttemptedAts[i], p.Outcomes[i], p.ResponseTimesMs[i] = a.AttemptedAt, a.Outcome, int32(a.ResponseTimeMs)
		p.NextRetryAts[i] = a.AttemptedAt // any value: kept only for a retry
		if d.NextRetryAt != nil {
			p.NextRetryAts[i] = *d.NextRetryAt
		}
		if a.ResponseStatus != nil { // 0: none
			p.ResponseStatuses[i] = int32(*a.ResponseStatus)
		}
		if a.TransportError != nil { // "": none
			p.TransportErrors[i] = *a.TransportError
		}
	}
	_, err := s.queries(ctx).DeliverySettleAttempts(ctx, p)
	return interpretError(err)
}

// Release gives a claimed delivery back untouched, due again at next.
func (s *Store) Release(ctx context.Context, d Delivery, next time.Time) error {
	return interpretError(s.queries(ctx).DeliveryRelease(ctx, db.DeliveryReleaseParams{ID: d.ID, LeaseToken: &d.LeaseToken, NextRetryAt: next}))
}

// EventDeliveries lists an event's deliveries with their attempts (the event must be
// the tenant's: callers read it through Tenant.Event first).
func (s *Store) EventDeliveries(ctx context.Context, eventID uuid.UUID) ([]Delivery, error) {
	rows, err := s.queries(ctx).DeliveriesOfEvent(ctx, eventID)
	if err != nil {
		return nil, interpretError(err)
	}
	attempts, err := s.queries(ctx).AttemptsOfEvent(ctx, eventID)
	if err != nil {
		return nil, interpretError(err)
	}
	byDelivery := map[uuid.UUID][]Attempt{}
	for _, a := range attempts {
		var status *int
		if a.ResponseStatus != nil {
			v := int(*a.ResponseStatus)
			status = &v
		}
		byDelivery[a.DeliveryID] = append(byDelivery[a.DeliveryID], Attempt{
			Number: int(a.AttemptNumber), AttemptedAt: a.AttemptedAt, Outcome: a.Outcome, ResponseStatus: status,
			TransportError: a.TransportError, ResponseTimeMs: int(a.ResponseTimeMs),
		})
	}
	out := make([]Delivery, len(rows))
	for i, r := range rows {
		out[i] = Delivery{
			ID: r.ID, EventID: r.EventID, EndpointID: r.EndpointID, EndpointURL: r.EndpointURL, Status: r.Status,
			AttemptCount: int(r.AttemptCount), NextRetryAt: r.NextRetryAt, LastAttemptedAt: r.LastAttemptedAt,
			Attempts: append([]Attempt{}, byDelivery[r.ID]...),
		}
	}
	return out, nil
}

// Redeliver requeues an event's deliveries (all failed ones, or endpoint's whatever its
// state) and reports how many: the API's redeliverEvent and the console's Redeliver
// button. When the store acts for an operator (As), a requeue is written to the audit
// log (event.redeliver) in the same transaction.
func (s *Store) Redeliver(ctx context.Context, eventID uuid.UUID, endpoint *uuid.UUID) (int64, error) {
	var n int64
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		n, err = tx.q.DeliveryRequeue(ctx, db.DeliveryRequeueParams{EventID: eventID, EndpointID: endpoint, Now: s.Now()})
		if err != nil || n == 0 {
			return interpretError(err)
		}
		return tx.audit(ctx, "event.redeliver", "event", eventID.String(), map[string]any{"endpoint_id": endpoint, "deliveries": n})
	})
	return n, err
}
