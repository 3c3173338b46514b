// Package builtin is the builtin catalog as data: the document types, data fields,
// checks and templates of the YAML files beside this one, embedded, parsed and checked
// once. It is the one source of what a builtin is: pkg/catalog writes it to the
// database, the engine takes from it the document types a field is read from and the
// questions it asks the model, the corpus its truth's field list. It imports nothing
// of doceval, so any of them may read it.
package builtin

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed *.yaml
var files embed.FS

// The data files, in the order they are read and hashed.
var fileNames = []string{"document_types.yaml", "data_fields.yaml", "checks.yaml", "templates.yaml"}

// The values the data files may use; the same enums as openapi.yaml's CheckCategory,
// DataFieldCategory, DocumentTypeCategory, ProductType and ValueFormat.
var (
	CheckCategories        = []string{"identity", "income", "assets", "property", "financing", "completeness", "additional_risk_notes", "other"}
	DataFieldCategories    = []string{"personal", "income", "assets", "property", "financing", "other"}
	DocumentTypeCategories = DataFieldCategories
	ProductTypes           = []string{"personal_real_estate_financing", "personal_loan"}
	ValueFormats           = []string{"currency", "years", "percent", "square_meters", "date"}
)

// DocumentType is a builtin document type.
type DocumentType struct {
	Key         string `yaml:"key"`
	DisplayName string `yaml:"display_name"`
	Category    string `yaml:"category"`
	Description string `yaml:"description"`
}

// DataField is a builtin data field.
type DataField struct {
	Key         string `yaml:"key"`
	DisplayName string `yaml:"display_name"`
	Category    string `yaml:"category"`
	// ValueFormat is one of ValueFormats, "" for free text.
	ValueFormat string `yaml:"value_format"`
	// ReadFrom is the product rule for which document the value is taken from: the
	// document types whose statement of it counts, best first. Within a type the newest
	// statement wins, then the more confident one; a document of no listed type counts
	// only when no listed one states the field.
	ReadFrom []string `yaml:"read_from"`
	// Prompt is what the model is asked when the rules could not read the field: what
	// the value is, in terms that hold for any issuer's layout. It stays out of the
	// database (a builtin entry shows no prompt).
	Prompt string `yaml:"prompt"`
}

// Check is a builtin check.
type Check struct {
	Key          string   `yaml:"key"`
	Title        string   `yaml:"title"`
	Description  string   `yaml:"description"`
	Category     string   `yaml:"category"`
	ProductTypes []string `yaml:"product_types"`
	// Prompt phrases the check as a reviewer instruction for the model, for checks
	// whose rules depend on reading values; "" means the description serves. It stays
	// out of the database.
	Prompt string `yaml:"prompt"`
}

// Template is a builtin template; its items refer to the keys of the other files.
// Omitted options keep the store's defaults (required documents, optional fields,
// confidence threshold 0.8).
type Template struct {
	Key                  string `yaml:"key"`
	DisplayName          string `yaml:"display_name"`
	DocumentRequirements []struct {
		DocumentType       string  `yaml:"document_type"`
		Required           *bool   `yaml:"required"`
		AllowMultipleFiles *bool   `yaml:"allow_multiple_files"`
		Label              *string `yaml:"label"`
		Description        *string `yaml:"description"`
	} `yaml:"document_requirements"`
	CheckItems     []string `yaml:"check_items"`
	DataFieldItems []struct {
		DataField           string   `yaml:"data_field"`
		Required            *bool    `yaml:"required"`
		ConfidenceThreshold *float64 `yaml:"confidence_threshold"`
	} `yaml:"data_field_items"`
}

// Catalog is the parsed builtin catalog, each family in the files' order (the display
// order in lists). Treat it as read-only: it is shared.
type Catalog struct {
	DocumentTypes []DocumentType
	DataFields    []DataField
	Checks        []Check
	Templates     []Template
}

// DataField returns the builtin data field with the key.
func (c *Catalog) DataField(key string) (DataField, bool) {
	i := slices.IndexFunc(c.DataFields, func(f DataField) bool { return f.Key == key })
	if i < 0 {
		return DataField{}, false
	}
	return c.DataFields[i], true
}

// Check returns the builtin check with the key.
func (c *Catalog) Check(key string) (Check, bool) {
	i := slices.IndexFunc(c.Checks, func(ch Check) bool { return ch.Key == key })
	if i < 0 {
		return Check{}, false
	}
	return c.Checks[i], true
}

// Load returns the builtin catalog, parsed and checked on first use.
func Load() (*Catalog, error) { return parsed() }

// MustLoad is Load for code that cannot go on without the catalog (the engine): the
// files are embedded, so an error is a defect that this package's tests catch.
func MustLoad() *Catalog {
	c, err := parsed()
	if err != nil {
		panic(err)
	}
	return c
}

var parsed = sync.OnceValues(func() (*Catalog, error) { return parse(files) })

