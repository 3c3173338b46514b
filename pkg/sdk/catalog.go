package sdk

import (
	"context"
	"net/http"

	"github.com/doceval/doceval/gen/client"
)

// The catalog: checks, data fields and document types. Ids are builtin keys (such as
// "id_card") or custom UUIDs, and a custom entry's key works too. Builtin and archived
// entries answer updates with 422 invalid_field; deleting archives a custom entry, and
// archiving an archived one again is a no-op. Edits are versioned by the service and
// affect future submissions only.

// CreateCheck (createCheck) creates a custom check.
func (c *Client) CreateCheck(ctx context.Context, req client.CreateCheckRequest, opts ...RequestOption) (*client.Check, error) {
	return send[client.Check](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateCheck(ctx, nil, req, editors...)
	})
}

// GetCheck (getCheck) returns one check.
func (c *Client) GetCheck(ctx context.Context, checkID string, opts ...RequestOption) (*client.Check, error) {
	return send[client.Check](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetCheck(ctx, checkID, editors...)
	})
}

// UpdateCheck (updateCheck) changes the fields set in req; the others stay.
func (c *Client) UpdateCheck(ctx context.Context, checkID string, req client.UpdateCheckRequest, opts ...RequestOption) (*client.Check, error) {
	return send[client.Check](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateCheck(ctx, checkID, req, editors...)
	})
}

// DeleteCheck (deleteCheck) archives a custom check.
func (c *Client) DeleteCheck(ctx context.Context, checkID string, opts ...RequestOption) error {
	return sendDelete(ctx, opts, nil, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteCheck(ctx, checkID, editors...)
	})
}

// CreateDataField (createDataField) creates a custom data field.
func (c *Client) CreateDataField(ctx context.Context, req client.CreateDataFieldRequest, opts ...RequestOption) (*client.DataField, error) {
	return send[client.DataField](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateDataField(ctx, nil, req, editors...)
	})
}

// GetDataField (getDataField) returns one data field.
func (c *Client) GetDataField(ctx context.Context, dataFieldID string, opts ...RequestOption) (*client.DataField, error) {
	return send[client.DataField](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetDataField(ctx, dataFieldID, editors...)
	})
}

// UpdateDataField (updateDataField) changes the fields set in req; the others stay. A
// null value_format resets it to free text.
func (c *Client) UpdateDataField(ctx context.Context, dataFieldID string, req client.UpdateDataFieldRequest, opts ...RequestOption) (*client.DataField, error) {
	return send[client.DataField](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateDataField(ctx, dataFieldID, req, editors...)
	})
}

// DeleteDataField (deleteDataField) archives a custom data field.
func (c *Client) DeleteDataField(ctx context.Context, dataFieldID string, opts ...RequestOption) error {
	return sendDelete(ctx, opts, nil, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteDataField(ctx, dataFieldID, editors...)
	})
}

// CreateDocumentType (createDocumentType) creates a custom document type.
func (c *Client) CreateDocumentType(ctx context.Context, req client.CreateDocumentTypeRequest, opts ...RequestOption) (*client.DocumentType, error) {
	return send[client.DocumentType](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateDocumentType(ctx, nil, req, editors...)
	})
}

// GetDocumentType (getDocumentType) returns one document type.
func (c *Client) GetDocumentType(ctx context.Context, documentTypeID string, opts ...RequestOption) (*client.DocumentType, error) {
	return send[client.DocumentType](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetDocumentType(ctx, documentTypeID, editors...)
	})
}

// UpdateDocumentType (updateDocumentType) changes the fields set in req; the others
// stay.
func (c *Client) UpdateDocumentType(ctx context.Context, documentTypeID string, req client.UpdateDocumentTypeRequest, opts ...RequestOption) (*client.DocumentType, error) {
	return send[client.DocumentType](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateDocumentType(ctx, documentTypeID, req, editors...)
	})
}

// DeleteDocumentType (deleteDocumentType) archives a custom document type.
func (c *Client) DeleteDocumentType(ctx context.Context, documentTypeID string, opts ...RequestOption) error {
	return sendDelete(ctx, opts, nil, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteDocumentType(ctx, documentTypeID, editors...)
	})
}
