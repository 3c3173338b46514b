package engine

import (
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// Input is everything one evaluation reads: the template snapshot's items, the input
// documents with their page text, and the date the evaluation judges against.
type Input struct {
	Language     string // "de" or "en": the language of reasoning summaries
	Date         time.Time
	Template     string // template key, e.g. personal_real_estate_financing
	Requirements []Requirement
	Checks       []CheckSpec
	Fields       []FieldSpec
	Documents    []*evidence.Document
}

// Requirement is a document requirement of the template (or an extra one).
type Requirement struct {
	Type     string // document type key
	Required bool
}

// CheckSpec is a check item of the template.
type CheckSpec struct {
	ID          string // public id: builtin key or custom UUID
	Key         string
	Title       string
	Description string
	Prompt      string // custom checks: the reviewer instruction
	Builtin     bool
}

// FieldSpec is a data-field item of the template.
type FieldSpec struct {
	ID          string
	Key         string
	Label       string
	Prompt      string
	ValueFormat string // "" (free text), currency, years, percent, square_meters, date
	Builtin     bool
	Required    bool
	Threshold   float64 // confidence_threshold of the item
}

// Progress reports a stage and percentage; an error (the evaluation was canceled)
// stops the engine, which returns it.
type Progress func(stage string, percent int) error
