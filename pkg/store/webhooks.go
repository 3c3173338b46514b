package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/webhook"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/keyset"
)

// WebhookEndpointCursor is the endpoint's position in the newest-first list.
func WebhookEndpointCursor(w webhook.Endpoint) keyset.Position {
	return keyset.Position{CreatedAt: w.CreatedAt, ID: w.ID}
}

func endpointFromRow(r db.WebhookEndpoint) webhook.Endpoint {
	return webhook.Endpoint{
		ID: r.ID, ClientID: r.APIClientID, URL: r.URL, Description: r.Description, Events: r.Events, Status: r.Status,
		SealedSecret: r.Secret, SealedPrevious: r.PreviousSecret, PreviousSecretExpiresAt: r.PreviousSecretExpiresAt,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// activeRoom checks, under the client's lock, that one more endpoint may be active;
// param names the request field refused when not.
func (tx *Tx) activeRoom(ctx context.Context, client uuid.UUID, param string) error {
	if err := tx.q.WebhookEndpointLockClient(ctx, client.String()); err != nil {
		return interpretError(err)
	}
	n, err := tx.q.WebhookEndpointCountActive(ctx, client)
	if err != nil {
		return interpretError(err)
	}
	if err := webhook.CheckRoom(n); err != nil {
		return domain.OnField(param, err)
	}
	return nil
}

// CreateWebhookEndpoint registers an active endpoint. seal encrypts its secret, bound to
// the new endpoint's id.
func (t Tenant) CreateWebhookEndpoint(ctx context.Context, url, description string, events []string, seal func(id uuid.UUID) []byte) (webhook.Endpoint, error) {
	var out webhook.Endpoint
	err := t.s.InTx(ctx, func(tx *Tx) error {
		if err := tx.activeRoom(ctx, t.clientID, "url"); err != nil {
			return err
		}
		id := t.s.NewID()
		r, err := tx.q.WebhookEndpointInsert(ctx, db.WebhookEndpointInsertParams{
			ID: id, APIClientID: t.clientID, URL: url, Description: description, Events: events, Secret: seal(id), Now: t.s.Now(),
		})
		out = endpointFromRow(r)
		return interpretError(err)
	})
	return out, err
}

// WebhookEndpoint reads one of the tenant's endpoints; deleted ones are not found.
func (t Tenant) WebhookEndpoint(ctx context.Context, id uuid.UUID) (webhook.Endpoint, error) {
	r, err := t.s.queries(ctx).WebhookEndpointGet(ctx, db.WebhookEndpointGetParams{APIClientID: t.clientID, ID: id})
	if err != nil {
		return webhook.Endpoint{}, interpretError(err)
	}
	return endpointFromRow(r), nil
}

// WebhookEndpoints lists the tenant's endpoints newest first, up to limit+1.
func (t Tenant) WebhookEndpoints(ctx context.Context, after *keyset.Position, limit int) ([]webhook.Endpoint, error) {
	p := db.WebhookEndpointListParams{APIClientID: t.clientID, MaxRows: int32(limit + 1)}
	if after != nil {
		p.CursorCreatedAt, p.CursorID = &after.CreatedAt, &after.ID
	}
	rows, err := t.s.queries(ctx).WebhookEndpointList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i, r := range rows {
		out[i] = endpointFromRow(r)
	}
	return out, nil
}

// UpdateWebhookEndpoint applies a change; the secret never changes here. Activating an
// endpoint counts against the limit of active ones.
func (t Tenant) UpdateWebhookEndpoint(ctx context.Context, id uuid.UUID, c webhook.Change) (webhook.Endpoint, error) {
	var out webhook.Endpoint
	err := t.s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.q.WebhookEndpointGet(ctx, db.WebhookEndpointGetParams{APIClientID: t.clientID, ID: id})
		if err != nil {
			return interpretError(err)
		}
		if c.Status != nil && webhook.Activates(cur.Status, *c.Status) {
			if err := tx.activeRoom(ctx, t.clientID, "status"); err != nil {
				return err
			}
		}
		r, err := tx.q.WebhookEndpointUpdate(ctx, db.WebhookEndpointUpdateParams{
			APIClientID: t.clientID, ID: id, URL: c.URL, Description: c.Description,
			SetEvents: c.SetEvents, Events: c.Events, Status: c.Status, Now: t.s.Now(),
		})
		out = endpointFromRow(r)
		return interpretError(err)
	})
	return out, err
}

// DeleteWebhookEndpoint removes an endpoint from use and from listings; deleting it again
// is not found.
// Its deliveries still to be tried fail permanently.
func (t Tenant) DeleteWebhookEndpoint(ctx context.Context, id uuid.UUID) error {
	return t.s.InTx(ctx, func(tx *Tx) error {
		n, err := tx.q.WebhookEndpointDelete(ctx, db.WebhookEndpointDeleteParams{APIClientID: t.clientID, ID: id, Now: t.s.Now()})
		if err != nil {
			return interpretError(err)
		}
		if n == 0 {
			return ErrNotFound
		}
		return interpretError(tx.q.DeliveriesOfEndpointFailPermanent(ctx, db.DeliveriesOfEndpointFailPermanentParams{EndpointID: id, Now: t.s.Now()}))
	})
}

