// Package webhook holds a client's webhook endpoints: the Endpoint and its Change, the
// data of the webhook_endpoint.test event, their statuses, the limit of active ones
// (createWebhookEndpoint, updateWebhookEndpoint) and the refusal to test a disabled one
// (testWebhookEndpoint). pkg/store reads and writes them.
package webhook

import (
	"errors"
	"fmt"
)

// The statuses of the spec's WebhookEndpoint.status.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
)

// MaxActiveEndpoints is the limit of active endpoints per API client.
const MaxActiveEndpoints = 20

// Refusals of endpoint writes.
var (
	ErrTooManyActive = fmt.Errorf("at most %d webhook endpoints can be active; disable or delete one first", MaxActiveEndpoints)
	ErrTestDisabled  = errors.New("the endpoint is disabled: enable it to send it a test event")
)

// Activates reports whether moving an endpoint from status from to status to makes one
// more endpoint active, so the limit must have room for it.
func Activates(from, to string) bool {
	return to == StatusActive && from != StatusActive
}

// CheckRoom refuses one more active endpoint when the client already has active ones at
// the limit.
func CheckRoom(active int64) error {
	if active >= MaxActiveEndpoints {
		return ErrTooManyActive
	}
	return nil
}

// CheckTestable refuses a test event to an endpoint that is not active.
func CheckTestable(status string) error {
	if status != StatusActive {
		return ErrTestDisabled
	}
	return nil
}
