package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/keyset"
	"github.com/doceval/doceval/pkg/slug"
)

// BuiltinDefaultTemplate is the template of a client without a custom default.
const BuiltinDefaultTemplate = "personal_real_estate_financing"

// DefaultConfidenceThreshold applies to data-field items that do not set one.
const DefaultConfidenceThreshold = 0.8

// TemplateCursor is the template's position in the list.
func TemplateCursor(t catalog.Template) keyset.Position {
	return keyset.Position{CreatedAt: t.CreatedAt, ID: t.ID}
}

func templateFromRow(r db.Template) catalog.Template {
	return catalog.Template{
		ID: r.ID, ClientID: r.APIClientID, Key: r.Key, DisplayName: r.DisplayName, IsDefault: r.IsDefault,
		Revision: int(r.Revision), Archived: r.ArchivedAt != nil, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// lookupTemplate resolves a UUID (the client's custom template) or a key (builtin or the
// client's custom template).
func lookupTemplate(ctx context.Context, q *db.Queries, client uuid.UUID, ref string) (catalog.Template, error) {
	var r db.Template
	var err error
	if id, perr := uuid.Parse(ref); perr == nil {
		r, err = q.TemplateGetByID(ctx, db.TemplateGetByIDParams{ID: id, APIClientID: &client})
	} else {
		r, err = q.TemplateGetByKey(ctx, db.TemplateGetByKeyParams{Key: ref, APIClientID: &client})
	}
	if err != nil {
		return catalog.Template{}, interpretError(err)
	}
	return templateFromRow(r), nil
}

// withDefault sets IsDefault on builtin templates from the client's point of view.
func withDefault(ctx context.Context, q *db.Queries, client uuid.UUID, ts []catalog.Template) error {
	needs := false
	for _, t := range ts {
		needs = needs || t.Builtin() && t.Key == BuiltinDefaultTemplate
	}
	if !needs {
		return nil
	}
	_, err := q.TemplateClientDefault(ctx, &client)
	hasCustom := err == nil
	if err != nil && !errors.Is(interpretError(err), ErrNotFound) {
		return interpretError(err)
	}
	for i := range ts {
		if ts[i].Builtin() && ts[i].Key == BuiltinDefaultTemplate {
			ts[i].IsDefault = !hasCustom
		}
	}
	return nil
}

// templateDetail is a template as the client sees it (IsDefault set) with its items.
func templateDetail(ctx context.Context, q *db.Queries, client uuid.UUID, t catalog.Template) (catalog.TemplateDetail, error) {
	ts := []catalog.Template{t}
	if err := withDefault(ctx, q, client, ts); err != nil {
		return catalog.TemplateDetail{}, err
	}
	return templateItems(ctx, q, ts[0])
}

// templateItems is t with its items.
func templateItems(ctx context.Context, q *db.Queries, t catalog.Template) (catalog.TemplateDetail, error) {
	d := catalog.TemplateDetail{Template: t, DocumentRequirements: []catalog.TemplateItem{}, Checks: []catalog.TemplateItem{}, DataFields: []catalog.TemplateItem{}}
	rows, err := q.TemplateItems(ctx, t.ID)
	if err != nil {
		return catalog.TemplateDetail{}, interpretError(err)
	}
	for _, r := range rows {
		item := catalog.TemplateItem{
			Entry: catalog.Entry{
				ID: r.EntryID, Family: catalog.ItemKind(r.Kind).Family(), ClientID: r.EntryClientID, Key: r.EntryKey, Version: int(r.EntryVersion),
				Content: catalog.Content{Name: r.Name, Description: r.Description, Prompt: r.Prompt, Category: r.Category, ProductTypes: r.ProductTypes, ValueFormat: r.ValueFormat},
			},
			Required: r.Required, AllowMultipleFiles: r.AllowMultipleFiles, Label: r.ItemLabel, Description: r.ItemDescription,
		}
		if r.ConfidenceThreshold != nil {
			item.ConfidenceThreshold = *r.ConfidenceThreshold
		}
		switch catalog.ItemKind(r.Kind) {
		case catalog.KindDocumentRequirement:
			d.DocumentRequirements = append(d.DocumentRequirements, item)
		case catalog.KindCheck:
			d.Checks = append(d.Checks, item)
		case catalog.KindDataField:
			d.DataFields = append(d.DataFields, item)
		}
	}
	return d, nil
}

// Template reads a builtin or the tenant's template with its items; archived templates
// stay readable.
func (t Tenant) Template(ctx context.Context, ref string) (catalog.TemplateDetail, error) {
	q := t.s.queries(ctx)
	tpl, err := lookupTemplate(ctx, q, t.clientID, ref)
	if err != nil {
		return catalog.TemplateDetail{}, err
	}
	return templateDetail(ctx, q, t.clientID, tpl)
}

// Templates lists builtin and the tenant's live templates, oldest first, up to limit+1.
func (t Tenant) Templates(ctx context.Context, after *keyset.Position, limit int) ([]catalog.Template, error) {
	q := t.s.queries(ctx)
	p := db.TemplateListParams{APIClientID: &t.clientID, MaxRows: int32(limit + 1)}
	if after != nil {
		p.CursorCreatedAt, p.CursorID = &after.CreatedAt, &after.ID
	}
	rows, err := q.TemplateList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]catalog.Template, len(rows))
	for i, r := range rows {
		out[i] = templateFromRow(r)
	}
	return out, withDefault(ctx, q, t.clientID, out)
}

