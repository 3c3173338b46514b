package store

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/submission"
)

func snapshotEntry(e catalog.Entry) submission.SnapshotEntry {
	return submission.SnapshotEntry{ID: e.PublicID(), EntryID: e.ID, Version: e.Version, Key: e.Key, Builtin: e.Builtin()}
}

// TemplateSnapshot takes the snapshot of a template for a new submission, inside the
// transaction that creates it. ref is a builtin key or the client's template UUID; empty
// means the client's default (its custom default, else the builtin default). An archived
// template can no longer create submissions: catalog.ErrArchived.
func (tx *Tx) TemplateSnapshot(ctx context.Context, client uuid.UUID, ref string) (submission.Snapshot, error) {
	return takeSnapshot(ctx, tx.q, client, ref)
}

// TemplateSnapshot is Tx.TemplateSnapshot outside a transaction.
func (t Tenant) TemplateSnapshot(ctx context.Context, ref string) (submission.Snapshot, error) {
	var s submission.Snapshot
	err := t.s.InTx(ctx, func(tx *Tx) (err error) {
		s, err = tx.TemplateSnapshot(ctx, t.clientID, ref)
		return err
	})
	return s, err
}

func takeSnapshot(ctx context.Context, q *db.Queries, client uuid.UUID, ref string) (submission.Snapshot, error) {
	var tpl catalog.Template
	if ref == "" {
		r, err := q.TemplateClientDefault(ctx, &client)
		switch err := interpretError(err); {
		case err == nil:
			tpl = templateFromRow(r)
		case errors.Is(err, ErrNotFound):
			ref = BuiltinDefaultTemplate
		default:
			return submission.Snapshot{}, err
		}
	}
	if ref != "" {
		var err error
		if tpl, err = lookupTemplate(ctx, q, client, ref); err != nil {
			return submission.Snapshot{}, err
		}
	}
	// Hold the template until the submission commits, reading it as last committed: a
	// concurrent archive or item write lands wholly before or after this snapshot.
	r, err := q.TemplateGetForShare(ctx, tpl.ID)
	if err != nil {
		return submission.Snapshot{}, interpretError(err)
	}
	if tpl = templateFromRow(r); tpl.Archived {
		return submission.Snapshot{}, catalog.ErrArchived
	}
	d, err := templateItems(ctx, q, tpl)
	if err != nil {
		return submission.Snapshot{}, err
	}
	s := submission.Snapshot{
		TemplateID: d.PublicID(), TemplateKey: d.Key, TemplateRevision: d.Revision, DisplayName: d.DisplayName,
		DocumentRequirements: make([]submission.SnapshotRequirement, len(d.DocumentRequirements)),
		Checks:               make([]submission.SnapshotCheck, len(d.Checks)),
		DataFields:           make([]submission.SnapshotDataField, len(d.DataFields)),
	}
	for i, it := range d.DocumentRequirements {
		s.DocumentRequirements[i] = submission.SnapshotRequirement{
			DocumentType: snapshotEntry(it.Entry), Label: deref(it.Label, it.Entry.Name),
			Description: deref(it.Description, it.Entry.Description), Category: it.Entry.Category,
			Required: it.Required, AllowMultipleFiles: it.AllowMultipleFiles,
		}
	}
	for i, it := range d.Checks {
		s.Checks[i] = submission.SnapshotCheck{
			Check: snapshotEntry(it.Entry), Title: it.Entry.Name, Description: it.Entry.Description,
			Prompt: it.Entry.Prompt, Category: it.Entry.Category, ProductTypes: it.Entry.ProductTypes,
		}
	}
	for i, it := range d.DataFields {
		s.DataFields[i] = submission.SnapshotDataField{
			DataField: snapshotEntry(it.Entry), DisplayName: it.Entry.Name, Prompt: it.Entry.Prompt,
			ValueFormat: it.Entry.ValueFormat, Category: it.Entry.Category,
			Required: it.Required, ConfidenceThreshold: it.ConfidenceThreshold,
		}
	}
	return s, nil
}
