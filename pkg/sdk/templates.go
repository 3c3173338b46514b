package sdk

import (
	"context"
	"net/http"

	"github.com/doceval/doceval/gen/client"
)

// The template writes below that take an expected_revision (UpdateTemplate and the
// three Replace… calls) answer 409 revision_mismatch when the template changed since
// it was read: read it again, reapply the change and retry. They are retried
// automatically like every write; when an attempt's answer was lost, the retry can meet
// the revision that attempt wrote and report revision_mismatch although the change was
// made, so read the template again to find out.

// CreateTemplate (createTemplate) creates a custom template with an optional bundle of
// document requirements, check items and data-field items.
func (c *Client) CreateTemplate(ctx context.Context, req client.CreateTemplateRequest, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateTemplate(ctx, nil, req, editors...)
	})
}

// GetTemplate (getTemplate) returns the template with its items; templateID is a
// builtin key such as "personal_loan" or a custom template's UUID or key. Archived
// templates stay readable.
func (c *Client) GetTemplate(ctx context.Context, templateID string, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetTemplate(ctx, templateID, editors...)
	})
}

// UpdateTemplate (updateTemplate) changes display_name and/or is_default of a custom
// template at req.ExpectedRevision. Builtin and archived templates answer 422
// invalid_field (param template_id).
func (c *Client) UpdateTemplate(ctx context.Context, templateID string, req client.UpdateTemplateRequest, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateTemplate(ctx, templateID, req, editors...)
	})
}

// DeleteTemplate (deleteTemplate) archives a custom template; archiving an archived one
// again is a no-op.
func (c *Client) DeleteTemplate(ctx context.Context, templateID string, opts ...RequestOption) error {
	return sendDelete(ctx, opts, nil, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteTemplate(ctx, templateID, editors...)
	})
}

// DuplicateTemplate (duplicateTemplate) makes a custom copy of a builtin or custom
// template, the way to customize a builtin one. req may be the zero value: the copy
// keeps the source's display_name.
func (c *Client) DuplicateTemplate(ctx context.Context, templateID string, req client.DuplicateTemplateRequest, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DuplicateTemplate(ctx, templateID, nil, req, editors...)
	})
}

// ReplaceTemplateDocumentRequirements (replaceTemplateDocumentRequirements) replaces the
// custom template's document requirements at req.ExpectedRevision.
func (c *Client) ReplaceTemplateDocumentRequirements(ctx context.Context, templateID string, req client.ReplaceTemplateDocumentRequirementsRequest, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.ReplaceTemplateDocumentRequirements(ctx, templateID, req, editors...)
	})
}

// ReplaceTemplateCheckItems (replaceTemplateCheckItems) replaces the custom template's
// check items at req.ExpectedRevision.
func (c *Client) ReplaceTemplateCheckItems(ctx context.Context, templateID string, req client.ReplaceTemplateCheckItemsRequest, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.ReplaceTemplateCheckItems(ctx, templateID, req, editors...)
	})
}

// ReplaceTemplateDataFieldItems (replaceTemplateDataFieldItems) replaces the custom
// template's data-field items at req.ExpectedRevision.
func (c *Client) ReplaceTemplateDataFieldItems(ctx context.Context, templateID string, req client.ReplaceTemplateDataFieldItemsRequest, opts ...RequestOption) (*client.TemplateDetail, error) {
	return send[client.TemplateDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.ReplaceTemplateDataFieldItems(ctx, templateID, req, editors...)
	})
}
