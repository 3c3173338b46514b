package submission

import "github.com/google/uuid"

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