func decode(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
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

// parse reads and checks the data files: keys of the CatalogKey shape, unique, with a
// name; known categories, product types and value formats; data fields read from known
// document types and with a prompt; templates that reference existing entries.
func parse(fsys fs.FS) (*Catalog, error) {
	var c Catalog
	for name, v := range map[string]any{"document_types.yaml": &c.DocumentTypes, "data_fields.yaml": &c.DataFields, "checks.yaml": &c.Checks, "templates.yaml": &c.Templates} {
		if err := decode(fsys, name, v); err != nil {
			return nil, err
		}
	}
	entry := func(family string, keys []string, i int, name, category string, categories []string) error {
		key := keys[i]
		switch {
		case !keyPattern.MatchString(key) || name == "":
			return fmt.Errorf("builtin %s %q: a key of a-z, 0-9 and _ and a name are required", family, key)
		case slices.Contains(keys[:i], key):
			return fmt.Errorf("builtin %s %q: duplicate key", family, key)
		case !slices.Contains(categories, category):
			return fmt.Errorf("builtin %s %q: unknown category %q", family, key, category)
		}
		return nil
	}
	docKeys, fieldKeys, checkKeys := c.DocumentTypeKeys(), c.DataFieldKeys(), c.CheckKeys()
	for i, d := range c.DocumentTypes {
		if err := entry("document_type", docKeys, i, d.DisplayName, d.Category, DocumentTypeCategories); err != nil {
			return nil, err
		}
	}
	for i, f := range c.DataFields {
		if err := entry("data_field", fieldKeys, i, f.DisplayName, f.Category, DataFieldCategories); err != nil {
			return nil, err
		}
		switch {
		case f.ValueFormat != "" && !slices.Contains(ValueFormats, f.ValueFormat):
			return nil, fmt.Errorf("builtin data_field %q: unknown value_format %q", f.Key, f.ValueFormat)
		case len(f.ReadFrom) == 0 || f.Prompt == "":
			return nil, fmt.Errorf("builtin data_field %q: read_from and a prompt are required", f.Key)
		}
		for j, typ := range f.ReadFrom {
			if !slices.Contains(docKeys, typ) || slices.Contains(f.ReadFrom[:j], typ) {
				return nil, fmt.Errorf("builtin data_field %q: read_from %q is no builtin document_type or repeated", f.Key, typ)
			}
		}
	}
	for i, ch := range c.Checks {
		if err := entry("check", checkKeys, i, ch.Title, ch.Category, CheckCategories); err != nil {
			return nil, err
		}
		for _, p := range ch.ProductTypes {
			if !slices.Contains(ProductTypes, p) {
				return nil, fmt.Errorf("builtin check %q: unknown product type %q", ch.Key, p)
			}
		}
	}
	ref := func(family, tpl, key string, keys []string) error {
		if !slices.Contains(keys, key) {
			return fmt.Errorf("builtin template %q: no builtin %s %q", tpl, family, key)
		}
		return nil
	}
	tplKeys := c.TemplateKeys()
	for i, t := range c.Templates {
		switch {
		case !keyPattern.MatchString(t.Key) || t.DisplayName == "":
			return nil, fmt.Errorf("builtin template %q: a key of a-z, 0-9 and _ and a display_name are required", t.Key)
		case slices.Contains(tplKeys[:i], t.Key):
			return nil, fmt.Errorf("builtin template %q: duplicate key", t.Key)
		}
		for _, r := range t.DocumentRequirements {
			if err := ref("document_type", t.Key, r.DocumentType, docKeys); err != nil {
				return nil, err
			}
		}
		for _, ch := range t.CheckItems {
			if err := ref("check", t.Key, ch, checkKeys); err != nil {
				return nil, err
			}
		}
		for _, f := range t.DataFieldItems {
			if err := ref("data_field", t.Key, f.DataField, fieldKeys); err != nil {
				return nil, err
			}
			if th := f.ConfidenceThreshold; th != nil && (*th < 0 || *th > 1) {
				return nil, fmt.Errorf("builtin template %q: confidence_threshold %v of %s outside 0..1", t.Key, *th, f.DataField)
			}
		}
	}
	return &c, nil
}

// keyPattern is the shape of every key (openapi.yaml's CatalogKey), at most 64 long.
var keyPattern = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// DocumentTypeKeys are the document types' keys in the files' order.
func (c *Catalog) DocumentTypeKeys() []string {
	return keysOf(c.DocumentTypes, func(d DocumentType) string { return d.Key })
}

// DataFieldKeys are the data fields' keys in the files' order.
func (c *Catalog) DataFieldKeys() []string {
	return keysOf(c.DataFields, func(f DataField) string { return f.Key })
}

// CheckKeys are the checks' keys in the files' order.
func (c *Catalog) CheckKeys() []string {
	return keysOf(c.Checks, func(ch Check) string { return ch.Key })
}

// TemplateKeys are the templates' keys in the files' order.
func (c *Catalog) TemplateKeys() []string {
	return keysOf(c.Templates, func(t Template) string { return t.Key })
}

func keysOf[T any](items []T, key func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = key(it)
	}
	return out
}

// Hash identifies the data files' content (test databases are keyed by it).
func Hash() string {
	h := sha256.New()
	for _, name := range fileNames {
		b, _ := files.ReadFile(name)
		h.Write([]byte(name))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
