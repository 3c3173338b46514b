// Package catalog is the builtin catalog: the document types, data fields, checks and
// templates every client sees, as data files in builtin/ (one per family) embedded in
// the binaries. Load writes them to the database at start-up, idempotently; adding a
// builtin is a change of those files only.
package catalog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.yaml.in/yaml/v3"

	domaincatalog "github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/store"
)

//go:embed builtin/*.yaml
var files embed.FS

// The values the data files may use; the same enums as openapi.yaml.
var (
	checkCategories    = []string{"identity", "income", "assets", "property", "financing", "completeness", "additional_risk_notes", "other"}
	fieldCategories    = []string{"personal", "income", "assets", "property", "financing", "other"}
	productTypes       = []string{"personal_real_estate_financing", "personal_loan"}
	valueFormats       = []string{"currency", "years", "percent", "square_meters", "date"}
	documentCategories = fieldCategories
)

type documentType struct {
	Key         string `yaml:"key"`
	DisplayName string `yaml:"display_name"`
	Category    string `yaml:"category"`
	Description string `yaml:"description"`
}

type dataField struct {
	Key         string  `yaml:"key"`
	DisplayName string  `yaml:"display_name"`
	Category    string  `yaml:"category"`
	ValueFormat *string `yaml:"value_format"`
}

type check struct {
	Key          string   `yaml:"key"`
	Title        string   `yaml:"title"`
	Description  string   `yaml:"description"`
	Category     string   `yaml:"category"`
	ProductTypes []string `yaml:"product_types"`
}

type template struct {
	Key                  string `yaml:"key"`
	DisplayName          string `yaml:"display_name"`
	DocumentRequirements []struct {
		DocumentType       string  `yaml:"document_type"`
		Required           *bool   `yaml:"required"`             // default true
		AllowMultipleFiles *bool   `yaml:"allow_multiple_files"` // default false
		Label              *string `yaml:"label"`
		Description        *string `yaml:"description"`
	} `yaml:"document_requirements"`
	CheckItems     []string `yaml:"check_items"`
	DataFieldItems []struct {
		DataField           string   `yaml:"data_field"`
		Required            *bool    `yaml:"required"`             // default false
		ConfidenceThreshold *float64 `yaml:"confidence_threshold"` // default 0.8
	} `yaml:"data_field_items"`
}

// Builtins is the parsed builtin catalog.
type Builtins struct {
	Entries   []store.BuiltinEntry
	Templates []store.BuiltinTemplate
}

func decode(name string, v any) error {
	b, err := files.ReadFile("builtin/" + name)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("builtin/%s: %w", name, err)
	}
	return nil
}

