package partnercli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
	"github.com/doceval/doceval/services/doceval/partnercli"
)

// The partner's main path: create a submission, upload a PDF (twice: the second run
// resumes through the external file id), evaluate with --wait while the test plays the
// evaluator, and find evaluation.completed among the events.
func TestCreateUploadEvaluateEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	api := newRealAPI(t)

	// An endpoint, so events have deliveries to redeliver.
	var endpoint client.WebhookEndpointWithSecret
	decode(t, api.mustRun(t, "webhooks", "create", "--url", "https://example.com/hooks", "--json"), &endpoint)

	var sub client.Submission
	decode(t, api.mustRun(t, "submissions", "create", "--external-id", "case-1", "--language", "de",
		"--metadata", `{"crm":"A-7"}`, "--json"), &sub)
	if sub.ExternalSubmissionId != "case-1" || sub.Metadata["crm"] != "A-7" {
		t.Fatalf("created %+v", sub)
	}

	pdf := filepath.Join(t.TempDir(), "statement.pdf")
	if err := os.WriteFile(pdf, samplepdf.Text([][]string{{"Kontoauszug Nr. 3"}}), 0o600); err != nil {
		t.Fatal(err)
	}
	var up, again client.Upload
	first := api.run(t, "files", "upload", sub.Id.String(), pdf, "--json")
	if first.code != 0 || first.stderr != "" {
		t.Fatalf("upload: exit %d, stderr %q (no progress bar when stderr is not a terminal)", first.code, first.stderr)
	}
	decode(t, first.stdout, &up)
	decode(t, api.mustRun(t, "--json", "files", "upload", sub.Id.String(), pdf), &again)
	if up.ExternalFileId != "statement.pdf" || up.ContentType != "application/pdf" || again.Id != up.Id {
		t.Fatalf("uploads %+v then %+v", up, again)
	}
	// No ingest worker runs here; finish the ingest as it would.
	if err := api.store.FinishIngest(ctx, up.Id, []document.Page{{Number: 1, Text: "Kontoauszug Nr. 3", Chars: 17}}, nil, nil); err != nil {
		t.Fatal(err)
	}

	// Run `evaluations start --wait` and play the evaluator while it polls.
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- partnercli.Run(ctx, []string{"evaluations", "start", sub.Id.String(), "--wait", "--interval", "20ms"}, partnercli.Streams{Stdout: &stdout, Stderr: stderr}, api.env())
	}()
	evaluationID := waitForEvaluation(t, api, sub.Id)
	if _, err := api.store.BeginEvaluation(ctx, evaluationID, 3); err != nil {
		t.Fatal(err)
	}
	if err := api.store.EvaluationProgress(ctx, evaluationID, "Checking documents", 60, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "progress 60% printed", func() bool { return strings.Contains(stderr.String(), "60%") })
	result := `{"documents":[],"summary":{"outcome":"passed","recommendation":"proceed","risk_band":"low"},
		"checks":[{"check_id":"chk_1","key":"iban_matches","title":"IBAN matches","status":"fulfilled","confidence":0.93,"reasoning_summary":"same IBAN","citations":[]}],
		"fields":[{"data_field_id":"df_1","key":"account_holder","label":"Account holder","status":"succeeded","confidence":0.9,"value":"Erika Mustermann","citations":[]}]}`
	if err := api.store.CompleteEvaluation(ctx, evaluationID, json.RawMessage(result)); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("evaluations start --wait: exit %d, stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("evaluations start --wait did not return")
	}
	for _, want := range []string{"completed", "passed", "proceed", "iban_matches", "fulfilled", "0.93", "account_holder", "Erika Mustermann"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("result table lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "Checking documents") {
		t.Errorf("no live progress on stderr: %s", stderr.String())
	}

	// The table and the JSON both show evaluation.completed for this submission.
	table := api.mustRun(t, "events", "list", "--type", "evaluation.completed", "--submission", sub.Id.String())
	if !strings.Contains(table, "evaluation.completed") || !strings.Contains(table, evaluationID.String()) {
		t.Errorf("events table:\n%s", table)
	}
	var evs []client.Event
	decode(t, api.mustRun(t, "events", "list", "--submission", sub.Id.String(), "--json"), &evs)
	var completed *client.Event
	for i := range evs {
		if evs[i].Type == client.EventTypeEvaluationCompleted {
			completed = &evs[i]
		}
	}
	if completed == nil {
		t.Fatalf("no evaluation.completed in %d events", len(evs))
	}
	var detail client.EventDetail
	decode(t, api.mustRun(t, "events", "get", completed.Id, "--json"), &detail)
	if detail.Id != completed.Id || detail.Type != client.EventTypeEvaluationCompleted {
		t.Errorf("events get: %+v", detail)
	}

	// Deliveries are made by the dispatcher, which does not run here: redelivery
	// answers 422, and the CLI shows the code, the param and the request id.
	r := api.run(t, "events", "redeliver", completed.Id, "--endpoint", endpoint.Id.String())
	if r.code != partnercli.ExitError || !strings.Contains(r.stderr, "invalid_field") || !strings.Contains(r.stderr, "param:      endpoint_id") ||
		!strings.Contains(r.stderr, "request id: req_") {
		t.Errorf("redeliver without deliveries: exit %d, stderr %s", r.code, r.stderr)
	}
	if out := api.mustRun(t, "events", "get", completed.Id); !strings.Contains(out, "evaluation.completed") || !strings.Contains(out, "deliveries:") {
		t.Errorf("events get table:\n%s", out)
	}

	var ev client.Evaluation
	decode(t, api.mustRun(t, "evaluations", "get", sub.Id.String(), evaluationID.String(), "--json"), &ev)
	if ev.Status != client.EvaluationStatusCompleted || ev.Result == nil || len(ev.Result.Checks) != 1 {
		t.Errorf("evaluations get: %+v", ev)
	}
}

// waitForEvaluation polls until the submission has an evaluation and returns its id.
func waitForEvaluation(t *testing.T, api *realAPI, submissionID uuid.UUID) uuid.UUID {
	t.Helper()
	c, err := sdk.New(api.url, api.key)
	if err != nil {
		t.Fatal(err)
	}
	var id uuid.UUID
	waitFor(t, "evaluation started", func() bool {
		d, err := c.GetSubmission(context.Background(), submissionID)
		if err != nil {
			t.Fatal(err)
		}
		if d.LatestEvaluation != nil {
			id = d.LatestEvaluation.Id
		}
		return id != uuid.Nil
	})
	return id
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// decode parses a command's --json output, failing the test when it is not JSON.
func decode(t *testing.T, out string, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), into); err != nil {
		t.Fatalf("output is not the expected JSON: %v\n%s", err, out)
	}
}
