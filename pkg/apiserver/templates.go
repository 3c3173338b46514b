package apiserver

import (
	"context"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

func templateToAPI(t catalog.Template) api.Template {
	return api.Template{
		Id: t.PublicID(), Key: t.Key, Builtin: t.Builtin(), DisplayName: t.DisplayName, IsDefault: t.IsDefault,
		Revision: t.Revision, Archived: t.Archived, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

func templateDetailToAPI(d catalog.TemplateDetail) api.TemplateDetail {
	out := api.TemplateDetail{
		Id: d.PublicID(), Key: d.Key, Builtin: d.Builtin(), DisplayName: d.DisplayName, IsDefault: d.IsDefault,
		Revision: d.Revision, Archived: d.Archived, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		DocumentRequirements: make([]api.DocumentRequirement, len(d.DocumentRequirements)),
		CheckItems:           make([]api.CheckItem, len(d.Checks)),
		DataFieldItems:       make([]api.DataFieldItem, len(d.DataFields)),
	}
	for i, it := range d.DocumentRequirements {
		r := api.DocumentRequirement{
			DocumentTypeId: it.Entry.PublicID(), Key: it.Entry.Key, Label: it.Entry.Name, Description: it.Entry.Description,
			Required: it.Required, AllowMultipleFiles: it.AllowMultipleFiles,
		}
		set(&r.Label, it.Label)
		set(&r.Description, it.Description)
		out.DocumentRequirements[i] = r
	}
	for i, it := range d.Checks {
		out.CheckItems[i] = api.CheckItem{CheckId: it.Entry.PublicID(), Key: it.Entry.Key, Title: it.Entry.Name}
	}
	for i, it := range d.DataFields {
		out.DataFieldItems[i] = api.DataFieldItem{
			DataFieldId: it.Entry.PublicID(), Key: it.Entry.Key, DisplayName: it.Entry.Name,
			Required: it.Required, ConfidenceThreshold: it.ConfidenceThreshold,
		}
	}
	return out
}

func requirementInputs(in []api.DocumentRequirementInput) []catalog.ItemInput {
	out := make([]catalog.ItemInput, len(in))
	for i, r := range in {
		out[i] = catalog.ItemInput{Ref: r.DocumentTypeId, Required: r.Required, AllowMultipleFiles: r.AllowMultipleFiles, Label: r.Label, Description: r.Description}
	}
	return out
}

func checkInputs(in []api.CheckItemInput) []catalog.ItemInput {
	out := make([]catalog.ItemInput, len(in))
	for i, c := range in {
		out[i] = catalog.ItemInput{Ref: c.CheckId}
	}
	return out
}

func dataFieldInputs(in []api.DataFieldItemInput) []catalog.ItemInput {
	out := make([]catalog.ItemInput, len(in))
	for i, f := range in {
		out[i] = catalog.ItemInput{Ref: f.DataFieldId, Required: f.Required, ConfidenceThreshold: f.ConfidenceThreshold}
	}
	return out
}

func orEmpty[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}

// ListTemplates lists builtin and custom templates (listTemplates).
func (s *Server) ListTemplates(ctx context.Context, req api.ListTemplatesRequestObject) (api.ListTemplatesResponseObject, error) {
	t, limit, after, err := s.listStart(ctx, (*int)(req.Params.Limit), (*string)(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	rows, err := t.Templates(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := page.Trim(rows, limit, store.TemplateCursor)
	list := api.TemplateList{Data: make([]api.Template, len(rows)), NextCursor: next}
	for i, r := range rows {
		list.Data[i] = templateToAPI(r)
	}
	return api.ListTemplates200JSONResponse{Body: list}, nil
}

// CreateTemplate creates a custom template with its optional bundle.
func (s *Server) CreateTemplate(ctx context.Context, req api.CreateTemplateRequestObject) (api.CreateTemplateResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	d, err := t.CreateTemplate(ctx, b.DisplayName, catalog.Bundle{
		DocumentRequirements: requirementInputs(orEmpty(b.DocumentRequirements)),
		Checks:               checkInputs(orEmpty(b.CheckItems)),
		DataFields:           dataFieldInputs(orEmpty(b.DataFieldItems)),
	})
	if err != nil {
		return nil, catalogError(err, "template_id", "")
	}
	return api.CreateTemplate201JSONResponse{Body: templateDetailToAPI(d)}, nil
}

// GetTemplate reads a template by builtin key or UUID, with its items in display order.
func (s *Server) GetTemplate(ctx context.Context, req api.GetTemplateRequestObject) (api.GetTemplateResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	d, err := t.Template(ctx, req.TemplateId)
	if err != nil {
		return nil, err
	}
	return api.GetTemplate200JSONResponse{Body: templateDetailToAPI(d)}, nil
}

// UpdateTemplate changes display_name and is_default at the expected revision.
func (s *Server) UpdateTemplate(ctx context.Context, req api.UpdateTemplateRequestObject) (api.UpdateTemplateResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	d, err := t.UpdateTemplate(ctx, req.TemplateId, b.ExpectedRevision, b.DisplayName, b.IsDefault)
	if err != nil {
		return nil, catalogError(err, "template_id", "")
	}
	return api.UpdateTemplate200JSONResponse{Body: templateDetailToAPI(d)}, nil
}

// DeleteTemplate archives a custom template.
func (s *Server) DeleteTemplate(ctx context.Context, req api.DeleteTemplateRequestObject) (api.DeleteTemplateResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.ArchiveTemplate(ctx, req.TemplateId); err != nil {
		return nil, catalogError(err, "template_id", "")
	}
	return api.DeleteTemplate204Response{}, nil
}

// DuplicateTemplate makes a custom copy of a template with its full bundle.
func (s *Server) DuplicateTemplate(ctx context.Context, req api.DuplicateTemplateRequestObject) (api.DuplicateTemplateResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	var name *string
	if req.Body != nil {
		name = req.Body.DisplayName
	}
	d, err := t.DuplicateTemplate(ctx, req.TemplateId, name)
	if err != nil {
		return nil, err
	}
	return api.DuplicateTemplate201JSONResponse{Body: templateDetailToAPI(d)}, nil
}

func (s *Server) replaceItems(ctx context.Context, ref string, kind catalog.ItemKind, expected int, items []catalog.ItemInput) (api.TemplateDetail, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return api.TemplateDetail{}, err
	}
	d, err := t.ReplaceTemplateItems(ctx, ref, kind, expected, items)
	if err != nil {
		return api.TemplateDetail{}, catalogError(err, "template_id", "items")
	}
	return templateDetailToAPI(d), nil
}

// ReplaceTemplateDocumentRequirements replaces the whole requirement list.
func (s *Server) ReplaceTemplateDocumentRequirements(ctx context.Context, req api.ReplaceTemplateDocumentRequirementsRequestObject) (api.ReplaceTemplateDocumentRequirementsResponseObject, error) {
	d, err := s.replaceItems(ctx, req.TemplateId, catalog.KindDocumentRequirement, req.Body.ExpectedRevision, requirementInputs(req.Body.Items))
	if err != nil {
		return nil, err
	}
	return api.ReplaceTemplateDocumentRequirements200JSONResponse{Body: d}, nil
}

// ReplaceTemplateCheckItems replaces the whole check list.
func (s *Server) ReplaceTemplateCheckItems(ctx context.Context, req api.ReplaceTemplateCheckItemsRequestObject) (api.ReplaceTemplateCheckItemsResponseObject, error) {
	d, err := s.replaceItems(ctx, req.TemplateId, catalog.KindCheck, req.Body.ExpectedRevision, checkInputs(req.Body.Items))
	if err != nil {
		return nil, err
	}
	return api.ReplaceTemplateCheckItems200JSONResponse{Body: d}, nil
}

// ReplaceTemplateDataFieldItems replaces the whole data-field list.
func (s *Server) ReplaceTemplateDataFieldItems(ctx context.Context, req api.ReplaceTemplateDataFieldItemsRequestObject) (api.ReplaceTemplateDataFieldItemsResponseObject, error) {
	d, err := s.replaceItems(ctx, req.TemplateId, catalog.KindDataField, req.Body.ExpectedRevision, dataFieldInputs(req.Body.Items))
	if err != nil {
		return nil, err
	}
	return api.ReplaceTemplateDataFieldItems200JSONResponse{Body: d}, nil
}
