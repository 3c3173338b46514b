package store

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/keyset"
	"github.com/doceval/doceval/pkg/slug"
)

// CatalogEntryCursor is the entry's position in its list.
func CatalogEntryCursor(e catalog.Entry) keyset.Position {
	return keyset.Position{CreatedAt: e.CreatedAt, ID: e.ID}
}

func entryFromRow(e db.CatalogEntry, v db.CatalogEntryVersion) catalog.Entry {
	return catalog.Entry{
		ID: e.ID, Family: catalog.Family(e.Family), ClientID: e.APIClientID, Key: e.Key, Version: int(e.Version),
		Archived: e.ArchivedAt != nil, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		Content: catalog.Content{
			Name: v.Name, Description: v.Description, Prompt: v.Prompt, Category: v.Category,
			ProductTypes: v.ProductTypes, ValueFormat: v.ValueFormat,
		},
	}
}

// lookupEntry resolves a reference — a UUID (the client's custom entry) or a key (a
// builtin, or the client's custom entry) — within family.
func lookupEntry(ctx context.Context, q *db.Queries, client uuid.UUID, family catalog.Family, ref string) (catalog.Entry, error) {
	if id, err := uuid.Parse(ref); err == nil {
		r, err := q.CatalogEntryGetByID(ctx, db.CatalogEntryGetByIDParams{Family: string(family), ID: id, APIClientID: &client})
		if err != nil {
			return catalog.Entry{}, interpretError(err)
		}
		return entryFromRow(r.CatalogEntry, r.CatalogEntryVersion), nil
	}
	r, err := q.CatalogEntryGetByKey(ctx, db.CatalogEntryGetByKeyParams{Family: string(family), Key: ref, APIClientID: &client})
	if err != nil {
		return catalog.Entry{}, interpretError(err)
	}
	return entryFromRow(r.CatalogEntry, r.CatalogEntryVersion), nil
}

// CatalogEntry reads a builtin or the tenant's custom entry by key or UUID; archived
// entries stay readable.
func (t Tenant) CatalogEntry(ctx context.Context, family catalog.Family, ref string) (catalog.Entry, error) {
	return lookupEntry(ctx, t.s.queries(ctx), t.clientID, family, ref)
}

// CatalogEntries lists builtin and the tenant's custom entries of family, archived ones
// left out, oldest first (builtins in catalog order, then custom ones by creation).
// It returns up to limit+1 rows for page.Trim.
func (t Tenant) CatalogEntries(ctx context.Context, family catalog.Family, after *keyset.Position, limit int) ([]catalog.Entry, error) {
	p := db.CatalogEntryListParams{Family: string(family), APIClientID: &t.clientID, MaxRows: int32(limit + 1)}
	if after != nil {
		p.CursorCreatedAt, p.CursorID = &after.CreatedAt, &after.ID
	}
	rows, err := t.s.queries(ctx).CatalogEntryList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]catalog.Entry, len(rows))
	for i, r := range rows {
		out[i] = entryFromRow(r.CatalogEntry, r.CatalogEntryVersion)
	}
	return out, nil
}

// fallbackKey is the key base of an entry whose name has no letter or digit.
var fallbackKey = map[catalog.Family]string{catalog.FamilyCheck: "check", catalog.FamilyDataField: "data_field", catalog.FamilyDocumentType: "document_type"}

// CreateCatalogEntry creates a custom entry at version 1. Its key is a slug of the name,
// unique among the builtin keys and the tenant's own.
func (t Tenant) CreateCatalogEntry(ctx context.Context, family catalog.Family, c catalog.Content) (catalog.Entry, error) {
	if c.ProductTypes == nil {
		c.ProductTypes = []string{}
	}
	var created catalog.Entry
	err := t.s.InTx(ctx, func(tx *Tx) error {
		base := slug.Make(c.Name, fallbackKey[family])
		id, now := t.s.NewID(), t.s.Now()
		for {
			taken, err := tx.q.CatalogKeysTaken(ctx, db.CatalogKeysTakenParams{Family: string(family), APIClientID: &t.clientID, Base: base})
			if err != nil {
				return interpretError(err)
			}
			key := slug.Unique(base, taken)
			n, err := tx.q.CatalogEntryInsert(ctx, db.CatalogEntryInsertParams{
				ID: id, Family: string(family), APIClientID: &t.clientID, Key: key, Now: now,
			})
			if err != nil {
				return interpretError(err)
			}
			if n == 1 {
				break // else a concurrent create took the key: look again
			}
		}
		if err := insertVersion(ctx, tx.q, id, 1, c, now); err != nil {
			return err
		}
		var err error
		created, err = lookupEntry(ctx, tx.q, t.clientID, family, id.String())
		return err
	})
	return created, err
}

