package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/evaluation"
)

// readyUpload uploads a file and finishes its ingest with one page of text.
func (e *testEnv) readyUpload(c *client.ClientWithResponses, sub uuid.UUID, externalID string) client.Upload {
	e.t.Helper()
	up := e.upload(c, sub, nil, fileParts(externalID, externalID+".pdf", "application/pdf", pdfBytes)...)
	expect(e.t, nil, up.StatusCode(), up.Body, 202)
	if err := e.store.FinishIngest(context.Background(), up.JSON202.Id, []document.Page{{Number: 1, Text: "Kontoauszug Nr. 3", Chars: 15}}, nil, nil); err != nil {
		e.t.Fatal(err)
	}
	return *up.JSON202
}

// eventsOf lists the client's events of one type for a submission, oldest first.
func eventsOf(t *testing.T, c *client.ClientWithResponses, sub uuid.UUID, typ string) []evaluation.EventData {
	t.Helper()
	res, err := c.ListEventsWithResponse(context.Background(), &client.ListEventsParams{Type: ptr(client.EventType(typ)), SubmissionId: &sub})
	expect(t, err, res.StatusCode(), res.Body, 200)
	out := make([]evaluation.EventData, len(res.JSON200.Data))
	for i, ev := range res.JSON200.Data {
		raw, _ := json.Marshal(ev.Data)
		if err := json.Unmarshal(raw, &out[len(out)-1-i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// queuedEvaluation creates a submission with one ready upload and starts its
// evaluation through the API.
func (e *testEnv) queuedEvaluation(c *client.ClientWithResponses, externalID string) (client.Submission, uuid.UUID) {
	e.t.Helper()
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: externalID})
	e.readyUpload(c, sub.Id, "r")
	res, err := c.StartEvaluationWithResponse(context.Background(), sub.Id, nil)
	expect(e.t, err, res.StatusCode(), res.Body, 202)
	return sub, res.JSON202.Id
}

func (e *testEnv) submissionStatus(c *client.ClientWithResponses, sub uuid.UUID) (string, *client.Evaluation) {
	e.t.Helper()
	d, err := c.GetSubmissionWithResponse(context.Background(), sub)
	expect(e.t, err, d.StatusCode(), d.Body, 200)
	return string(d.JSON200.Status), d.JSON200.LatestEvaluation
}

// Starting needs a ready upload, answers the queued evaluation over the ready uploads
// only, moves the submission to evaluating, and refuses a second active evaluation.
func TestEvaluationStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "eval-start"})

	processing := e.upload(c, sub.Id, nil, fileParts("p", "p.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, processing.StatusCode(), processing.Body, 202)
	res, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
	expect(t, err, res.StatusCode(), res.Body, 422)
	wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidRequest)

	ready := e.readyUpload(c, sub.Id, "r")
	res, err = c.StartEvaluationWithResponse(ctx, sub.Id, nil)
	expect(t, err, res.StatusCode(), res.Body, 202)
	ev := res.JSON202
	if ev.Status != "queued" || ev.Kind != "basic" || ev.ProgressPercent != 0 || len(ev.InputFileIds) != 1 || ev.InputFileIds[0] != ready.FileId || ev.Result != nil {
		t.Fatalf("started evaluation: %s", res.Body)
	}
	status, latest := e.submissionStatus(c, sub.Id)
	if status != "evaluating" || latest == nil || latest.Id != ev.Id {
		t.Fatalf("submission %s, latest %+v", status, latest)
	}
	again, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
	expect(t, err, again.StatusCode(), again.Body, 409)
	wantError(t, again.HTTPResponse, again.Body, 409, client.ErrorCodeEvaluationInProgress)

	// Uploads cannot move or go while it is active.
	move, err := c.UpdateUploadWithResponse(ctx, sub.Id, ready.Id, client.UpdateUploadRequest{DocumentSlotId: nil})
	expect(t, err, move.StatusCode(), move.Body, 409)
	wantError(t, move.HTTPResponse, move.Body, 409, client.ErrorCodeEvaluationInProgress)
	del, err := c.DeleteUploadWithResponse(ctx, sub.Id, ready.Id)
	expect(t, err, del.StatusCode(), del.Body, 409)

	// The database refuses a second active evaluation whatever the caller read before.
	_, err = e.store.Pool().Exec(ctx, `INSERT INTO evaluations (id, submission_id, api_client_id, kind, status, stage_label,
		progress_percent, input_upload_ids, input_file_ids, created_at, updated_at)
		SELECT $1, submission_id, api_client_id, kind, 'queued', 'x', 0, input_upload_ids, input_file_ids, now(), now()
		FROM evaluations WHERE id = $2`, uuid.New(), ev.Id)
	if err == nil {
		t.Fatal("a second active evaluation was inserted")
	}

	// Another client sees nothing.
	_, otherKey := e.newClient()
	other, err := e.client(otherKey).GetEvaluationWithResponse(ctx, sub.Id, ev.Id)
	expect(t, err, other.StatusCode(), other.Body, 404)
	start, err := e.client(otherKey).StartEvaluationWithResponse(ctx, sub.Id, nil)
	expect(t, err, start.StatusCode(), start.Body, 404)
}

