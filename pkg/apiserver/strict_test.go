package apiserver_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/doceval/doceval/gen/client"
)

// Request bodies are strict: one JSON value in the declared content type, bounded in
// depth and array length. A refused body writes nothing.
func TestStrictRequestBodies(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	ctx := context.Background()

	createSubmission := func(t *testing.T, contentType, body string) (*http.Response, []byte) {
		t.Helper()
		res, err := c.CreateSubmissionWithBodyWithResponse(ctx, nil, contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return res.HTTPResponse, res.Body
	}
	nothingStored := func(t *testing.T) {
		t.Helper()
		res, err := c.ListSubmissionsWithResponse(ctx, nil)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("list: %v %s", err, res.Body)
		}
		if n := len(res.JSON200.Data); n != 0 {
			t.Fatalf("%d submissions stored from refused requests", n)
		}
	}

	for name, body := range map[string]string{
		"trailing garbage":     `{"external_submission_id": "a", "metadata": {}} x`,
		"second JSON value":    `{"external_submission_id": "a"}{"external_submission_id": "b"}`,
		"trailing scalar":      `{"external_submission_id": "a"} 1`,
		"nested too deep":      `{"external_submission_id": "a", "metadata": ` + nested(32) + `}`,
		"unterminated nesting": `{"external_submission_id": "a", "metadata": {"x": [`,
	} {
		t.Run(name, func(t *testing.T) {
			res, b := createSubmission(t, "application/json", body)
			wantError(t, res, b, 400, client.ErrorCodeInvalidRequest)
			nothingStored(t)
		})
	}

	t.Run("multipart to a JSON operation", func(t *testing.T) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		_ = w.WriteField("external_submission_id", "")
		_ = w.WriteField("metadata", "{}")
		filler, _ := w.CreateFormFile("file", "big.bin")
		_, _ = filler.Write(bytes.Repeat([]byte{'x'}, 4<<20)) // over the JSON cap: refused unread
		_ = w.Close()
		res, b := createSubmission(t, w.FormDataContentType(), buf.String())
		wantError(t, res, b, 400, client.ErrorCodeInvalidRequest)
		nothingStored(t)
	})
	t.Run("form-encoded to a JSON operation", func(t *testing.T) {
		res, b := createSubmission(t, "application/x-www-form-urlencoded", "external_submission_id=a")
		wantError(t, res, b, 400, client.ErrorCodeInvalidRequest)
		nothingStored(t)
	})
	t.Run("JSON at the depth limit is accepted", func(t *testing.T) {
		// The body object is level 1, metadata level 2: 30 more levels inside it make 32.
		res, b := createSubmission(t, "application/json; charset=utf-8", `{"external_submission_id": "deep", "metadata": `+nested(31)+`}`)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("status %d: %s", res.StatusCode, b)
		}
	})
	t.Run("arrays hold at most maxItems", func(t *testing.T) {
		items := strings.TrimSuffix(strings.Repeat(`{"document_type_id": "payslip"},`, 51), ",")
		res, b := createSubmission(t, "application/json", `{"external_submission_id": "many", "extra_document_requirements": [`+items+`]}`)
		d := wantError(t, res, b, 422, client.ErrorCodeInvalidField)
		if deref(d.Param) != "extra_document_requirements" {
			t.Errorf("param %q, want extra_document_requirements", deref(d.Param))
		}
	})
	t.Run("JSON to an upload operation", func(t *testing.T) {
		sub, err := c.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionJSONRequestBody{ExternalSubmissionId: "up"})
		if err != nil || sub.JSON201 == nil {
			t.Fatalf("create: %v %s", err, sub.Body)
		}
		res, err := c.CreateUploadWithBodyWithResponse(ctx, sub.JSON201.Id, nil, "application/json", strings.NewReader(`{"external_file_id": "f"}`))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 400, client.ErrorCodeInvalidRequest)
	})
	t.Run("operation without a body", func(t *testing.T) {
		sub, err := c.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionJSONRequestBody{ExternalSubmissionId: "cancel-me"})
		if err != nil || sub.JSON201 == nil {
			t.Fatalf("create: %v %s", err, sub.Body)
		}
		path := "/v1/submissions/" + sub.JSON201.Id.String() + "/cancel"
		res, b := e.raw("POST", path, key, "multipart/form-data; boundary=x", strings.NewReader("--x--\r\n"))
		wantError(t, res, b, 400, client.ErrorCodeInvalidRequest)
		// A JSON body (as some clients send by habit) is ignored; no body at all is the norm.
		if res, b := e.raw("POST", path, key, "application/json", strings.NewReader(`{}`)); res.StatusCode != http.StatusOK {
			t.Fatalf("cancel with {}: %d %s", res.StatusCode, b)
		}
	})
}

// nested is levels objects inside each other: {"a":{"a":...{}}}.
func nested(levels int) string {
	return strings.Repeat(`{"a":`, levels-1) + "{}" + strings.Repeat("}", levels-1)
}
