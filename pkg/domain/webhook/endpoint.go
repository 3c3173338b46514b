package webhook

import (
	"time"

	"github.com/google/uuid"
)

// Endpoint is a client's webhook endpoint (the spec's WebhookEndpoint); its signing
// secrets stay sealed: only the dispatcher and the rotation open them.
type Endpoint struct {
	ID                      uuid.UUID
	ClientID                uuid.UUID
	URL                     string
	Description             string
	Events                  []string // nil: every current and future type
	Status                  string
	SealedSecret            []byte
	SealedPrevious          []byte
	PreviousSecretExpiresAt *time.Time
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// Change is an update of an endpoint (updateWebhookEndpoint): nil fields stay;
// SetEvents with Events nil means all types. The secret never changes this way.
type Change struct {
	URL         *string
	Description *string
	SetEvents   bool
	Events      []string
	Status      *string
}

// TestData is the data of a webhook_endpoint.test event (testWebhookEndpoint).
type TestData struct {
	WebhookEndpointID uuid.UUID `json:"webhook_endpoint_id"`
	Message           string    `json:"message"`
}
