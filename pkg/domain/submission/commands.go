package submission

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/domain/catalog"
)

// New is what createSubmission asks for.
type New struct {
	ExternalID string
	// TemplateRef is a builtin key, custom UUID or key; empty means the client's default.
	TemplateRef string
	Metadata    json.RawMessage
	Language    string
	Extra       []catalog.ItemInput
}

// NewUpload is a file whose bytes are stored, to be recorded (uploadFile).
type NewUpload struct {
	SubmissionID   uuid.UUID
	SlotID         *uuid.UUID
	ExternalFileID string
	FileID         uuid.UUID
	Filename       string
	ContentType    string
	Size           int64
	SHA256         []byte
	BlobKey        string
}

// Decision is what an advisor decides on a slot; an empty Decision clears the one that
// stands.
type Decision struct {
	ClientID     uuid.UUID // the submission's API client
	SubmissionID uuid.UUID
	SlotID       uuid.UUID
	Decision     string
	Reason       string
}
