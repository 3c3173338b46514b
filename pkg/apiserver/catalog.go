package apiserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// defaultCategory is the category of a custom entry created without one.
const defaultCategory = "other"

// catalogError names the request field a refusal of a catalog or template write is
// about: builtin or archived targets refuse the path id, bad items the item's indexed
// field (items[2].check_id). apierr.FromDomain chooses the status (422, or 409 for a
// stale revision).
func catalogError(err error, idParam, itemsParam string) error {
	var itemErr *catalog.ItemError
	switch {
	case errors.Is(err, catalog.ErrReadOnly), errors.Is(err, catalog.ErrArchived):
		return domain.OnField(idParam, err)
	case errors.As(err, &itemErr):
		prefix := itemsParam
		if prefix == "" {
			prefix = bundleField[itemErr.Kind]
		}
		return domain.Fieldf(fmt.Sprintf("%s[%d].%s", prefix, itemErr.Index, refField[itemErr.Kind]), "%s", itemErr.Reason)
	}
	return err
}

// bundleField and refField name a kind's list in POST /v1/templates and its reference.
var (
	bundleField = map[catalog.ItemKind]string{catalog.KindDocumentRequirement: "document_requirements", catalog.KindCheck: "check_items", catalog.KindDataField: "data_field_items"}
	refField    = map[catalog.ItemKind]string{catalog.KindDocumentRequirement: "document_type_id", catalog.KindCheck: "check_id", catalog.KindDataField: "data_field_id"}
)

// listEntries is the list operation shared by the three families.
func listEntries[T any](ctx context.Context, s *Server, family catalog.Family, limitParam *int, cursor *string, toAPI func(catalog.Entry) T) ([]T, *string, error) {
	t, limit, after, err := s.listStart(ctx, limitParam, cursor)
	if err != nil {
		return nil, nil, err
	}
	rows, err := t.CatalogEntries(ctx, family, after, limit)
	if err != nil {
		return nil, nil, err
	}
	rows, next := page.Trim(rows, limit, store.CatalogEntryCursor)
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = toAPI(r)
	}
	return out, next, nil
}

func (s *Server) getEntry(ctx context.Context, family catalog.Family, ref string) (catalog.Entry, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return catalog.Entry{}, err
	}
	return t.CatalogEntry(ctx, family, ref)
}

func (s *Server) createEntry(ctx context.Context, family catalog.Family, c catalog.Content) (catalog.Entry, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return catalog.Entry{}, err
	}
	return t.CreateCatalogEntry(ctx, family, c)
}

func (s *Server) updateEntry(ctx context.Context, family catalog.Family, ref, idParam string, edit func(*catalog.Content)) (catalog.Entry, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return catalog.Entry{}, err
	}
	e, err := t.UpdateCatalogEntry(ctx, family, ref, edit)
	return e, catalogError(err, idParam, "")
}

func (s *Server) archiveEntry(ctx context.Context, family catalog.Family, ref, idParam string) error {
	t, err := s.tenant(ctx)
	if err != nil {
		return err
	}
	return catalogError(t.ArchiveCatalogEntry(ctx, family, ref), idParam, "")
}

func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

func strs[T ~string](in []T) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

func enums[T ~string](in []string) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = T(v)
	}
	return out
}

func strOr[T ~string](p *T, def string) string {
	if p == nil {
		return def
	}
	return string(*p)
}

// ---- checks

