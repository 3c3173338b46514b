package sdk

import (
	"context"
	"iter"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// The iterators below walk every page of a list endpoint:
//
//	for sub, err := range c.ListSubmissions(ctx, &client.ListSubmissionsParams{Status: &status}) {
//		if err != nil {
//			return err
//		}
//		...
//	}
//
// params may be nil. Its Limit sets the page size; its Cursor, when set, is where the
// walk starts. Filters are passed through unchanged. Deliveries have no list endpoint:
// they come with GetEvent through API().

// ListTemplates yields builtin and custom templates.
func (c *Client) ListTemplates(ctx context.Context, params *client.ListTemplatesParams) iter.Seq2[*client.Template, error] {
	base := valueOrZero(params)
	return paginate[client.Template](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListTemplates(ctx, &p)
	})
}

// ListChecks yields builtin and custom checks.
func (c *Client) ListChecks(ctx context.Context, params *client.ListChecksParams) iter.Seq2[*client.Check, error] {
	base := valueOrZero(params)
	return paginate[client.Check](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListChecks(ctx, &p)
	})
}

// ListDataFields yields builtin and custom data fields.
func (c *Client) ListDataFields(ctx context.Context, params *client.ListDataFieldsParams) iter.Seq2[*client.DataField, error] {
	base := valueOrZero(params)
	return paginate[client.DataField](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListDataFields(ctx, &p)
	})
}

// ListDocumentTypes yields builtin and custom document types.
func (c *Client) ListDocumentTypes(ctx context.Context, params *client.ListDocumentTypesParams) iter.Seq2[*client.DocumentType, error] {
	base := valueOrZero(params)
	return paginate[client.DocumentType](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListDocumentTypes(ctx, &p)
	})
}

// ListSubmissions yields submissions, newest first, filtered by params.
func (c *Client) ListSubmissions(ctx context.Context, params *client.ListSubmissionsParams) iter.Seq2[*client.SubmissionSummary, error] {
	base := valueOrZero(params)
	return paginate[client.SubmissionSummary](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListSubmissions(ctx, &p)
	})
}

// ListUploads yields a submission's uploads, newest first, slot-assigned and unassigned.
func (c *Client) ListUploads(ctx context.Context, submissionID uuid.UUID, params *client.ListUploadsParams) iter.Seq2[*client.Upload, error] {
	base := valueOrZero(params)
	return paginate[client.Upload](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListUploads(ctx, submissionID, &p)
	})
}

// ListEvents yields events, newest first, filtered by params. Event types this SDK does
// not know are yielded like the others.
func (c *Client) ListEvents(ctx context.Context, params *client.ListEventsParams) iter.Seq2[*client.Event, error] {
	base := valueOrZero(params)
	return paginate[client.Event](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListEvents(ctx, &p)
	})
}

// ListWebhookEndpoints yields the client's webhook endpoints (without secrets).
func (c *Client) ListWebhookEndpoints(ctx context.Context, params *client.ListWebhookEndpointsParams) iter.Seq2[*client.WebhookEndpoint, error] {
	base := valueOrZero(params)
	return paginate[client.WebhookEndpoint](ctx, base.Cursor, func(ctx context.Context, cursor *string) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListWebhookEndpoints(ctx, &p)
	})
}

// valueOrZero copies the caller's params: walking pages never writes into them, and
// ranging over the same sequence twice starts from the same place.
func valueOrZero[P any](params *P) P {
	if params == nil {
		var zero P
		return zero
	}
	return *params
}
