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
// walk starts. Filters are passed through unchanged; opts apply to every page's request.
// Deliveries have no list endpoint: they come with GetEvent. The event feed
// (listEventFeed) is read forward with ListEventFeed instead.

// ListTemplates yields builtin and custom templates.
func (c *Client) ListTemplates(ctx context.Context, params *client.ListTemplatesParams, opts ...RequestOption) iter.Seq2[*client.Template, error] {
	base := valueOrZero(params)
	return paginate[client.Template](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListTemplates(ctx, &p, editors...)
	})
}

// ListChecks yields builtin and custom checks.
func (c *Client) ListChecks(ctx context.Context, params *client.ListChecksParams, opts ...RequestOption) iter.Seq2[*client.Check, error] {
	base := valueOrZero(params)
	return paginate[client.Check](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListChecks(ctx, &p, editors...)
	})
}

// ListDataFields yields builtin and custom data fields.
func (c *Client) ListDataFields(ctx context.Context, params *client.ListDataFieldsParams, opts ...RequestOption) iter.Seq2[*client.DataField, error] {
	base := valueOrZero(params)
	return paginate[client.DataField](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListDataFields(ctx, &p, editors...)
	})
}

// ListDocumentTypes yields builtin and custom document types.
func (c *Client) ListDocumentTypes(ctx context.Context, params *client.ListDocumentTypesParams, opts ...RequestOption) iter.Seq2[*client.DocumentType, error] {
	base := valueOrZero(params)
	return paginate[client.DocumentType](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListDocumentTypes(ctx, &p, editors...)
	})
}

// ListSubmissions yields submissions, newest first, filtered by params.
func (c *Client) ListSubmissions(ctx context.Context, params *client.ListSubmissionsParams, opts ...RequestOption) iter.Seq2[*client.SubmissionSummary, error] {
	base := valueOrZero(params)
	return paginate[client.SubmissionSummary](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListSubmissions(ctx, &p, editors...)
	})
}

// ListUploads yields a submission's uploads, newest first, slot-assigned and unassigned.
func (c *Client) ListUploads(ctx context.Context, submissionID uuid.UUID, params *client.ListUploadsParams, opts ...RequestOption) iter.Seq2[*client.Upload, error] {
	base := valueOrZero(params)
	return paginate[client.Upload](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListUploads(ctx, submissionID, &p, editors...)
	})
}

// ListEvents yields events, newest first, filtered by params. Event types this SDK does
// not know are yielded like the others.
func (c *Client) ListEvents(ctx context.Context, params *client.ListEventsParams, opts ...RequestOption) iter.Seq2[*client.Event, error] {
	base := valueOrZero(params)
	return paginate[client.Event](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListEvents(ctx, &p, editors...)
	})
}

// ListWebhookEndpoints yields the client's webhook endpoints (without secrets).
func (c *Client) ListWebhookEndpoints(ctx context.Context, params *client.ListWebhookEndpointsParams, opts ...RequestOption) iter.Seq2[*client.WebhookEndpoint, error] {
	base := valueOrZero(params)
	return paginate[client.WebhookEndpoint](ctx, base.Cursor, opts, func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error) {
		p := base
		p.Cursor = cursor
		return c.api.ListWebhookEndpoints(ctx, &p, editors...)
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
