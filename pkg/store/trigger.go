package store

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/events"
)

// TriggerEvent emits a sample event of typ with data, marked triggered (triggerEvent).
// Without endpoint it is fanned out like a real event of its type; with it, it goes to
// that active endpoint only, whatever its events filter, its delivery made here. An
// endpoint of another client, deleted or unknown, or disabled, is refused on
// endpoint_id.
func (t Tenant) TriggerEvent(ctx context.Context, typ events.Type, data json.RawMessage, endpoint *uuid.UUID) (StoredEvent, error) {
	d := events.Draft{APIClientID: t.clientID, Type: typ, Data: data, Triggered: true, EndpointID: endpoint}
	var ev StoredEvent
	err := t.s.InTx(ctx, func(tx *Tx) error {
		var err error
		if endpoint == nil {
			ev, err = tx.emitStored(ctx, d)
			return err
		}
		ev, err = tx.emitToTestableEndpoint(ctx, d, *endpoint)
		if errors.Is(err, ErrNotFound) { // the body names it: a field error, not 404
			return domain.Fieldf("endpoint_id", "there is no webhook endpoint %s", *endpoint)
		}
		return err
	})
	return ev, err
}
