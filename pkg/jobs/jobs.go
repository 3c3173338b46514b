// Package jobs defines, in one place, the messages the services hand each other through
// the outbox: each one's subject and payload. It imports no queue client, so the
// database layer writes them to the outbox without depending on NATS; pkg/messaging
// carries them and the workers read them.
//
// Payloads carry ids only: consumers read the current state from PostgreSQL, so a
// redelivered or late message never acts on stale data.
package jobs

import (
	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/events"
)

// Subjects.
const (
	// EventSubjectPrefix + event type, e.g. "doceval.events.file.ready".
	EventSubjectPrefix = "doceval.events."
	// SubjectPrefix starts the subject of every job below.
	SubjectPrefix = "doceval.jobs."
	// IngestSubject asks ingest to process one upload.
	IngestSubject = SubjectPrefix + "ingest"
	// EvaluateSubject asks the evaluator to run one evaluation.
	EvaluateSubject = SubjectPrefix + "evaluate"
	// PurgeSubject asks for one submission's data to be purged.
	PurgeSubject = SubjectPrefix + "purge"
	// BlobDeleteSubject asks for the stored bytes of a deleted upload to be removed.
	BlobDeleteSubject = SubjectPrefix + "blob-delete"
)

// Message is a payload that knows its subject, so a payload is never sent on another
// payload's subject.
type Message interface {
	Subject() string
}

// EventPublished announces an event-log entry to the dispatcher.
type EventPublished struct {
	EventID uuid.UUID `json:"event_id"`
	// Type chooses the subject; the payload does not carry it (the dispatcher reads the
	// event from the log), so it is empty in a received message.
	Type events.Type `json:"-"`
}

// IngestJob asks for one upload to be processed. APIClientID names whose work it is,
// for fair scheduling (messaging.ClientLimit); zero in jobs enqueued before it was added.
type IngestJob struct {
	UploadID    uuid.UUID `json:"upload_id"`
	APIClientID uuid.UUID `json:"api_client_id"`
}

// EvaluateJob asks for one evaluation to be run; APIClientID as in IngestJob.
type EvaluateJob struct {
	EvaluationID uuid.UUID `json:"evaluation_id"`
	APIClientID  uuid.UUID `json:"api_client_id"`
}

// PurgeJob asks for one submission's data to be purged.
type PurgeJob struct {
	SubmissionID uuid.UUID `json:"submission_id"`
}

// BlobDeleteJob asks for one stored object to be removed, and with it every object
// under Prefix (what was derived from it, such as rendered pages), when set. It names
// them because the row that held them is gone.
type BlobDeleteJob struct {
	Key    string `json:"key"`
	Prefix string `json:"prefix,omitempty"`
}

// Subject is EventSubjectPrefix + the event's type.
func (e EventPublished) Subject() string { return EventSubjectPrefix + string(e.Type) }

// Subject is IngestSubject.
func (IngestJob) Subject() string { return IngestSubject }

// Subject is EvaluateSubject.
func (EvaluateJob) Subject() string { return EvaluateSubject }

// Subject is PurgeSubject.
func (PurgeJob) Subject() string { return PurgeSubject }

// Subject is BlobDeleteSubject.
func (BlobDeleteJob) Subject() string { return BlobDeleteSubject }
