package jobs_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
)

// Each message goes on its own subject with the payload consumers decode; outbox rows
// and stream messages written before a change must still read the same.
func TestMessagesKnowTheirSubjectAndPayload(t *testing.T) {
	t.Parallel()
	id := uuid.MustParse("0190a1b2-0000-7000-8000-000000000001")
	client := uuid.MustParse("0190a1b2-0000-7000-8000-000000000002")
	for _, c := range []struct {
		msg           jobs.Message
		subject, body string
	}{
		{jobs.EventPublished{EventID: id, Type: events.FileReady}, "doceval.events.file.ready", `{"event_id":"` + id.String() + `"}`},
		{jobs.IngestJob{UploadID: id, APIClientID: client}, "doceval.queue.ingest." + client.String(), `{"upload_id":"` + id.String() + `","api_client_id":"` + client.String() + `"}`},
		{jobs.EvaluateJob{EvaluationID: id, APIClientID: client}, "doceval.queue.evaluate." + client.String(), `{"evaluation_id":"` + id.String() + `","api_client_id":"` + client.String() + `"}`},
		{jobs.PurgeJob{SubmissionID: id}, "doceval.jobs.purge", `{"submission_id":"` + id.String() + `"}`},
		{jobs.BlobDeleteJob{Key: "k"}, "doceval.jobs.blob-delete", `{"key":"k"}`},
		{jobs.BlobDeleteJob{Key: "k", Prefix: "p/"}, "doceval.jobs.blob-delete", `{"key":"k","prefix":"p/"}`},
	} {
		body, err := json.Marshal(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		if c.msg.Subject() != c.subject || string(body) != c.body {
			t.Errorf("%T: subject %q, payload %s; want %q, %s", c.msg, c.msg.Subject(), body, c.subject, c.body)
		}
	}
}

// A per-client queue's subjects share one template; other subjects are their own.
func TestSubjectTemplate(t *testing.T) {
	t.Parallel()
	client := uuid.New()
	for subject, want := range map[string]string{
		jobs.QueueSubject(jobs.IngestQueue, client):   "doceval.queue.ingest.*",
		jobs.QueueSubject(jobs.EvaluateQueue, client): "doceval.queue.evaluate.*",
		jobs.PurgeSubject: jobs.PurgeSubject,
		"doceval.queue.":  "doceval.queue.",
	} {
		if got := jobs.SubjectTemplate(subject); got != want {
			t.Errorf("SubjectTemplate(%q) = %q, want %q", subject, got, want)
		}
	}
}
