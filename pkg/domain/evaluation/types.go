package evaluation

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Evaluation is an evaluation of a submission. Its JSON form is the spec's Evaluation as
// responses and events carry it; the fields tagged "-" are the service's own.
type Evaluation struct {
	ID                   uuid.UUID       `json:"id"`
	Kind                 string          `json:"kind"`
	Status               string          `json:"status"`
	StageLabel           string          `json:"stage_label"`
	ProgressPercent      int             `json:"progress_percent"`
	InputFileIDs         []uuid.UUID     `json:"input_file_ids"`
	Failure              *Failure        `json:"failure,omitempty"`
	StartedAt            *time.Time      `json:"started_at,omitempty"`
	FinishedAt           *time.Time      `json:"finished_at,omitempty"`
	Result               json.RawMessage `json:"result,omitempty"`
	SubmissionID         uuid.UUID       `json:"submission_id"`
	ExternalSubmissionID string          `json:"external_submission_id"`

	ClientID       uuid.UUID   `json:"-"`
	InputUploadIDs []uuid.UUID `json:"-"`
	Attempts       int         `json:"-"`
	// ProgressEmittedAt is when evaluation.progress was last emitted, so the next one
	// waits out the throttle.
	ProgressEmittedAt *time.Time `json:"-"`
	CreatedAt         time.Time  `json:"-"`
	UpdatedAt         time.Time  `json:"-"`
}

// Failure says why an evaluation failed.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// EventData is the data of the evaluation.* events.
type EventData struct {
	Evaluation Evaluation `json:"evaluation"`
}