// resolveItems checks a list of items: every reference exists for the client, is not
// archived and appears once.
func resolveItems(ctx context.Context, q *db.Queries, client uuid.UUID, kind catalog.ItemKind, in []catalog.ItemInput) ([]db.TemplateItemInsertParams, error) {
	out := make([]db.TemplateItemInsertParams, 0, len(in))
	seen := map[uuid.UUID]bool{}
	for i, it := range in {
		e, err := lookupEntry(ctx, q, client, kind.Family(), it.Ref)
		if err == nil {
			// Hold the entry until commit, then look again: an archive racing this write
			// either lands first (and is seen) or waits.
			if err := q.CatalogEntryLockShare(ctx, e.ID); err != nil {
				return nil, interpretError(err)
			}
			e, err = lookupEntry(ctx, q, client, kind.Family(), e.PublicID())
		}
		found := !errors.Is(err, ErrNotFound)
		if found && err != nil {
			return nil, err
		}
		if err := catalog.CheckItem(kind, i, it.Ref, catalog.Reference{Found: found, Archived: e.Archived, Repeated: seen[e.ID]}); err != nil {
			return nil, err
		}
		seen[e.ID] = true
		p := db.TemplateItemInsertParams{Kind: string(kind), Position: int32(i), EntryID: e.ID, AllowMultipleFiles: deref(it.AllowMultipleFiles, false)}
		switch kind {
		case catalog.KindDocumentRequirement:
			p.Required = deref(it.Required, true)
			p.Label, p.Description = it.Label, it.Description
		case catalog.KindDataField:
			p.Required = deref(it.Required, false)
			threshold := deref(it.ConfidenceThreshold, DefaultConfidenceThreshold)
			p.ConfidenceThreshold = &threshold
		}
		out = append(out, p)
	}
	return out, nil
}

// kinds is the fixed order the lists of a bundle are checked in, so the first refused
// item reported is always the same one.
var kinds = []catalog.ItemKind{catalog.KindDocumentRequirement, catalog.KindCheck, catalog.KindDataField}