func checkToAPI(e catalog.Entry) api.Check {
	return api.Check{
		Id: e.PublicID(), Key: e.Key, Builtin: e.Builtin(), Title: e.Name, Description: e.Description,
		Prompt: e.Prompt, Category: api.CheckCategory(e.Category), ProductTypes: enums[api.ProductType](e.ProductTypes),
		Archived: e.Archived, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
}

// ListChecks lists builtin and custom checks (listChecks).
func (s *Server) ListChecks(ctx context.Context, req api.ListChecksRequestObject) (api.ListChecksResponseObject, error) {
	data, next, err := listEntries(ctx, s, catalog.FamilyCheck, (*int)(req.Params.Limit), (*string)(req.Params.Cursor), checkToAPI)
	if err != nil {
		return nil, err
	}
	return api.ListChecks200JSONResponse{Body: api.CheckList{Data: data, NextCursor: next}}, nil
}

// CreateCheck creates a custom check.
func (s *Server) CreateCheck(ctx context.Context, req api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error) {
	b := req.Body
	c := catalog.Content{Name: b.Title, Prompt: &b.Prompt, Category: strOr(b.Category, defaultCategory), ProductTypes: []string{}}
	set(&c.Description, b.Description)
	if b.ProductTypes != nil {
		c.ProductTypes = strs(*b.ProductTypes)
	}
	e, err := s.createEntry(ctx, catalog.FamilyCheck, c)
	if err != nil {
		return nil, err
	}
	return api.CreateCheck201JSONResponse{Body: checkToAPI(e)}, nil
}

// GetCheck reads a check by builtin key or UUID.
func (s *Server) GetCheck(ctx context.Context, req api.GetCheckRequestObject) (api.GetCheckResponseObject, error) {
	e, err := s.getEntry(ctx, catalog.FamilyCheck, req.CheckId)
	if err != nil {
		return nil, err
	}
	return api.GetCheck200JSONResponse{Body: checkToAPI(e)}, nil
}

// UpdateCheck edits a custom check; omitted fields stay unchanged.
func (s *Server) UpdateCheck(ctx context.Context, req api.UpdateCheckRequestObject) (api.UpdateCheckResponseObject, error) {
	b := req.Body
	e, err := s.updateEntry(ctx, catalog.FamilyCheck, req.CheckId, "check_id", func(c *catalog.Content) {
		set(&c.Name, b.Title)
		set(&c.Description, b.Description)
		if b.Prompt != nil {
			c.Prompt = b.Prompt
		}
		if b.Category != nil {
			c.Category = string(*b.Category)
		}
		if b.ProductTypes != nil {
			c.ProductTypes = strs(*b.ProductTypes)
		}
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateCheck200JSONResponse{Body: checkToAPI(e)}, nil
}

// DeleteCheck archives a custom check.
func (s *Server) DeleteCheck(ctx context.Context, req api.DeleteCheckRequestObject) (api.DeleteCheckResponseObject, error) {
	if err := s.archiveEntry(ctx, catalog.FamilyCheck, req.CheckId, "check_id"); err != nil {
		return nil, err
	}
	return api.DeleteCheck204Response{}, nil
}

// ---- data fields

func dataFieldToAPI(e catalog.Entry) api.DataField {
	return api.DataField{
		Id: e.PublicID(), Key: e.Key, Builtin: e.Builtin(), DisplayName: e.Name, Prompt: e.Prompt,
		Category: api.DataFieldCategory(e.Category), ValueFormat: (*api.ValueFormat)(e.ValueFormat),
		Archived: e.Archived, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
}

// ListDataFields lists builtin and custom data fields.
func (s *Server) ListDataFields(ctx context.Context, req api.ListDataFieldsRequestObject) (api.ListDataFieldsResponseObject, error) {
	data, next, err := listEntries(ctx, s, catalog.FamilyDataField, (*int)(req.Params.Limit), (*string)(req.Params.Cursor), dataFieldToAPI)
	if err != nil {
		return nil, err
	}
	return api.ListDataFields200JSONResponse{Body: api.DataFieldList{Data: data, NextCursor: next}}, nil
}

// CreateDataField creates a custom data field.
func (s *Server) CreateDataField(ctx context.Context, req api.CreateDataFieldRequestObject) (api.CreateDataFieldResponseObject, error) {
	b := req.Body
	c := catalog.Content{Name: b.DisplayName, Prompt: &b.Prompt, Category: strOr(b.Category, defaultCategory), ProductTypes: []string{}}
	if b.ValueFormat != nil {
		c.ValueFormat = new(string(*b.ValueFormat))
	}
	e, err := s.createEntry(ctx, catalog.FamilyDataField, c)
	if err != nil {
		return nil, err
	}
	return api.CreateDataField201JSONResponse{Body: dataFieldToAPI(e)}, nil
}

// GetDataField reads a data field by builtin key or UUID.
func (s *Server) GetDataField(ctx context.Context, req api.GetDataFieldRequestObject) (api.GetDataFieldResponseObject, error) {
	e, err := s.getEntry(ctx, catalog.FamilyDataField, req.DataFieldId)
	if err != nil {
		return nil, err
	}
	return api.GetDataField200JSONResponse{Body: dataFieldToAPI(e)}, nil
}

// UpdateDataField edits a custom data field; value_format null resets it to free text.
func (s *Server) UpdateDataField(ctx context.Context, req api.UpdateDataFieldRequestObject) (api.UpdateDataFieldResponseObject, error) {
	b := req.Body
	e, err := s.updateEntry(ctx, catalog.FamilyDataField, req.DataFieldId, "data_field_id", func(c *catalog.Content) {
		set(&c.Name, b.DisplayName)
		if b.Prompt != nil {
			c.Prompt = b.Prompt
		}
		if b.Category != nil {
			c.Category = string(*b.Category)
		}
		switch {
		case b.ValueFormat.IsNull():
			c.ValueFormat = nil
		case b.ValueFormat.IsSpecified():
			c.ValueFormat = new(string(b.ValueFormat.MustGet()))
		}
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateDataField200JSONResponse{Body: dataFieldToAPI(e)}, nil
}

// DeleteDataField archives a custom data field.
func (s *Server) DeleteDataField(ctx context.Context, req api.DeleteDataFieldRequestObject) (api.DeleteDataFieldResponseObject, error) {
	if err := s.archiveEntry(ctx, catalog.FamilyDataField, req.DataFieldId, "data_field_id"); err != nil {
		return nil, err
	}
	return api.DeleteDataField204Response{}, nil
}

// ---- document types

func documentTypeToAPI(e catalog.Entry) api.DocumentType {
	return api.DocumentType{
		Id: e.PublicID(), Key: e.Key, Builtin: e.Builtin(), DisplayName: e.Name, Description: e.Description,
		Category: api.DocumentTypeCategory(e.Category), Archived: e.Archived, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
}

// ListDocumentTypes lists builtin and custom document types.
func (s *Server) ListDocumentTypes(ctx context.Context, req api.ListDocumentTypesRequestObject) (api.ListDocumentTypesResponseObject, error) {
	data, next, err := listEntries(ctx, s, catalog.FamilyDocumentType, (*int)(req.Params.Limit), (*string)(req.Params.Cursor), documentTypeToAPI)
	if err != nil {
		return nil, err
	}
	return api.ListDocumentTypes200JSONResponse{Body: api.DocumentTypeList{Data: data, NextCursor: next}}, nil
}

// CreateDocumentType creates a custom document type.
func (s *Server) CreateDocumentType(ctx context.Context, req api.CreateDocumentTypeRequestObject) (api.CreateDocumentTypeResponseObject, error) {
	b := req.Body
	c := catalog.Content{Name: b.DisplayName, Category: strOr(b.Category, defaultCategory), ProductTypes: []string{}}
	set(&c.Description, b.Description)
	e, err := s.createEntry(ctx, catalog.FamilyDocumentType, c)
	if err != nil {
		return nil, err
	}
	return api.CreateDocumentType201JSONResponse{Body: documentTypeToAPI(e)}, nil
}

// GetDocumentType reads a document type by builtin key or UUID.
func (s *Server) GetDocumentType(ctx context.Context, req api.GetDocumentTypeRequestObject) (api.GetDocumentTypeResponseObject, error) {
	e, err := s.getEntry(ctx, catalog.FamilyDocumentType, req.DocumentTypeId)
	if err != nil {
		return nil, err
	}
	return api.GetDocumentType200JSONResponse{Body: documentTypeToAPI(e)}, nil
}

// UpdateDocumentType edits a custom document type.
func (s *Server) UpdateDocumentType(ctx context.Context, req api.UpdateDocumentTypeRequestObject) (api.UpdateDocumentTypeResponseObject, error) {
	b := req.Body
	e, err := s.updateEntry(ctx, catalog.FamilyDocumentType, req.DocumentTypeId, "document_type_id", func(c *catalog.Content) {
		set(&c.Name, b.DisplayName)
		set(&c.Description, b.Description)
		if b.Category != nil {
			c.Category = string(*b.Category)
		}
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateDocumentType200JSONResponse{Body: documentTypeToAPI(e)}, nil
}

// DeleteDocumentType archives a custom document type.
func (s *Server) DeleteDocumentType(ctx context.Context, req api.DeleteDocumentTypeRequestObject) (api.DeleteDocumentTypeResponseObject, error) {
	if err := s.archiveEntry(ctx, catalog.FamilyDocumentType, req.DocumentTypeId, "document_type_id"); err != nil {
		return nil, err
	}
	return api.DeleteDocumentType204Response{}, nil
}
