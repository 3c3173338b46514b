package store

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/domain/catalog"
)

// Snapshot is the immutable copy of a template that a submission stores when it is
// created: every item with the catalog entry version it had then, content included, so
// later edits of the template or its entries never change the submission or its results.
type Snapshot struct {
	TemplateID           string                `json:"template_id"`
	TemplateKey          string                `json:"template_key"`
	TemplateRevision     int                   `json:"template_revision"`
	DisplayName          string                `json:"display_name"`
	DocumentRequirements []SnapshotRequirement `json:"document_requirements"`
	Checks               []SnapshotCheck       `json:"checks"`
	DataFields           []SnapshotDataField   `json:"data_fields"`
}

// SnapshotEntry identifies the catalog entry version an item was taken from.
type SnapshotEntry struct {
	ID      string    `json:"id"` // public id: builtin key or custom UUID
	EntryID uuid.UUID `json:"entry_id"`
	Version int       `json:"version"`
	Key     string    `json:"key"`
	Builtin bool      `json:"builtin"`
}

// SnapshotRequirement is a document requirement: a future document slot.
type SnapshotRequirement struct {
	DocumentType       SnapshotEntry `json:"document_type"`
	Label              string        `json:"label"`
	Description        string        `json:"description"`
	Category           string        `json:"category"`
	Required           bool          `json:"required"`
	AllowMultipleFiles bool          `json:"allow_multiple_files"`
}

// SnapshotCheck is a check as it was when the snapshot was taken.
type SnapshotCheck struct {
	Check        SnapshotEntry `json:"check"`
	Title        string        `json:"title"`
	Description  string        `json:"description"`
	Prompt       *string       `json:"prompt,omitempty"`
	Category     string        `json:"category"`
	ProductTypes []string      `json:"product_types"`
}

// SnapshotDataField is a data field with its template item's settings.
type SnapshotDataField struct {
	DataField           SnapshotEntry `json:"data_field"`
	DisplayName         string        `json:"display_name"`
	Prompt              *string       `json:"prompt,omitempty"`
	ValueFormat         *string       `json:"value_format,omitempty"`
	Category            string        `json:"category"`
	Required            bool          `json:"required"`
	ConfidenceThreshold float64       `json:"confidence_threshold"`
}

func snapshotEntry(e CatalogEntry) SnapshotEntry {
	return SnapshotEntry{ID: e.PublicID(), EntryID: e.ID, Version: e.Version, Key: e.Key, Builtin: e.Builtin()}
}

// TemplateSnapshot takes the snapshot of a template for a new submission, inside the
// transaction that creates it. ref is a builtin key or the client's template UUID; empty
// means the client's default (its custom default, else the builtin default). An archived
// template can no longer create submissions: catalog.ErrArchived.
func (tx *Tx) TemplateSnapshot(ctx context.Context, client uuid.UUID, ref string) (Snapshot, error) {
	return takeSnapshot(ctx, tx.q, client, ref)
}

// TemplateSnapshot is Tx.TemplateSnapshot outside a transaction.
func (t Tenant) TemplateSnapshot(ctx context.Context, ref string) (Snapshot, error) {
	var s Snapshot
	err := t.s.InTx(ctx, func(tx *Tx) (err error) {
		s, err = tx.TemplateSnapshot(ctx, t.clientID, ref)
		return err
	})
	return s, err
}

func takeSnapshot(ctx context.Context, q *db.Queries, client uuid.UUID, ref string) (Snapshot, error) {
	var tpl Template
	if ref == "" {
		r, err := q.TemplateClientDefault(ctx, &client)
		switch err := interpretError(err); {
		case err == nil:
			tpl = templateFromRow(r)
		case errors.Is(err, ErrNotFound):
			ref = BuiltinDefaultTemplate
		default:
			return Snapshot{}, err
		}
	}
	if ref != "" {
		var err error
		if tpl, err = lookupTemplate(ctx, q, client, ref); err != nil {
			return Snapshot{}, err
		}
	}
	// Hold the template until the submission commits, then read it again: a concurrent
	// archive or item write lands wholly before or after this snapshot.
	if err := q.TemplateLockShare(ctx, tpl.ID); err != nil {
		return Snapshot{}, interpretError(err)
	}
	tpl, err := lookupTemplate(ctx, q, client, tpl.PublicID())
	if err != nil {
		return Snapshot{}, err
	}
	if tpl.Archived {
		return Snapshot{}, catalog.ErrArchived
	}
	d, err := templateDetail(ctx, q, client, tpl)
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{
		TemplateID: d.PublicID(), TemplateKey: d.Key, TemplateRevision: d.Revision, DisplayName: d.DisplayName,
		DocumentRequirements: make([]SnapshotRequirement, len(d.DocumentRequirements)),
		Checks:               make([]SnapshotCheck, len(d.Checks)),
		DataFields:           make([]SnapshotDataField, len(d.DataFields)),
	}
	for i, it := range d.DocumentRequirements {
		s.DocumentRequirements[i] = SnapshotRequirement{
			DocumentType: snapshotEntry(it.Entry), Label: deref(it.Label, it.Entry.Name),
			Description: deref(it.Description, it.Entry.Description), Category: it.Entry.Category,
			Required: it.Required, AllowMultipleFiles: it.AllowMultipleFiles,
		}
	}
	for i, it := range d.Checks {
		s.Checks[i] = SnapshotCheck{
			Check: snapshotEntry(it.Entry), Title: it.Entry.Name, Description: it.Entry.Description,
			Prompt: it.Entry.Prompt, Category: it.Entry.Category, ProductTypes: it.Entry.ProductTypes,
		}
	}
	for i, it := range d.DataFields {
		s.DataFields[i] = SnapshotDataField{
			DataField: snapshotEntry(it.Entry), DisplayName: it.Entry.Name, Prompt: it.Entry.Prompt,
			ValueFormat: it.Entry.ValueFormat, Category: it.Entry.Category,
			Required: it.Required, ConfidenceThreshold: it.ConfidenceThreshold,
		}
	}
	return s, nil
}
