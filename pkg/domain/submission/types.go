package submission

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Submission is a credit submission of one client.
type Submission struct {
	ID         uuid.UUID
	ClientID   uuid.UUID
	DisplayID  string
	ExternalID string
	TemplateID string
	Language   string
	Metadata   json.RawMessage
	Status     string
	Purging    bool
	Snapshot   Snapshot
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Slot is a document slot of a submission.
type Slot struct {
	ID                 uuid.UUID
	Position           int
	Key                string
	Label              string
	Description        string
	DocumentTypeID     string
	Required           bool
	AllowMultipleFiles bool
	Extra              bool
	Status             string
	// Review is the advisor decision that stands on the slot (SlotReview), nil when none.
	// Who decided is kept in the row (review_operator_id) and the audit log, never here.
	Review *SlotReview
}

// SlotReview is an advisor's decision on a slot, as partners see it.
type SlotReview struct {
	Decision  string    `json:"decision"`
	Reason    *string   `json:"reason"`
	DecidedAt time.Time `json:"decided_at"`
}

// SlotWithUploads is a slot and the uploads assigned to it, newest first.
type SlotWithUploads struct {
	Slot
	Uploads []Upload
}

// Upload is a file uploaded to a submission. Its JSON form is the spec's Upload as
// events carry it; the fields tagged "-" are the service's own.
type Upload struct {
	ID                   uuid.UUID      `json:"id"`
	ExternalFileID       string         `json:"external_file_id"`
	Status               string         `json:"upload_status"`
	FileID               uuid.UUID      `json:"file_id"`
	SlotID               *uuid.UUID     `json:"document_slot_id"`
	Filename             string         `json:"filename"`
	ContentType          string         `json:"content_type"`
	Failure              *UploadFailure `json:"failure"`
	CreatedAt            time.Time      `json:"created_at"`
	SubmissionID         uuid.UUID      `json:"submission_id"`
	ExternalSubmissionID string         `json:"external_submission_id,omitempty"`

	ClientID  uuid.UUID `json:"-"`
	Size      int64     `json:"-"`
	SHA256    []byte    `json:"-"`
	BlobKey   string    `json:"-"`
	PageCount *int      `json:"-"`
	UpdatedAt time.Time `json:"-"`
}

// UploadFailure says why processing failed.
type UploadFailure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SlotJSONForm is a document slot as events carry it (DocumentSlot).
type SlotJSONForm struct {
	ID       uuid.UUID   `json:"id"`
	Key      string      `json:"key"`
	Label    string      `json:"label"`
	Required bool        `json:"required"`
	Status   string      `json:"status"`
	Review   *SlotReview `json:"review"`
	Uploads  []Upload    `json:"uploads"`
}

// SlotJSON renders a slot with its uploads.
func SlotJSON(s Slot, uploads []Upload) SlotJSONForm {
	return SlotJSONForm{ID: s.ID, Key: s.Key, Label: s.Label, Required: s.Required, Status: s.Status, Review: s.Review, Uploads: uploads}
}

// SlotUpdatedData is the data of document_slot.updated.
type SlotUpdatedData struct {
	DocumentSlot         SlotJSONForm `json:"document_slot"`
	PreviousStatus       string       `json:"previous_status"`
	SubmissionID         uuid.UUID    `json:"submission_id"`
	ExternalSubmissionID string       `json:"external_submission_id"`
}

// FileEventData is the data of file.ready and file.failed.
type FileEventData struct {
	Upload Upload `json:"upload"`
}
