// Package messaging defines, in one place, the JetStream streams, subjects and payload
// types the services exchange. Messages are published only by the outbox relay; each
// message id is the id of its outbox row, so JetStream drops duplicate publishes.
package messaging

import (
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// Streams.
const (
	// EventsStream carries one message per event-log entry, for the dispatcher.
	EventsStream = "DOCEVAL_EVENTS"
	// JobsStream carries work for the ingest and evaluator services and the purger.
	JobsStream = "DOCEVAL_JOBS"
)

// Subjects.
const (
	// EventSubjectPrefix + event type, e.g. "doceval.events.file.ready".
	EventSubjectPrefix = "doceval.events."
	// IngestSubject asks ingest to process one upload.
	IngestSubject = "doceval.jobs.ingest"
	// EvaluateSubject asks the evaluator to run one evaluation.
	EvaluateSubject = "doceval.jobs.evaluate"
	// PurgeSubject asks for one submission's data to be purged.
	PurgeSubject = "doceval.jobs.purge"
	// BlobDeleteSubject asks for the stored bytes of a deleted upload to be removed.
	BlobDeleteSubject = "doceval.jobs.blob-delete"
)

// DuplicateWindow is how long JetStream remembers message ids. A relay that dies after
// publishing and before deleting its outbox rows republishes them on restart; inside
// this window JetStream drops them, and consumers are idempotent for the rest.
const DuplicateWindow = 30 * time.Minute

// Payloads. They carry ids only: consumers read the current state from PostgreSQL, so
// a redelivered or late message never acts on stale data.

// EventPublished announces an event-log entry.
type EventPublished struct {
	EventID uuid.UUID `json:"event_id"`
}

// IngestJob asks for one upload to be processed. APIClientID names whose work it is,
// for fair scheduling (ClientLimit); zero in jobs enqueued before it was added.
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

// StreamConfigs are the streams every service ensures at start-up.
func StreamConfigs(replicas int) []jetstream.StreamConfig {
	if replicas < 1 {
		replicas = 1
	}
	return []jetstream.StreamConfig{
		{
			Name:        EventsStream,
			Description: "doceval event-log entries for webhook delivery",
			Subjects:    []string{EventSubjectPrefix + ">"},
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      7 * 24 * time.Hour,
			Storage:     jetstream.FileStorage,
			Duplicates:  DuplicateWindow,
			Replicas:    replicas,
		},
		{
			Name:        JobsStream,
			Description: "doceval background jobs: ingest, evaluate, purge",
			Subjects:    []string{"doceval.jobs.>"},
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      7 * 24 * time.Hour,
			Storage:     jetstream.FileStorage,
			Duplicates:  DuplicateWindow,
			Replicas:    replicas,
		},
	}
}
