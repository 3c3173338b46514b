package sdktest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/sdktest"
)

const pdf = "%PDF-1.7 a payslip"

func upload(t *testing.T, c *sdk.Client, sub uuid.UUID, externalID string, slot *uuid.UUID) *client.Upload {
	t.Helper()
	up, err := c.UploadFile(context.Background(), sub, sdk.UploadParams{
		ExternalFileID: externalID, Filename: externalID + ".pdf", ContentType: "application/pdf",
		Body: strings.NewReader(pdf), SlotID: slot,
	})
	if err != nil {
		t.Fatal(err)
	}
	return up
}

func slotID(t *testing.T, detail *client.SubmissionDetail, key string) uuid.UUID {
	t.Helper()
	for _, s := range detail.DocumentSlots {
		if s.Key == key {
			return s.Id
		}
	}
	t.Fatalf("no slot %s", key)
	return uuid.Nil
}

func eventTypes(t *testing.T, c *sdk.Client, params *client.ListEventsParams) []string {
	t.Helper()
	var types []string
	for ev, err := range c.ListEvents(context.Background(), params) {
		if err != nil {
			t.Fatal(err)
		}
		types = append([]string{string(ev.Type)}, types...) // oldest first
	}
	return types
}

// The partner flow end to end, through the SDK.
func TestSubmitUploadEvaluate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c := srv.Client()

	n := 0
	for tpl, err := range c.ListTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if tpl.Id == "personal_real_estate_financing" && !tpl.IsDefault {
			t.Error("the builtin default is not is_default")
		}
	}
	tpl, err := c.GetTemplate(ctx, "personal_loan")
	if err != nil || n != 2 || len(tpl.DocumentRequirements) != 3 {
		t.Fatalf("%d templates; personal_loan %+v %v", n, tpl, err)
	}
	if _, err := c.GetTemplate(ctx, "no_such_template"); !sdk.IsNotFound(err) {
		t.Errorf("unknown template: %v", err)
	}

	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-1", TemplateId: ptr("personal_loan")})
	if err != nil || sub.Status != client.SubmissionStatusCollectingDocuments || sub.Consistency == nil {
		t.Fatalf("create: %+v %v", sub, err)
	}
	again, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-1"})
	if err != nil || again.Id != sub.Id || again.TemplateId != "personal_loan" {
		t.Errorf("create again: %+v %v", again, err)
	}
	detail, err := c.GetSubmission(ctx, sub.Id)
	if err != nil || len(detail.DocumentSlots) != 3 || detail.DocumentSlots[0].Status != client.DocumentSlotStatusMissing {
		t.Fatalf("detail %+v %v", detail, err)
	}

	idCard := slotID(t, detail, "id_card")
	first := upload(t, c, sub.Id, "id-front", &idCard)
	second := upload(t, c, sub.Id, "payslip-1", nil)
	if first.UploadStatus != client.UploadStatusProcessing || *first.DocumentSlotId != idCard {
		t.Errorf("upload answered %+v", first)
	}
	if same := upload(t, c, sub.Id, "id-front", nil); same.Id != first.Id {
		t.Errorf("the same external_file_id made upload %v", same.Id)
	}
	uploads, err := c.WaitForUploads(ctx, sub.Id, nil, sdk.WaitUploadsOptions{Interval: time.Millisecond})
	if err != nil || len(uploads) != 2 || uploads[0].Id != second.Id || uploads[0].UploadStatus != client.UploadStatusReady || uploads[1].Id != first.Id {
		t.Fatalf("uploads %+v %v", uploads, err)
	}

	started, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil || started.Status != client.EvaluationStatusQueued || len(started.InputFileIds) != 2 {
		t.Fatalf("start: %+v %v", started, err)
	}
	done, err := c.WaitForEvaluation(ctx, sub.Id, started.Id, sdk.WaitOptions{Interval: time.Millisecond})
	if err != nil || done.Status != client.EvaluationStatusCompleted || done.Result == nil {
		t.Fatalf("evaluation %+v %v", done, err)
	}
	r := done.Result
	if r.Summary.Outcome != client.SummaryOutcomePassed || len(r.Documents) != 2 || len(r.Checks) != 3 || len(r.Fields) != 2 {
		t.Errorf("made-up result %+v", r)
	}
	detail, _ = c.GetSubmission(ctx, sub.Id)
	if detail.Status != client.SubmissionStatusCompleted || detail.LatestEvaluation.Id != started.Id ||
		detail.DocumentSlots[0].Status != client.DocumentSlotStatusReceived || len(detail.UnassignedUploads) != 1 {
		t.Errorf("after the evaluation: %+v", detail)
	}

	want := "file.ready,file.ready,evaluation.started,evaluation.completed"
	if got := strings.Join(eventTypes(t, c, &client.ListEventsParams{SubmissionId: &sub.Id, Limit: ptr(2)}), ","); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	completed := client.SubmissionStatusCompleted
	for s, err := range c.ListSubmissions(ctx, &client.ListSubmissionsParams{Status: &completed}) {
		if err != nil || s.Id != sub.Id {
			t.Errorf("listed %+v %v", s, err)
		}
	}

	// A second evaluation supersedes the first.
	next, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetEvaluation(ctx, sub.Id, started.Id); sdk.Code(err) != "analysis_outdated" {
		t.Errorf("superseded: %v", err)
	}
	if _, err := c.GetEvaluation(ctx, sub.Id, next.Id); err != nil {
		t.Error(err)
	}
}

