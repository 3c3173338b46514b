// Package jobs defines, in one place, the messages the services hand each other through
// the outbox: each one's subject and payload. It imports no queue client, so the
// database layer writes them to the outbox without depending on NATS; pkg/messaging
// carries them and the workers read them.
//
// Payloads carry ids only: consumers read the current state from PostgreSQL, so a
// redelivered or late message never acts on stale data.
package jobs

import (
	"strings"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/events"
)

// Subjects.
const (
	// EventSubjectPrefix + event type, e.g. "doceval.events.file.ready".
	EventSubjectPrefix = "doceval.events."
	// SubjectPrefix starts the subject of every job below.
	SubjectPrefix = "doceval.jobs."
	// IngestSubject carried the ingest jobs enqueued before each API client had its own
	// queue (IngestQueue); they are still consumed.
	IngestSubject = SubjectPrefix + "ingest"
	// EvaluateSubject is IngestSubject's counterpart for evaluation jobs.
	EvaluateSubject = SubjectPrefix + "evaluate"
	// QueueSubjectPrefix starts the subjects of the per-client job queues:
	// QueueSubjectPrefix + queue + "." + API client id.
	QueueSubjectPrefix = "doceval.queue."
	// PurgeSubject asks for one submission's data to be purged.
	PurgeSubject = SubjectPrefix + "purge"
	// BlobDeleteSubject asks for the stored bytes of a deleted upload to be removed.
	BlobDeleteSubject = SubjectPrefix + "blob-delete"
)

// Per-client job queues: each API client's jobs of a kind go on a subject of their own,
// so a worker can take the next job of any client, not only the oldest of all.
const (
	// IngestQueue asks ingest to process one upload.
	IngestQueue = "ingest"
	// EvaluateQueue asks the evaluator to run one evaluation.
	EvaluateQueue = "evaluate"
)

// QueueSubject is the subject of client's jobs in queue.
func QueueSubject(queue string, client uuid.UUID) string {
	return QueueSubjectPrefix + queue + "." + client.String()
}

// QueueSubjects is the wildcard subject of every client's jobs in queue.
func QueueSubjects(queue string) string { return QueueSubjectPrefix + queue + ".*" }

// SubjectTemplate is subject with a per-client queue's client id as "*": the name of
// its destination where one per client would be too many (span names, metrics).
func SubjectTemplate(subject string) string {
	rest, ok := strings.CutPrefix(subject, QueueSubjectPrefix)
	if !ok {
		return subject
	}
	queue, _, ok := strings.Cut(rest, ".")
	if !ok {
		return subject
	}
	return QueueSubjects(queue)
}

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

// IngestJob asks for one upload to be processed. APIClientID names whose work it is: the
// job goes on that client's queue (messaging.ConsumeFair).
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

// Subject is the client's subject in IngestQueue.
func (j IngestJob) Subject() string { return QueueSubject(IngestQueue, j.APIClientID) }

// Subject is the client's subject in EvaluateQueue.
func (j EvaluateJob) Subject() string { return QueueSubject(EvaluateQueue, j.APIClientID) }

// Subject is PurgeSubject.
func (PurgeJob) Subject() string { return PurgeSubject }

// Subject is BlobDeleteSubject.
func (BlobDeleteJob) Subject() string { return BlobDeleteSubject }
