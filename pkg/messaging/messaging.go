// Package messaging defines, in one place, the JetStream streams that carry the messages
// of pkg/jobs, and consumes them. Messages are published only by the outbox relay; each
// message id is the id of its outbox row, so JetStream drops duplicate publishes.
package messaging

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/jobs"
)

// Streams.
const (
	// EventsStream carries one message per event-log entry, for the dispatcher.
	EventsStream = "DOCEVAL_EVENTS"
	// JobsStream carries the purge and blob-delete jobs, and the ingest and evaluation
	// jobs enqueued before QueuesStream.
	JobsStream = "DOCEVAL_JOBS"
	// QueuesStream holds the per-client job queues (jobs.QueueSubject) as a work queue:
	// a message is removed once acknowledged, so what it holds is exactly the jobs not
	// yet done, and a client's consumer can be removed when idle and made again
	// without replaying anything.
	QueuesStream = "DOCEVAL_QUEUES"
)

// DuplicateWindow is how long JetStream remembers message ids. A relay that dies after
// publishing and before deleting its outbox rows republishes them on restart; inside
// this window JetStream drops them, and consumers are idempotent for the rest.
const DuplicateWindow = 30 * time.Minute

// StreamConfigs are the streams every service ensures at start-up.
func StreamConfigs(replicas int) []jetstream.StreamConfig {
	if replicas < 1 {
		replicas = 1
	}
	stream := func(name, description, subjects string, retention jetstream.RetentionPolicy) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name: name, Description: description, Subjects: []string{subjects}, Retention: retention,
			MaxAge: 7 * 24 * time.Hour, Storage: jetstream.FileStorage, Duplicates: DuplicateWindow, Replicas: replicas,
		}
	}
	return []jetstream.StreamConfig{
		stream(EventsStream, "doceval event-log entries for webhook delivery", jobs.EventSubjectPrefix+">", jetstream.LimitsPolicy),
		stream(JobsStream, "doceval background jobs: ingest, evaluate, purge", jobs.SubjectPrefix+">", jetstream.LimitsPolicy),
		stream(QueuesStream, "doceval ingest and evaluation jobs, one subject per API client", jobs.QueueSubjectPrefix+">", jetstream.WorkQueuePolicy),
	}
}