// Parse reads and checks the data files: known categories, product types and value
// formats, unique keys, and templates that reference existing entries.
func Parse() (Builtins, error) {
	var (
		docs   []documentType
		fields []dataField
		checks []check
		tpls   []template
		out    Builtins
	)
	for name, v := range map[string]any{"document_types.yaml": &docs, "data_fields.yaml": &fields, "checks.yaml": &checks, "templates.yaml": &tpls} {
		if err := decode(name, v); err != nil {
			return Builtins{}, err
		}
	}
	keys := map[domaincatalog.Family][]string{}
	add := func(f domaincatalog.Family, key string, c domaincatalog.Content, category []string) error {
		switch {
		case !keyPattern.MatchString(key) || c.Name == "":
			return fmt.Errorf("builtin %s %q: a key of a-z, 0-9 and _ and a name are required", f, key)
		case slices.Contains(keys[f], key):
			return fmt.Errorf("builtin %s %q: duplicate key", f, key)
		case !slices.Contains(category, c.Category):
			return fmt.Errorf("builtin %s %q: unknown category %q", f, key, c.Category)
		case c.ValueFormat != nil && !slices.Contains(valueFormats, *c.ValueFormat):
			return fmt.Errorf("builtin %s %q: unknown value_format %q", f, key, *c.ValueFormat)
		}
		for _, p := range c.ProductTypes {
			if !slices.Contains(productTypes, p) {
				return fmt.Errorf("builtin %s %q: unknown product type %q", f, key, p)
			}
		}
		if c.ProductTypes == nil {
			c.ProductTypes = []string{}
		}
		keys[f] = append(keys[f], key)
		out.Entries = append(out.Entries, store.BuiltinEntry{Family: f, Key: key, Content: c})
		return nil
	}
	for _, d := range docs {
		if err := add(domaincatalog.FamilyDocumentType, d.Key, domaincatalog.Content{Name: d.DisplayName, Description: d.Description, Category: d.Category}, documentCategories); err != nil {
			return Builtins{}, err
		}
	}
	for _, f := range fields {
		if err := add(domaincatalog.FamilyDataField, f.Key, domaincatalog.Content{Name: f.DisplayName, Category: f.Category, ValueFormat: f.ValueFormat}, fieldCategories); err != nil {
			return Builtins{}, err
		}
	}
	for _, c := range checks {
		if err := add(domaincatalog.FamilyCheck, c.Key, domaincatalog.Content{Name: c.Title, Description: c.Description, Category: c.Category, ProductTypes: c.ProductTypes}, checkCategories); err != nil {
			return Builtins{}, err
		}
	}
	ref := func(f domaincatalog.Family, tpl, key string) error {
		if !slices.Contains(keys[f], key) {
			return fmt.Errorf("builtin template %q: no builtin %s %q", tpl, f, key)
		}
		return nil
	}
	var tplKeys []string
	for _, t := range tpls {
		switch {
		case !keyPattern.MatchString(t.Key) || t.DisplayName == "":
			return Builtins{}, fmt.Errorf("builtin template %q: a key of a-z, 0-9 and _ and a display_name are required", t.Key)
		case slices.Contains(tplKeys, t.Key):
			return Builtins{}, fmt.Errorf("builtin template %q: duplicate key", t.Key)
		}
		tplKeys = append(tplKeys, t.Key)
		bt := store.BuiltinTemplate{Key: t.Key, DisplayName: t.DisplayName}
		for _, r := range t.DocumentRequirements {
			if err := ref(domaincatalog.FamilyDocumentType, t.Key, r.DocumentType); err != nil {
				return Builtins{}, err
			}
			bt.DocumentRequirements = append(bt.DocumentRequirements, domaincatalog.ItemInput{
				Ref: r.DocumentType, Required: r.Required, AllowMultipleFiles: r.AllowMultipleFiles, Label: r.Label, Description: r.Description,
			})
		}
		for _, c := range t.CheckItems {
			if err := ref(domaincatalog.FamilyCheck, t.Key, c); err != nil {
				return Builtins{}, err
			}
			bt.Checks = append(bt.Checks, domaincatalog.ItemInput{Ref: c})
		}
		for _, f := range t.DataFieldItems {
			if err := ref(domaincatalog.FamilyDataField, t.Key, f.DataField); err != nil {
				return Builtins{}, err
			}
			if c := f.ConfidenceThreshold; c != nil && (*c < 0 || *c > 1) {
				return Builtins{}, fmt.Errorf("builtin template %q: confidence_threshold %v of %s outside 0..1", t.Key, *c, f.DataField)
			}
			bt.DataFields = append(bt.DataFields, domaincatalog.ItemInput{Ref: f.DataField, Required: f.Required, ConfidenceThreshold: f.ConfidenceThreshold})
		}
		out.Templates = append(out.Templates, bt)
	}
	return out, nil
}

// keyPattern is the shape of every key (openapi.yaml's CatalogKey), at most 64 long.
var keyPattern = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

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
func Hash() string {
	h := sha256.New()
	for _, name := range []string{"document_types.yaml", "data_fields.yaml", "checks.yaml", "templates.yaml"} {
		b, _ := files.ReadFile("builtin/" + name)
		h.Write([]byte(name))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Prepare applies the pending migrations and loads the builtin catalog: what every
// service (with DOCEVAL_MIGRATE) and doceval-admin migrate do before anything else.
func Prepare(ctx context.Context, pool *pgxpool.Pool) error {
	if err := store.Migrate(ctx, pool); err != nil {
		return err
	}
	return Load(ctx, store.New(pool))
}
