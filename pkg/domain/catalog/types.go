package catalog

import (
	"time"

	"github.com/google/uuid"
)

// Entry is a check, data field or document type at its current version.
type Entry struct {
	ID        uuid.UUID
	Family    Family
	ClientID  *uuid.UUID // nil: builtin
	Key       string
	Version   int
	Archived  bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Content
}

// Builtin reports whether the entry is part of the builtin catalog.
func (e Entry) Builtin() bool { return e.ClientID == nil }

// PublicID is the id clients see: the key of a builtin, the UUID of a custom entry.
func (e Entry) PublicID() string { return publicID(e.ClientID, e.Key, e.ID) }

// Template is a builtin or custom template without its items.
type Template struct {
	ID          uuid.UUID
	ClientID    *uuid.UUID
	Key         string
	DisplayName string
	// IsDefault is the client's view: its custom default, or the builtin default when it
	// has none.
	IsDefault bool
	Revision  int
	Archived  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Builtin reports whether the template is builtin.
func (t Template) Builtin() bool { return t.ClientID == nil }

// PublicID is the key of a builtin template, the UUID of a custom one.
func (t Template) PublicID() string { return publicID(t.ClientID, t.Key, t.ID) }

func publicID(client *uuid.UUID, key string, id uuid.UUID) string {
	if client == nil {
		return key
	}
	return id.String()
}

// TemplateItem is one item of a template with its entry at the entry's current version.
type TemplateItem struct {
	Entry              Entry
	Required           bool
	AllowMultipleFiles bool
	Label              *string // requirement override of the document type's name
	Description        *string // requirement override of the document type's description
	// ConfidenceThreshold of a data-field item.
	ConfidenceThreshold float64
}

// TemplateDetail is a template with its three lists in display order.
type TemplateDetail struct {
	Template
	DocumentRequirements []TemplateItem
	Checks               []TemplateItem
	DataFields           []TemplateItem
}

// Bundle holds the item lists of a template create (createTemplate).
type Bundle struct {
	DocumentRequirements []ItemInput
	Checks               []ItemInput
	DataFields           []ItemInput
}
