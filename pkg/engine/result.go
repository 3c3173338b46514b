package engine

import (
	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// Result is the full result of an evaluation (EvaluationResult), in the contract's JSON form.
type Result struct {
	Documents []ResultDocument `json:"documents"`
	Fields    []ResultField    `json:"fields"`
	Checks    []ResultCheck    `json:"checks"`
	Summary   Summary          `json:"summary"`
}

// ResultDocument is how the engine read one input upload.
type ResultDocument struct {
	UploadID       uuid.UUID   `json:"upload_id"`
	FileID         uuid.UUID   `json:"file_id"`
	ExternalFileID string      `json:"external_file_id"`
	DocumentSlotID *uuid.UUID  `json:"document_slot_id"`
	DocumentTypes  []string    `json:"document_types"`
	Readability    Readability `json:"readability"`
}

// Readability of a document: passed, partial or failed.
type Readability struct {
	Status string `json:"status"`
}

// ResultField is one data field's value.
type ResultField struct {
	DataFieldID string              `json:"data_field_id"`
	Key         string              `json:"key"`
	Label       string              `json:"label"`
	Status      string              `json:"status"`
	Value       any                 `json:"value"`
	Confidence  float64             `json:"confidence"`
	Citations   []evidence.Citation `json:"citations"`
	// Source says where Value came from: SourceRules or SourceModel; empty without a value.
	Source string `json:"source,omitempty"`
}

// ResultCheck is one check's verdict.
type ResultCheck struct {
	CheckID          string              `json:"check_id"`
	Key              string              `json:"key"`
	Title            string              `json:"title"`
	Status           string              `json:"status"`
	Confidence       float64             `json:"confidence"`
	Citations        []evidence.Citation `json:"citations"`
	ReasoningSummary string              `json:"reasoning_summary"`
}

// Summary is the evaluation's overall outcome.
type Summary struct {
	Outcome        string `json:"outcome"`
	Recommendation string `json:"recommendation"`
	RiskBand       string `json:"risk_band"`
}

// Readability statuses.
const (
	ReadabilityPassed  = "passed"
	ReadabilityPartial = "partial"
	ReadabilityFailed  = "failed"
)

// Field statuses.
const (
	FieldSucceeded     = "succeeded"
	FieldLowConfidence = "low_confidence"
	FieldNotFound      = "not_found"
	FieldFailed        = "failed"
)

// Check verdicts: a fixed vocabulary.
const (
	Fulfilled     = "fulfilled"
	Open          = "open"
	Critical      = "critical"
	NotApplicable = "not_applicable"
	Failed        = "failed"
)

// Summary values.
const (
	OutcomePassed           = "passed"
	OutcomeActionRequired   = "action_required"
	OutcomeCriticalFindings = "critical_findings"
	OutcomeUncertain        = "outcome_uncertain"

	RecommendProceed          = "proceed"
	RecommendRequestDocuments = "request_documents"
	RecommendManualReview     = "manual_review"
	RecommendUnknown          = "unknown"

	RiskLow     = "low"
	RiskMedium  = "medium"
	RiskHigh    = "high"
	RiskUnknown = "unknown"
)