func TestManualUploadsAndEvaluations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t, sdktest.WithManualUploads(), sdktest.WithManualEvaluations())
	c := srv.Client()
	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-manual"})
	if err != nil {
		t.Fatal(err)
	}
	good, bad := upload(t, c, sub.Id, "good", nil), upload(t, c, sub.Id, "bad", nil)
	if got, _ := c.GetUpload(ctx, sub.Id, good.Id); got.UploadStatus != client.UploadStatusProcessing {
		t.Errorf("upload %+v before ReadyUpload", got)
	}
	if _, err := c.StartEvaluation(ctx, sub.Id); sdk.Code(err) != "invalid_request" {
		t.Errorf("start with nothing ready: %v", err)
	}
	if err := srv.ReadyUpload(good.Id); err != nil {
		t.Fatal(err)
	}
	if err := srv.FailUpload(bad.Id, client.FileCorrupt, "cannot open"); err != nil {
		t.Fatal(err)
	}
	if err := srv.ReadyUpload(good.Id); err == nil {
		t.Error("a ready upload was made ready again")
	}
	failed, err := c.GetUpload(ctx, sub.Id, bad.Id)
	if err != nil || failed.UploadStatus != client.UploadStatusFailed || failed.Failure == nil || failed.Failure.Code != client.FileCorrupt {
		t.Errorf("failed upload %+v %v", failed, err)
	}

	ev, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartEvaluation(ctx, sub.Id); sdk.Code(err) != "evaluation_in_progress" {
		t.Errorf("second start: %v", err)
	}
	if got, _ := c.GetEvaluation(ctx, sub.Id, ev.Id); got.Status != client.EvaluationStatusQueued {
		t.Errorf("evaluation %+v before CompleteEvaluation", got)
	}
	scripted := client.EvaluationResult{
		Documents: []client.ResultDocument{}, Checks: []client.ResultCheck{}, Fields: []client.ResultField{},
		Summary: client.Summary{Outcome: client.SummaryOutcomeCriticalFindings, Recommendation: client.SummaryRecommendationManualReview, RiskBand: client.SummaryRiskBandHigh},
	}
	if err := srv.CompleteEvaluation(ev.Id, &scripted); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetEvaluation(ctx, sub.Id, ev.Id)
	if err != nil || got.Status != client.EvaluationStatusCompleted || got.Result.Summary.RiskBand != client.SummaryRiskBandHigh {
		t.Errorf("completed %+v %v", got, err)
	}

	ev2, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.FailEvaluation(ev2.Id, "engine_unavailable", "try again"); err != nil {
		t.Fatal(err)
	}
	detail, _ := c.GetSubmission(ctx, sub.Id)
	if detail.Status != client.SubmissionStatusFailed || detail.LatestEvaluation.Failure.Code != "engine_unavailable" {
		t.Errorf("after a failed evaluation: %+v", detail)
	}
	want := "file.ready,file.failed,evaluation.started,evaluation.completed,evaluation.started,evaluation.failed"
	if got := strings.Join(eventTypes(t, c, nil), ","); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestSetEvaluationResultAndCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	srv.SetEvaluationResult(client.EvaluationResult{
		Documents: []client.ResultDocument{}, Fields: []client.ResultField{},
		Checks:  []client.ResultCheck{{CheckId: "name_consistency", Key: "name_consistency", Title: "Names", Status: client.ResultCheckStatusCritical, Citations: []client.Citation{}}},
		Summary: client.Summary{Outcome: client.SummaryOutcomeCriticalFindings, Recommendation: client.SummaryRecommendationManualReview, RiskBand: client.SummaryRiskBandHigh},
	})
	c := srv.Client()
	sub, _ := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-critical"})
	upload(t, c, sub.Id, "f", nil)
	ev, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetEvaluation(ctx, sub.Id, ev.Id)
	if err != nil || got.Result.Checks[0].Status != client.ResultCheckStatusCritical {
		t.Errorf("evaluation %+v %v", got, err)
	}
	if _, err := c.CancelSubmission(ctx, sub.Id); sdk.Code(err) != "submission_not_cancelable" {
		t.Errorf("cancel a completed submission: %v", err)
	}

	other, _ := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-cancel"})
	canceled, err := c.CancelSubmission(ctx, other.Id)
	if err != nil || canceled.Status != client.SubmissionStatusCanceled {
		t.Fatalf("cancel %+v %v", canceled, err)
	}
	_, err = c.UploadFile(ctx, other.Id, sdk.UploadParams{ExternalFileID: "late", ContentType: "application/pdf", Body: strings.NewReader(pdf)})
	if sdk.Code(err) != "submission_canceled" {
		t.Errorf("upload after cancel: %v", err)
	}
}

