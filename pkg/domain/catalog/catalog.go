// Package catalog holds the catalog (checks, data fields, document types) and
// templates, which list catalog entries as items: their types (Entry, Template with its
// TemplateItems, the Bundle of items a new template lists), the families, what a
// version of an entry holds, and the refusals of writes (builtin entries are read-only,
// archived ones are frozen, template writes name the revision they change, items
// reference live entries once). pkg/store reads and writes them.
package catalog

import (
	"errors"
	"slices"
)

// Family is one of the three catalog families.
type Family string

const (
	FamilyCheck        Family = "check"
	FamilyDataField    Family = "data_field"
	FamilyDocumentType Family = "document_type"
)

// Content is what a version of a catalog entry holds. Name is a check's title or a data
// field's or document type's display name.
type Content struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Prompt       *string  `json:"prompt,omitempty"`
	Category     string   `json:"category"`
	ProductTypes []string `json:"product_types"`
	ValueFormat  *string  `json:"value_format,omitempty"`
}

// Equal reports whether two contents are the same (no new version needed).
func (c Content) Equal(o Content) bool {
	return c.Name == o.Name && c.Description == o.Description && eqPtr(c.Prompt, o.Prompt) &&
		c.Category == o.Category && slices.Equal(c.ProductTypes, o.ProductTypes) && eqPtr(c.ValueFormat, o.ValueFormat)
}

func eqPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// Refusals of catalog and template writes. ErrReadOnly and ErrArchived refuse the path's
// id, so the edge names that field.
var (
	ErrReadOnly         = errors.New("builtin entries are read-only; duplicate a builtin template to customize it")
	ErrArchived         = errors.New("this entry is archived; archived entries can be read but not changed or used")
	ErrRevisionMismatch = errors.New("expected_revision is not the template's current revision; re-read the template, reapply the change and retry")
)

// CheckWritable refuses a write to a builtin entry or template, and to an archived one.
func CheckWritable(builtin, archived bool) error {
	switch {
	case builtin:
		return ErrReadOnly
	case archived:
		return ErrArchived
	}
	return nil
}

// CheckRevision refuses a template write whose expected revision is not the current one.
func CheckRevision(current, expected int) error {
	if current != expected {
		return ErrRevisionMismatch
	}
	return nil
}