// Concurrent starts give exactly one evaluation.
func TestEvaluationStartConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "eval-race"})
	e.readyUpload(c, sub.Id, "r")
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Go(func() {
			res, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
			if err != nil {
				t.Error(err)
				return
			}
			codes[i] = res.StatusCode()
		})
	}
	wg.Wait()
	accepted := 0
	for _, code := range codes {
		switch code {
		case 202:
			accepted++
		case 409:
		default:
			t.Errorf("status %d", code)
		}
	}
	var n int
	if err := e.store.Pool().QueryRow(ctx, "SELECT count(*) FROM evaluations WHERE submission_id = $1", sub.Id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if accepted != 1 || n != 1 {
		t.Errorf("%d accepted, %d stored; want 1 and 1", accepted, n)
	}
}

// The evaluator's steps: started, throttled progress, completed with the result; the
// submission follows; a new evaluation supersedes the old (409 analysis_outdated); a
// failed one fills failure and fails the submission.
func TestEvaluationLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub, first := e.queuedEvaluation(c, "eval-life")

	run, err := e.store.BeginEvaluation(ctx, first, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Inputs) != 1 || run.Inputs[0].Pages[0].Text != "Kontoauszug Nr. 3" || len(run.Slots) == 0 {
		t.Fatalf("inputs: %+v", run)
	}
	// A redelivery takes the running evaluation over without a second started event.
	if _, err := e.store.BeginEvaluation(ctx, first, 3); err != nil {
		t.Fatal(err)
	}
	if n := len(eventsOf(t, c, sub.Id, "evaluation.started")); n != 1 {
		t.Errorf("%d evaluation.started events, want 1", n)
	}
	for i := range 3 {
		if err := e.store.EvaluationProgress(ctx, first, "Reading", 10*(i+1), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	progress := eventsOf(t, c, sub.Id, "evaluation.progress")
	if len(progress) != 1 || progress[0].Evaluation.ProgressPercent != 10 || progress[0].Evaluation.ExternalSubmissionID != "eval-life" {
		t.Errorf("throttled progress events: %+v", progress)
	}
	got, err := c.GetEvaluationWithResponse(ctx, sub.Id, first)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if got.JSON200.Status != "running" || got.JSON200.ProgressPercent != 30 || got.JSON200.StageLabel != "Reading" || got.JSON200.StartedAt == nil {
		t.Errorf("running evaluation: %s", got.Body)
	}

	result := `{"documents":[],"fields":[],"checks":[],"summary":{"outcome":"passed","recommendation":"proceed","risk_band":"low"}}`
	if err := e.store.CompleteEvaluation(ctx, first, json.RawMessage(result)); err != nil {
		t.Fatal(err)
	}
	if err := e.store.CompleteEvaluation(ctx, first, json.RawMessage(result)); !errors.Is(err, evaluation.ErrOver) {
		t.Errorf("completing twice: %v", err)
	}
	got, err = c.GetEvaluationWithResponse(ctx, sub.Id, first)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if got.JSON200.Status != "completed" || got.JSON200.Result == nil || got.JSON200.Result.Summary.Outcome != "passed" ||
		got.JSON200.ProgressPercent != 100 || got.JSON200.FinishedAt == nil {
		t.Errorf("completed evaluation: %s", got.Body)
	}
	if status, latest := e.submissionStatus(c, sub.Id); status != "completed" || latest.Id != first || latest.Result == nil {
		t.Errorf("submission %s after completion", status)
	}
	done := eventsOf(t, c, sub.Id, "evaluation.completed")
	if len(done) != 1 || done[0].Evaluation.Status != "completed" || string(done[0].Evaluation.Result) == "" {
		t.Errorf("evaluation.completed: %+v", done)
	}

	// A second evaluation re-evaluates the current uploads and supersedes the first.
	added := e.readyUpload(c, sub.Id, "added")
	res, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
	expect(t, err, res.StatusCode(), res.Body, 202)
	second := res.JSON202.Id
	if ids := res.JSON202.InputFileIds; len(ids) != 2 || ids[1] != added.FileId {
		t.Errorf("the second evaluation's inputs %v do not include the new upload %s", ids, added.FileId)
	}
	old, err := c.GetEvaluationWithResponse(ctx, sub.Id, first)
	expect(t, err, old.StatusCode(), old.Body, 409)
	wantError(t, old.HTTPResponse, old.Body, 409, client.ErrorCodeAnalysisOutdated)
	if _, err := e.store.BeginEvaluation(ctx, second, 3); err != nil {
		t.Fatal(err)
	}
	if err := e.store.FailEvaluation(ctx, second, "processing_error", "boom"); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetEvaluationWithResponse(ctx, sub.Id, second)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if got.JSON200.Status != "failed" || got.JSON200.Failure == nil || got.JSON200.Failure.Code != "processing_error" || got.JSON200.Result != nil {
		t.Errorf("failed evaluation: %s", got.Body)
	}
	if status, _ := e.submissionStatus(c, sub.Id); status != "failed" {
		t.Errorf("submission %s after failure, want failed", status)
	}
	if n := len(eventsOf(t, c, sub.Id, "evaluation.failed")); n != 1 {
		t.Errorf("%d evaluation.failed events", n)
	}
}

// A job that keeps killing its worker ends as failed with a code, never running forever.
func TestEvaluationRepeatedCrashes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub, id := e.queuedEvaluation(c, "eval-crash")
	for range 2 {
		if _, err := e.store.BeginEvaluation(ctx, id, 2); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.store.BeginEvaluation(ctx, id, 2); !errors.Is(err, evaluation.ErrOver) {
		t.Fatalf("third begin with 2 attempts allowed: %v", err)
	}
	got, err := c.GetEvaluationWithResponse(ctx, sub.Id, id)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if got.JSON200.Status != "failed" || got.JSON200.Failure.Code != "evaluation_crashed" {
		t.Errorf("after repeated crashes: %s", got.Body)
	}
	if status, _ := e.submissionStatus(c, sub.Id); status != "failed" {
		t.Errorf("submission %s", status)
	}
}

// Cancel and delete cancel the active evaluation (evaluation.canceled); its result is
// never written afterwards; a canceled submission accepts no evaluation.
func TestEvaluationCanceledWithSubmission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	for _, how := range []string{"cancel", "delete"} {
		sub, id := e.queuedEvaluation(c, "eval-"+how)
		if _, err := e.store.BeginEvaluation(ctx, id, 3); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "cancel":
			r, err := c.CancelSubmissionWithResponse(ctx, sub.Id, nil)
			expect(t, err, r.StatusCode(), r.Body, 200)
		case "delete":
			r, err := c.DeleteSubmissionWithResponse(ctx, sub.Id)
			expect(t, err, r.StatusCode(), r.Body, 202)
		}
		canceled := eventsOf(t, c, sub.Id, "evaluation.canceled")
		if len(canceled) != 1 || canceled[0].Evaluation.ID != id || canceled[0].Evaluation.Status != "canceled" {
			t.Errorf("%s: evaluation.canceled events %+v", how, canceled)
		}
		if err := e.store.EvaluationProgress(ctx, id, "Checks", 80, 0); !errors.Is(err, evaluation.ErrOver) {
			t.Errorf("%s: progress after cancel: %v", how, err)
		}
		if err := e.store.CompleteEvaluation(ctx, id, json.RawMessage(`{}`)); !errors.Is(err, evaluation.ErrOver) {
			t.Errorf("%s: completion after cancel: %v", how, err)
		}
		var status string
		var result []byte
		if err := e.store.Pool().QueryRow(ctx, "SELECT status, result FROM evaluations WHERE id = $1", id).Scan(&status, &result); err != nil {
			t.Fatal(err)
		}
		if status != "canceled" || result != nil {
			t.Errorf("%s: stored %s with result %s", how, status, result)
		}
		if how == "cancel" {
			again, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
			expect(t, err, again.StatusCode(), again.Body, 409)
			wantError(t, again.HTTPResponse, again.Body, 409, client.ErrorCodeSubmissionCanceled)
			got, err := c.GetEvaluationWithResponse(ctx, sub.Id, id)
			expect(t, err, got.StatusCode(), got.Body, 200)
			if got.JSON200.Status != "canceled" || got.JSON200.FinishedAt == nil {
				t.Errorf("canceled evaluation: %s", got.Body)
			}
		} else {
			got, err := c.GetEvaluationWithResponse(ctx, sub.Id, id)
			expect(t, err, got.StatusCode(), got.Body, 409)
			wantError(t, got.HTTPResponse, got.Body, 409, client.ErrorCodePartnerDataPurgeInProgress)
			again, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
			expect(t, err, again.StatusCode(), again.Body, 409)
		}
	}
}