// Errors come in the service's envelope, with request ids, and typed by the SDK.
func TestErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c := srv.Client()

	for _, key := range []string{"", "Bearer nope", "Bearer dek_"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/templates", nil)
		if key != "" {
			req.Header.Set("Authorization", key)
		}
		res, body := do(t, req)
		if res.StatusCode != 401 || !strings.Contains(body, `"invalid_api_key"`) || !strings.Contains(body, res.Header.Get("x-request-id")) {
			t.Errorf("key %q: %d %s", key, res.StatusCode, body)
		}
	}
	var apiErr *sdk.Error
	_, err := c.GetSubmission(ctx, uuid.New())
	if !sdk.IsNotFound(err) || sdk.Code(err) != "not_found" {
		t.Errorf("unknown submission: %v", err)
	}
	if _, err := c.CreateCheck(ctx, client.CreateCheckRequest{Title: "t", Prompt: "p"}); sdk.Code(err) != "not_implemented" {
		t.Errorf("an operation sdktest does not cover: %v", err)
	}
	_, err = c.CreateSubmission(ctx, client.CreateSubmissionRequest{})
	if !asError(err, &apiErr) || apiErr.StatusCode != 422 || apiErr.Param != "external_submission_id" || apiErr.RequestID == "" {
		t.Errorf("empty external id: %#v", err)
	}
	_, err = c.UploadFile(ctx, uuid.New(), sdk.UploadParams{ExternalFileID: "f", ContentType: "application/pdf", Body: strings.NewReader(pdf)})
	if !sdk.IsNotFound(err) {
		t.Errorf("upload to an unknown submission: %v", err)
	}
	sub, _ := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-errors"})
	_, err = c.UploadFile(ctx, sub.Id, sdk.UploadParams{ExternalFileID: "f", ContentType: "application/pdf", Body: strings.NewReader("not a pdf")})
	if !asError(err, &apiErr) || apiErr.Param != "file" {
		t.Errorf("bytes that are not the declared type: %v", err)
	}
	for _, err := range c.ListSubmissions(ctx, &client.ListSubmissionsParams{Cursor: ptr("garbage")}) {
		if !asError(err, &apiErr) || apiErr.Param != "cursor" {
			t.Errorf("bad cursor: %v", err)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/v1/submissions", nil)
	req.Header.Set("Authorization", "Bearer "+srv.APIKey)
	if res, body := do(t, req); res.StatusCode != 405 || !strings.Contains(body, "method_not_allowed") {
		t.Errorf("PUT /v1/submissions: %d %s", res.StatusCode, body)
	}
}

// FailNext and LoseNextAnswer script what a client's retries must survive.
func TestScriptedFailuresAndIdempotency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c := srv.Client()

	srv.FailNext("createSubmission", http.StatusServiceUnavailable, "authz_not_applied_yet")
	srv.FailNext("createSubmission", http.StatusTooManyRequests, "rate_limited")
	if _, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-retry"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Calls("createSubmission"); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
	srv.FailNext("getSubmission", http.StatusConflict, "partner_data_purge_in_progress")
	if _, err := c.GetSubmission(ctx, uuid.New()); sdk.Code(err) != "partner_data_purge_in_progress" {
		t.Errorf("scripted 409: %v", err)
	}

	srv.LoseNextAnswer("createWebhookEndpoint")
	ep, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for listed, err := range c.ListWebhookEndpoints(ctx, nil) {
		if err != nil || listed.Id != ep.Id {
			t.Errorf("listed %+v %v", listed, err)
		}
		n++
	}
	if n != 1 || srv.Calls("createWebhookEndpoint") != 2 {
		t.Errorf("%d endpoints after %d calls, want 1 after 2", n, srv.Calls("createWebhookEndpoint"))
	}

	// The replay by hand: same key and body, then another body.
	key := "order-42"
	body := client.CreateWebhookEndpointRequest{Url: "https://crm.example/other"}
	var first, replay []byte
	for i, dst := range []*[]byte{&first, &replay} {
		res, err := c.API().CreateWebhookEndpoint(ctx, &client.CreateWebhookEndpointParams{IdempotencyKey: &key}, body)
		if err != nil {
			t.Fatal(err)
		}
		*dst, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if got := res.Header.Get(sdk.HeaderIdempotentReplayed); (i == 1) != (got == "true") || res.StatusCode != 201 {
			t.Errorf("answer %d: %d, Idempotent-Replayed %q", i+1, res.StatusCode, got)
		}
	}
	if !bytes.Equal(first, replay) {
		t.Errorf("replay %s differs from %s", replay, first)
	}
	_, err = c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/third"}, sdk.WithIdempotencyKey(key))
	if sdk.Code(err) != "idempotency_key_reused" {
		t.Errorf("the key with another body: %v", err)
	}

	// An error is kept and replayed too, with the replay's own request id.
	bad := client.CreateWebhookEndpointRequest{Url: "ftp://crm.example"}
	var requestIDs []string
	for range 2 {
		res, err := c.API().CreateWebhookEndpointWithResponse(ctx, &client.CreateWebhookEndpointParams{IdempotencyKey: ptr("bad-url")}, bad)
		if err != nil {
			t.Fatal(err)
		}
		apiErr := sdk.ParseError(res.HTTPResponse, res.Body).(*sdk.Error)
		if apiErr.Param != "url" || apiErr.RequestID != res.HTTPResponse.Header.Get("x-request-id") {
			t.Errorf("answer %+v, x-request-id %s", apiErr, res.HTTPResponse.Header.Get("x-request-id"))
		}
		requestIDs = append(requestIDs, apiErr.RequestID+" "+res.HTTPResponse.Header.Get(sdk.HeaderIdempotentReplayed))
	}
	if requestIDs[0] == requestIDs[1] || !strings.HasSuffix(requestIDs[1], " true") {
		t.Errorf("answers %q", requestIDs)
	}
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var v any
	if res.StatusCode >= 400 && json.Unmarshal(b, &v) != nil {
		t.Errorf("%d without a JSON envelope: %s", res.StatusCode, b)
	}
	return res, string(b)
}

func asError(err error, target **sdk.Error) bool { return errors.As(err, target) }

func ptr[T any](v T) *T { return &v }