func resolveBundle(ctx context.Context, q *db.Queries, client uuid.UUID, b catalog.Bundle) (map[catalog.ItemKind][]db.TemplateItemInsertParams, error) {
	in := map[catalog.ItemKind][]catalog.ItemInput{catalog.KindDocumentRequirement: b.DocumentRequirements, catalog.KindCheck: b.Checks, catalog.KindDataField: b.DataFields}
	lists := map[catalog.ItemKind][]db.TemplateItemInsertParams{}
	for _, kind := range kinds {
		items, err := resolveItems(ctx, q, client, kind, in[kind])
		if err != nil {
			return nil, err
		}
		lists[kind] = items
	}
	return lists, nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func (tx *Tx) replaceItems(ctx context.Context, template uuid.UUID, kind catalog.ItemKind, items []db.TemplateItemInsertParams) error {
	if err := tx.q.TemplateItemsDelete(ctx, db.TemplateItemsDeleteParams{TemplateID: template, Kind: string(kind)}); err != nil {
		return interpretError(err)
	}
	for _, it := range items {
		it.TemplateID = template
		if err := tx.q.TemplateItemInsert(ctx, it); err != nil {
			return interpretError(err)
		}
	}
	return nil
}

// insertTemplate creates a custom template with a key unique among builtin templates
// and the client's own.
func (tx *Tx) insertTemplate(ctx context.Context, client uuid.UUID, displayName string) (uuid.UUID, error) {
	base := slug.Make(displayName, "template")
	id := tx.s.NewID()
	for {
		taken, err := tx.q.TemplateKeysTaken(ctx, db.TemplateKeysTakenParams{APIClientID: &client, Base: base})
		if err != nil {
			return uuid.Nil, interpretError(err)
		}
		n, err := tx.q.TemplateInsert(ctx, db.TemplateInsertParams{
			ID: id, APIClientID: &client, Key: slug.Unique(base, taken), DisplayName: displayName, Now: tx.s.Now(),
		})
		if err != nil {
			return uuid.Nil, interpretError(err)
		}
		if n == 1 {
			return id, nil
		}
	}
}

// CreateTemplate creates a custom template (revision 1, not default) with its bundle.
func (t Tenant) CreateTemplate(ctx context.Context, displayName string, b catalog.Bundle) (catalog.TemplateDetail, error) {
	var d catalog.TemplateDetail
	err := t.s.InTx(ctx, func(tx *Tx) error {
		lists, err := resolveBundle(ctx, tx.q, t.clientID, b)
		if err != nil {
			return err
		}
		id, err := tx.insertTemplate(ctx, t.clientID, displayName)
		if err != nil {
			return err
		}
		for kind, items := range lists {
			if err := tx.replaceItems(ctx, id, kind, items); err != nil {
				return err
			}
		}
		d, err = tx.templateByID(ctx, t.clientID, id)
		return err
	})
	return d, err
}

func (tx *Tx) templateByID(ctx context.Context, client, id uuid.UUID) (catalog.TemplateDetail, error) {
	tpl, err := lookupTemplate(ctx, tx.q, client, id.String())
	if err != nil {
		return catalog.TemplateDetail{}, err
	}
	return templateDetail(ctx, tx.q, client, tpl)
}

// writable resolves a template for a write: custom, live, the tenant's.
func (tx *Tx) writable(ctx context.Context, client uuid.UUID, ref string) (catalog.Template, error) {
	tpl, err := lookupTemplate(ctx, tx.q, client, ref)
	if err != nil {
		return catalog.Template{}, err
	}
	return tpl, catalog.CheckWritable(tpl.Builtin(), tpl.Archived)
}

// bump is the one write of a template at the expected revision.
func (tx *Tx) bump(ctx context.Context, client uuid.UUID, tpl catalog.Template, expected int, displayName *string, isDefault *bool) error {
	_, err := tx.q.TemplateWrite(ctx, db.TemplateWriteParams{
		ID: tpl.ID, APIClientID: &client, ExpectedRevision: int32(expected),
		DisplayName: displayName, IsDefault: isDefault, Now: tx.s.Now(),
	})
	if errors.Is(interpretError(err), ErrNotFound) {
		return catalog.ErrRevisionMismatch
	}
	return interpretError(err)
}

// UpdateTemplate changes the display name and/or default flag of a custom template at
// the expected revision. Making it the default clears the client's other default.
func (t Tenant) UpdateTemplate(ctx context.Context, ref string, expected int, displayName *string, isDefault *bool) (catalog.TemplateDetail, error) {
	var d catalog.TemplateDetail
	err := t.s.InTx(ctx, func(tx *Tx) error {
		tpl, err := tx.writable(ctx, t.clientID, ref)
		if err != nil {
			return err
		}
		if isDefault != nil && *isDefault {
			// Serialize default changes of this client, then clear the other default.
			if err := tx.q.ClientLockForTemplates(ctx, t.clientID.String()); err != nil {
				return interpretError(err)
			}
			if err := catalog.CheckRevision(tpl.Revision, expected); err != nil {
				return err
			}
			if err := tx.q.TemplateClearDefault(ctx, db.TemplateClearDefaultParams{APIClientID: &t.clientID, Keep: tpl.ID, Now: t.s.Now()}); err != nil {
				return interpretError(err)
			}
		}
		if err := tx.bump(ctx, t.clientID, tpl, expected, displayName, isDefault); err != nil {
			return err
		}
		d, err = tx.templateByID(ctx, t.clientID, tpl.ID)
		return err
	})
	return d, err
}

// ArchiveTemplate archives a custom template (it stops being the default); archiving
// an archived template does nothing.
func (t Tenant) ArchiveTemplate(ctx context.Context, ref string) error {
	return t.s.InTx(ctx, func(tx *Tx) error {
		tpl, err := tx.writable(ctx, t.clientID, ref)
		if errors.Is(err, catalog.ErrArchived) {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = tx.q.TemplateArchive(ctx, db.TemplateArchiveParams{ID: tpl.ID, APIClientID: &t.clientID, Now: t.s.Now()})
		if errors.Is(interpretError(err), ErrNotFound) {
			return nil // archived concurrently
		}
		return interpretError(err)
	})
}

// ReplaceTemplateItems replaces one whole item list of a custom template at the
// expected revision.
func (t Tenant) ReplaceTemplateItems(ctx context.Context, ref string, kind catalog.ItemKind, expected int, in []catalog.ItemInput) (catalog.TemplateDetail, error) {
	var d catalog.TemplateDetail
	err := t.s.InTx(ctx, func(tx *Tx) error {
		tpl, err := tx.writable(ctx, t.clientID, ref)
		if err != nil {
			return err
		}
		items, err := resolveItems(ctx, tx.q, t.clientID, kind, in)
		if err != nil {
			return err
		}
		if err := tx.bump(ctx, t.clientID, tpl, expected, nil, nil); err != nil {
			return err
		}
		if err := tx.replaceItems(ctx, tpl.ID, kind, items); err != nil {
			return err
		}
		d, err = tx.templateByID(ctx, t.clientID, tpl.ID)
		return err
	})
	return d, err
}

// DuplicateTemplate makes a custom copy of a builtin or the tenant's template (archived
// ones too) with its item bundle, revision 1, not default. Items whose entry has been
// archived are left out: archived entries cannot be added to templates.
func (t Tenant) DuplicateTemplate(ctx context.Context, ref string, displayName *string) (catalog.TemplateDetail, error) {
	var d catalog.TemplateDetail
	err := t.s.InTx(ctx, func(tx *Tx) error {
		src, err := lookupTemplate(ctx, tx.q, t.clientID, ref)
		if err != nil {
			return err
		}
		name := deref(displayName, src.DisplayName)
		id, err := tx.insertTemplate(ctx, t.clientID, name)
		if err != nil {
			return err
		}
		rows, err := tx.q.TemplateItems(ctx, src.ID)
		if err != nil {
			return interpretError(err)
		}
		positions := map[string]int32{}
		for _, r := range rows {
			if r.EntryArchived {
				continue // archived entries are not added to templates any more
			}
			pos := positions[r.Kind]
			positions[r.Kind]++
			if err := tx.q.TemplateItemInsert(ctx, db.TemplateItemInsertParams{
				TemplateID: id, Kind: r.Kind, Position: pos, EntryID: r.EntryID, Required: r.Required,
				AllowMultipleFiles: r.AllowMultipleFiles, Label: r.ItemLabel, Description: r.ItemDescription,
				ConfidenceThreshold: r.ConfidenceThreshold,
			}); err != nil {
				return interpretError(err)
			}
		}
		d, err = tx.templateByID(ctx, t.clientID, id)
		return err
	})
	return d, err
}

// BuiltinTemplate is a builtin template as the data files describe it; item refs are
// builtin keys.
type BuiltinTemplate struct {
	Key         string
	DisplayName string
	catalog.Bundle
}

// upsertBuiltinTemplate inserts a builtin template when new, and rewrites its name and
// items (growing its revision) when the data files changed them.
func (tx *Tx) upsertBuiltinTemplate(ctx context.Context, b BuiltinTemplate, createdAt time.Time) error {
	lists, err := resolveBundle(ctx, tx.q, uuid.Nil, b.Bundle)
	if err != nil {
		return fmt.Errorf("builtin template %s: %w", b.Key, err)
	}
	id := tx.s.NewID()
	n, err := tx.q.TemplateBuiltinInsert(ctx, db.TemplateBuiltinInsertParams{ID: id, Key: b.Key, DisplayName: b.DisplayName, Now: createdAt})
	if err != nil {
		return interpretError(err)
	}
	if n == 0 {
		cur, err := lookupTemplate(ctx, tx.q, uuid.Nil, b.Key)
		if err != nil {
			return err
		}
		id = cur.ID
		existing, err := tx.q.TemplateItems(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		if cur.DisplayName == b.DisplayName && sameItems(existing, lists) {
			return nil
		}
		if err := tx.q.TemplateBuiltinUpdate(ctx, db.TemplateBuiltinUpdateParams{ID: id, DisplayName: b.DisplayName, Now: tx.s.Now()}); err != nil {
			return interpretError(err)
		}
	}
	for kind, items := range lists {
		if err := tx.replaceItems(ctx, id, kind, items); err != nil {
			return err
		}
	}
	return nil
}

func sameItems(existing []db.TemplateItemsRow, want map[catalog.ItemKind][]db.TemplateItemInsertParams) bool {
	total := 0
	for _, l := range want {
		total += len(l)
	}
	if total != len(existing) {
		return false
	}
	for _, r := range existing {
		l := want[catalog.ItemKind(r.Kind)]
		if int(r.Position) >= len(l) {
			return false
		}
		w := l[r.Position]
		if w.EntryID != r.EntryID || w.Required != r.Required || w.AllowMultipleFiles != r.AllowMultipleFiles ||
			!eqPtr(w.Label, r.ItemLabel) || !eqPtr(w.Description, r.ItemDescription) || !eqPtr(w.ConfidenceThreshold, r.ConfidenceThreshold) {
			return false
		}
	}
	return true
}

// BuiltinEpoch is the created_at of builtin entries and templates (plus their position
// in the data files in microseconds): the same in every deployment, and earlier than
// any custom entry, so lists show the builtins first and in the files' order, also
// those added in a later release.
var BuiltinEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// LoadBuiltins writes the builtin catalog and templates idempotently, in one
// transaction serialized across replicas by an advisory lock.
func (s *Store) LoadBuiltins(ctx context.Context, entries []BuiltinEntry, templates []BuiltinTemplate) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('doceval_builtins'))"); err != nil {
			return interpretError(err)
		}
		base := BuiltinEpoch
		for i, e := range entries {
			if _, err := tx.upsertBuiltinEntry(ctx, e, base.Add(time.Duration(i)*time.Microsecond)); err != nil {
				return fmt.Errorf("builtin %s %s: %w", e.Family, e.Key, err)
			}
		}
		for i, t := range templates {
			if err := tx.upsertBuiltinTemplate(ctx, t, base.Add(time.Duration(i)*time.Microsecond)); err != nil {
				return err
			}
		}
		return nil
	})
}
