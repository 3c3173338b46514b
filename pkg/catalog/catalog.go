// Package catalog loads the builtin catalog, the document types, data fields, checks and
// templates every client sees (package builtin holds them as data files), into the
// database at start-up, idempotently.
package catalog

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/catalog/builtin"
	domaincatalog "github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/store"
)

// Builtins is the parsed builtin catalog in the store's terms.
type Builtins struct {
	Entries   []store.BuiltinEntry
	Templates []store.BuiltinTemplate
}

// Parse reads the checked data files (package builtin) and maps them to the entries
// and templates the store loads. The model prompts stay behind: a builtin entry shows
// none.
func Parse() (Builtins, error) {
	c, err := builtin.Load()
	if err != nil {
		return Builtins{}, err
	}
	var out Builtins
	add := func(f domaincatalog.Family, key string, content domaincatalog.Content) {
		if content.ProductTypes == nil {
			content.ProductTypes = []string{}
		}
		out.Entries = append(out.Entries, store.BuiltinEntry{Family: f, Key: key, Content: content})
	}
	for _, d := range c.DocumentTypes {
		add(domaincatalog.FamilyDocumentType, d.Key, domaincatalog.Content{Name: d.DisplayName, Description: d.Description, Category: d.Category})
	}
	for _, f := range c.DataFields {
		var format *string
		if f.ValueFormat != "" {
			format = &f.ValueFormat
		}
		add(domaincatalog.FamilyDataField, f.Key, domaincatalog.Content{Name: f.DisplayName, Category: f.Category, ValueFormat: format})
	}
	for _, ch := range c.Checks {
		add(domaincatalog.FamilyCheck, ch.Key, domaincatalog.Content{Name: ch.Title, Description: ch.Description, Category: ch.Category, ProductTypes: slices.Clone(ch.ProductTypes)})
	}
	for _, t := range c.Templates {
		bt := store.BuiltinTemplate{Key: t.Key, DisplayName: t.DisplayName}
		for _, r := range t.DocumentRequirements {
			bt.DocumentRequirements = append(bt.DocumentRequirements, domaincatalog.ItemInput{
				Ref: r.DocumentType, Required: r.Required, AllowMultipleFiles: r.AllowMultipleFiles, Label: r.Label, Description: r.Description,
			})
		}
		for _, ch := range t.CheckItems {
			bt.Checks = append(bt.Checks, domaincatalog.ItemInput{Ref: ch})
		}
		for _, f := range t.DataFieldItems {
			bt.DataFields = append(bt.DataFields, domaincatalog.ItemInput{Ref: f.DataField, Required: f.Required, ConfidenceThreshold: f.ConfidenceThreshold})
		}
		out.Templates = append(out.Templates, bt)
	}
	return out, nil
}

// Load writes the builtin catalog to the database (idempotent; safe from many replicas
// at once).
func Load(ctx context.Context, st *store.Store) error {
	b, err := Parse()
	if err != nil {
		return err
	}
	return st.LoadBuiltins(ctx, b.Entries, b.Templates)
}

// Hash identifies the data files' content (test databases are keyed by it).
func Hash() string { return builtin.Hash() }

// Prepare applies the pending migrations and loads the builtin catalog: what every
// service (with DOCEVAL_MIGRATE) and doceval-admin migrate do before anything else.
func Prepare(ctx context.Context, pool *pgxpool.Pool) error {
	if err := store.Migrate(ctx, pool); err != nil {
		return err
	}
	return Load(ctx, store.New(pool))
}
