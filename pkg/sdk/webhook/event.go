package webhook

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// Event is the envelope of a delivery (identical to an item of GET /v1/events). Data is
// kept as raw JSON: decode it with the typed accessors for the types this version
// knows, or by yourself for the others.
type Event struct {
	ID          string           `json:"id"`
	Type        client.EventType `json:"type"`
	CreatedAt   time.Time        `json:"created_at"`
	APIClientID uuid.UUID        `json:"api_client_id"`
	Data        json.RawMessage  `json:"data"`
	// Triggered is true on a sample event sent by triggerEvent (`doceval trigger`): its
	// data is the API's example for the type and names nothing real, so acknowledge it
	// without acting on it.
	Triggered bool `json:"triggered,omitempty"`
}

// ParseEvent decodes an envelope. Only a missing id or type is an error; an unknown
// type is fine.
func ParseEvent(body []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return Event{}, fmt.Errorf("webhook: decode event: %w", err)
	}
	if e.ID == "" || e.Type == "" {
		return Event{}, fmt.Errorf("webhook: event without id or type")
	}
	return e, nil
}

// Evaluation decodes data.evaluation of the evaluation.* events.
func (e Event) Evaluation() (*client.Evaluation, error) {
	var d client.EvaluationEventData
	if err := e.decode(&d, client.EventTypeEvaluationStarted, client.EventTypeEvaluationProgress,
		client.EventTypeEvaluationCompleted, client.EventTypeEvaluationFailed, client.EventTypeEvaluationCanceled); err != nil {
		return nil, err
	}
	return &d.Evaluation, nil
}

// Upload decodes data.upload of file.ready and file.failed.
func (e Event) Upload() (*client.Upload, error) {
	var d client.FileEventData
	if err := e.decode(&d, client.EventTypeFileReady, client.EventTypeFileFailed); err != nil {
		return nil, err
	}
	return &d.Upload, nil
}

// DocumentSlotUpdated decodes data of document_slot.updated.
func (e Event) DocumentSlotUpdated() (*client.DocumentSlotUpdatedEventData, error) {
	var d client.DocumentSlotUpdatedEventData
	if err := e.decode(&d, client.EventTypeDocumentSlotUpdated); err != nil {
		return nil, err
	}
	return &d, nil
}

func (e Event) decode(into any, types ...client.EventType) error {
	for _, t := range types {
		if e.Type == t {
			if err := json.Unmarshal(e.Data, into); err != nil {
				return fmt.Errorf("webhook: decode %s data: %w", e.Type, err)
			}
			return nil
		}
	}
	return fmt.Errorf("webhook: event type %s does not carry this data", e.Type)
}
