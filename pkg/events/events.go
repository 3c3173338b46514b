// Package events defines the event envelope (the spec's Event schema) and the event types
// (EventType). Events are written to the event log by store.Tx.Emit, in the transaction
// of the state change they announce, and delivered by the dispatcher.
package events

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Type is an event type. The set is open: new types appear over time.
type Type string

// The event types (EventType).
const (
	FileReady           Type = "file.ready"
	FileFailed          Type = "file.failed"
	EvaluationStarted   Type = "evaluation.started"
	EvaluationProgress  Type = "evaluation.progress"
	EvaluationCompleted Type = "evaluation.completed"
	EvaluationFailed    Type = "evaluation.failed"
	EvaluationCanceled  Type = "evaluation.canceled"
	DocumentSlotUpdated Type = "document_slot.updated"
	// WebhookEndpointTest is sent on request to one endpoint (testWebhookEndpoint); the
	// fan-out never routes it.
	WebhookEndpointTest Type = "webhook_endpoint.test"
)

// IDPrefix starts every public event id.
const IDPrefix = "evt_"

var idPattern = regexp.MustCompile(`^evt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// FormatID renders the public id: "evt_" followed by the lowercase UUID.
func FormatID(id uuid.UUID) string { return IDPrefix + strings.ToLower(id.String()) }

// ParseID reads a public event id; it accepts exactly the pattern of EventId.
func ParseID(s string) (uuid.UUID, error) {
	if !idPattern.MatchString(s) {
		return uuid.Nil, fmt.Errorf("event id %q does not match %s", s, idPattern)
	}
	return uuid.Parse(strings.TrimPrefix(s, IDPrefix))
}

// Envelope is the event as listed, read and delivered (Event). Field order here
// is the order of the serialized bytes, which are stored once and never re-serialized.
type Envelope struct {
	ID          string          `json:"id"`
	Type        Type            `json:"type"`
	CreatedAt   time.Time       `json:"created_at"`
	APIClientID uuid.UUID       `json:"api_client_id"`
	Data        json.RawMessage `json:"data"`
	// Triggered marks an event emitted by triggerEvent, whose data is the spec's example
	// for its type (Event.triggered); absent from real events, so their bytes are as
	// they were.
	Triggered bool `json:"triggered,omitempty"`
}

// Draft is what a state change emits; the store gives it an id and a time.
type Draft struct {
	APIClientID  uuid.UUID
	Type         Type
	SubmissionID *uuid.UUID // for the submission_id filter of GET /v1/events
	Data         any        // marshaled to JSON as the envelope's data
	// Triggered and EndpointID are set by triggerEvent only: the envelope says it is a
	// sample (Event.triggered), and an event for one endpoint is left out of the fan-out.
	Triggered  bool
	EndpointID *uuid.UUID
}