// RotateWebhookSecret installs a new sealed secret; the current one stays valid for
// grace, and a previous one still in its window expires at once.
func (t Tenant) RotateWebhookSecret(ctx context.Context, id uuid.UUID, grace time.Duration, seal func(id uuid.UUID) []byte) (webhook.Endpoint, error) {
	now := t.s.Now()
	r, err := t.s.queries(ctx).WebhookEndpointRotate(ctx, db.WebhookEndpointRotateParams{
		APIClientID: t.clientID, ID: id, Secret: seal(id), ExpiresAt: now.Add(grace), Now: now,
	})
	if err != nil {
		return webhook.Endpoint{}, interpretError(err)
	}
	return endpointFromRow(r), nil
}

// ResealWebhookSecrets passes every stored signing secret (current and previous, of
// deleted endpoints too) through reseal and stores what it returns when it says the
// value changed, a page of endpoints per transaction. It returns how many values were
// sealed anew. reseal is secretbox.Box.Reseal: the owner is the endpoint's id.
func (s *Store) ResealWebhookSecrets(ctx context.Context, reseal Resealer) (int, error) {
	return resealPages(ctx, s, "webhook_secrets", func(ctx context.Context, tx *Tx, after uuid.UUID) (int, uuid.UUID, int, error) {
		rows, err := tx.q.WebhookSecretsPage(ctx, db.WebhookSecretsPageParams{After: after, PageSize: resealPageSize})
		if err != nil {
			return 0, after, 0, interpretError(err)
		}
		changed := 0
		for _, r := range rows {
			secret, c1, err := reseal(r.Secret, r.ID[:])
			if err != nil {
				return 0, after, 0, fmt.Errorf("endpoint %s: %w", r.ID, err)
			}
			previous, c2, err := resealOptional(reseal, r.PreviousSecret, r.ID[:])
			if err != nil {
				return 0, after, 0, fmt.Errorf("endpoint %s, previous secret: %w", r.ID, err)
			}
			if !c1 && !c2 {
				continue
			}
			if err := tx.q.WebhookSecretsSet(ctx, db.WebhookSecretsSetParams{ID: r.ID, Secret: secret, PreviousSecret: previous}); err != nil {
				return 0, after, 0, interpretError(err)
			}
			changed += btoi(c1) + btoi(c2)
		}
		return len(rows), lastOf(rows, after, func(r db.WebhookSecretsPageRow) uuid.UUID { return r.ID }), changed, nil
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestWebhookEndpoint emits a webhook_endpoint.test event and its one delivery, to this
// endpoint, due now (testWebhookEndpoint). A disabled endpoint is refused.
func (t Tenant) TestWebhookEndpoint(ctx context.Context, id uuid.UUID) (StoredEvent, error) {
	var ev StoredEvent
	err := t.s.InTx(ctx, func(tx *Tx) error {
		var err error
		ev, err = tx.emitToTestableEndpoint(ctx, events.Draft{
			APIClientID: t.clientID, Type: events.WebhookEndpointTest,
			Data: webhook.TestData{WebhookEndpointID: id, Message: "A test event sent on request to check this endpoint's receiver."},
		}, id)
		return err
	})
	return ev, err
}

// emitToTestableEndpoint emits d with its one delivery to endpoint, which must be one of
// d's client (ErrNotFound otherwise) and testable (webhook.CheckTestable, refused on
// endpoint_id).
func (tx *Tx) emitToTestableEndpoint(ctx context.Context, d events.Draft, endpoint uuid.UUID) (StoredEvent, error) {
	r, err := tx.q.WebhookEndpointGet(ctx, db.WebhookEndpointGetParams{APIClientID: d.APIClientID, ID: endpoint})
	if err != nil {
		return StoredEvent{}, interpretError(err)
	}
	if err := webhook.CheckTestable(r.Status); err != nil {
		return StoredEvent{}, domain.OnField("endpoint_id", err)
	}
	return tx.emitToEndpoint(ctx, d, endpoint)
}

// emitToEndpoint emits d with its one delivery, to endpoint, due now: the fan-out
// never routes it (a webhook_endpoint.test event, or one with EndpointID set).
func (tx *Tx) emitToEndpoint(ctx context.Context, d events.Draft, endpoint uuid.UUID) (StoredEvent, error) {
	ev, err := tx.emitStored(ctx, d)
	if err != nil {
		return StoredEvent{}, err
	}
	if _, err := tx.q.DeliveryInsertOne(ctx, db.DeliveryInsertOneParams{
		ID: tx.s.NewID(), EventID: ev.ID, EndpointID: endpoint, APIClientID: d.APIClientID, Now: &ev.CreatedAt,
	}); err != nil {
		return StoredEvent{}, interpretError(err)
	}
	return ev, nil
}

// emitStored emits d and returns it as it is stored.
func (tx *Tx) emitStored(ctx context.Context, d events.Draft) (StoredEvent, error) {
	env, err := tx.Emit(ctx, d)
	if err != nil {
		return StoredEvent{}, err
	}
	id, err := events.ParseID(env.ID)
	if err != nil {
		return StoredEvent{}, err
	}
	body, err := json.Marshal(env)
	return StoredEvent{ID: id, CreatedAt: env.CreatedAt, Envelope: body}, err
}