func insertVersion(ctx context.Context, q *db.Queries, entry uuid.UUID, version int32, c catalog.Content, now time.Time) error {
	return interpretError(q.CatalogVersionInsert(ctx, db.CatalogVersionInsertParams{
		EntryID: entry, Version: version, Name: c.Name, Description: c.Description, Prompt: c.Prompt,
		Category: c.Category, ProductTypes: c.ProductTypes, ValueFormat: c.ValueFormat, Now: now,
	}))
}

// UpdateCatalogEntry applies edit to a custom entry's content. A change makes a new
// version (the id stays); snapshots taken before keep the version they hold. An edit
// that changes nothing makes no version.
func (t Tenant) UpdateCatalogEntry(ctx context.Context, family catalog.Family, ref string, edit func(*catalog.Content)) (catalog.Entry, error) {
	var updated catalog.Entry
	err := t.s.InTx(ctx, func(tx *Tx) error {
		cur, err := lookupEntry(ctx, tx.q, t.clientID, family, ref)
		if err == nil && !cur.Builtin() {
			// Lock, then read again: a concurrent edit finishes first and this one
			// applies on top of it instead of overwriting it.
			if err := tx.q.CatalogEntryLock(ctx, cur.ID); err != nil {
				return interpretError(err)
			}
			cur, err = lookupEntry(ctx, tx.q, t.clientID, family, cur.ID.String())
		}
		if err != nil {
			return err
		}
		if err := catalog.CheckWritable(cur.Builtin(), cur.Archived); err != nil {
			return err
		}
		next := cur.Content
		next.ProductTypes = slices.Clone(cur.ProductTypes)
		edit(&next)
		if next.Equal(cur.Content) {
			updated = cur
			return nil
		}
		now := t.s.Now()
		version, err := tx.q.CatalogEntryBumpVersion(ctx, db.CatalogEntryBumpVersionParams{ID: cur.ID, Now: now})
		if err != nil {
			return interpretError(err) // archived meanwhile: not found
		}
		if err := insertVersion(ctx, tx.q, cur.ID, version, next, now); err != nil {
			return err
		}
		updated, err = lookupEntry(ctx, tx.q, t.clientID, family, cur.ID.String())
		return err
	})
	return updated, err
}

// ArchiveCatalogEntry archives a custom entry; archiving an archived one does nothing.
func (t Tenant) ArchiveCatalogEntry(ctx context.Context, family catalog.Family, ref string) error {
	cur, err := t.CatalogEntry(ctx, family, ref)
	switch {
	case err != nil:
		return err
	case cur.Builtin():
		return catalog.ErrReadOnly
	}
	_, err = t.s.queries(ctx).CatalogEntryArchive(ctx, db.CatalogEntryArchiveParams{ID: cur.ID, Now: t.s.Now()})
	return interpretError(err)
}

// BuiltinEntry is a builtin catalog entry as the data files describe it.
type BuiltinEntry struct {
	Family catalog.Family
	Key    string
	catalog.Content
}

// upsertBuiltinEntry inserts a builtin entry when new (created_at spaced by position so
// lists keep the files' order) and adds a version when its content changed.
func (tx *Tx) upsertBuiltinEntry(ctx context.Context, b BuiltinEntry, createdAt time.Time) (uuid.UUID, error) {
	if b.ProductTypes == nil {
		b.ProductTypes = []string{}
	}
	id := tx.s.NewID()
	n, err := tx.q.CatalogBuiltinInsert(ctx, db.CatalogBuiltinInsertParams{ID: id, Family: string(b.Family), Key: b.Key, Now: createdAt})
	if err != nil {
		return uuid.Nil, interpretError(err)
	}
	if n == 1 {
		return id, insertVersion(ctx, tx.q, id, 1, b.Content, createdAt)
	}
	cur, err := lookupEntry(ctx, tx.q, uuid.Nil, b.Family, b.Key)
	if err != nil {
		return uuid.Nil, err
	}
	if cur.Content.Equal(b.Content) {
		return cur.ID, nil
	}
	now := tx.s.Now()
	version, err := tx.q.CatalogEntryBumpVersion(ctx, db.CatalogEntryBumpVersionParams{ID: cur.ID, Now: now})
	if err != nil {
		return uuid.Nil, interpretError(err)
	}
	return cur.ID, insertVersion(ctx, tx.q, cur.ID, version, b.Content, now)
}
