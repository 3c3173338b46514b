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
	// JobsStream carries work for the ingest and evaluator services and the purger.
	JobsStream = "DOCEVAL_JOBS"
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
	return []jetstream.StreamConfig{
		{
			Name:        EventsStream,
			Description: "doceval event-log entries for webhook delivery",
			Subjects:    []string{jobs.EventSubjectPrefix + ">"},
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      7 * 24 * time.Hour,
			Storage:     jetstream.FileStorage,
			Duplicates:  DuplicateWindow,
			Replicas:    replicas,
		},
		{
			Name:        JobsStream,
			Description: "doceval background jobs: ingest, evaluate, purge",
			Subjects:    []string{jobs.SubjectPrefix + ">"},
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      7 * 24 * time.Hour,
			Storage:     jetstream.FileStorage,
			Duplicates:  DuplicateWindow,
			Replicas:    replicas,
		},
	}
}
