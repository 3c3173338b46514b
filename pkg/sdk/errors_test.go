package sdk

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestParseErrorFromEnvelope(t *testing.T) {
	t.Parallel()
	res := &http.Response{StatusCode: 422, Header: http.Header{"X-Request-Id": {"req_header"}}}
	body := []byte(`{"error":{"code":"invalid_field","message":"must not be empty","param":"external_submission_id","request_id":"req_body"}}`)
	err := fmt.Errorf("creating: %w", ParseError(res, body))

	var apiErr *Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("errors.As failed on %v", err)
	}
	want := Error{StatusCode: 422, Code: "invalid_field", Message: "must not be empty", Param: "external_submission_id", RequestID: "req_body"}
	if *apiErr != want {
		t.Errorf("got %+v, want %+v", *apiErr, want)
	}
	if s := apiErr.Error(); !strings.Contains(s, "req_body") || !strings.Contains(s, "invalid_field") || !strings.Contains(s, "external_submission_id") {
		t.Errorf("Error() = %q", s)
	}
	if Code(err) != "invalid_field" || IsNotFound(err) || IsConflict(err) || IsRateLimited(err) || IsRetryable(err) {
		t.Errorf("helpers on %v", err)
	}
}

// A body that is not the envelope (a proxy's page) still gives a typed error with the
// request id from the header.
func TestParseErrorFromOtherBody(t *testing.T) {
	t.Parallel()
	res := &http.Response{StatusCode: 502, Header: http.Header{"X-Request-Id": {"req_proxy"}}}
	err := ParseError(res, []byte("<html><body>upstream unavailable</body></html>"))
	var apiErr *Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("errors.As failed on %v", err)
	}
	if apiErr.StatusCode != 502 || apiErr.Code != "" || apiErr.RequestID != "req_proxy" ||
		!strings.Contains(apiErr.Message, "Bad Gateway") || !strings.Contains(apiErr.Message, "upstream unavailable") {
		t.Errorf("got %+v", *apiErr)
	}
	if !IsRetryable(err) {
		t.Error("a 502 is retryable by status class")
	}
	// JSON that is not the envelope either.
	err = ParseError(&http.Response{StatusCode: 404, Header: http.Header{}}, []byte(`{"message":"no route"}`))
	if !IsNotFound(err) || Code(err) != "" {
		t.Errorf("got %v", err)
	}
}

func TestParseErrorIgnoresSuccess(t *testing.T) {
	t.Parallel()
	if err := ParseError(&http.Response{StatusCode: 202}, nil); err != nil {
		t.Errorf("got %v for a 202", err)
	}
}

func TestHelpersClassifyByCodeThenStatusClass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status                          int
		code                            string
		notFound, conflict, rateLimited bool
		retryable                       bool
	}{
		{404, "not_found", true, false, false, false},
		{409, "revision_mismatch", false, true, false, false},
		{409, "evaluation_in_progress", false, true, false, true},
		{409, "submission_canceled", false, true, false, false},
		{429, "rate_limited", false, false, true, true},
		{503, "authz_not_applied_yet", false, false, false, true},
		{500, "internal_error", false, false, false, true},
		{501, "not_implemented", false, false, false, false},
		// Codes this version does not know: by status class.
		{409, "some_future_conflict", false, true, false, false},
		{400, "some_future_code", false, false, false, false},
		{429, "some_future_throttle", false, false, true, true},
		{504, "some_future_outage", false, false, false, true},
	}
	for _, tc := range cases {
		err := error(&Error{StatusCode: tc.status, Code: tc.code})
		if IsNotFound(err) != tc.notFound || IsConflict(err) != tc.conflict || IsRateLimited(err) != tc.rateLimited || IsRetryable(err) != tc.retryable {
			t.Errorf("%d %s: notFound %v conflict %v rateLimited %v retryable %v", tc.status, tc.code,
				IsNotFound(err), IsConflict(err), IsRateLimited(err), IsRetryable(err))
		}
	}
	plain := errors.New("dial tcp: refused")
	if Code(plain) != "" || IsRetryable(plain) || IsNotFound(nil) {
		t.Error("helpers on errors that are not *Error")
	}
}

// Wrapped methods return *Error for non-2xx answers, whatever the body.
func TestMethodsReturnTypedErrors(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "")
	})
	_, err := c.GetEvaluation(t.Context(), testSubmissionID, testEvaluationID)
	if !IsNotFound(err) || Code(err) != "not_found" {
		t.Fatalf("got %v", err)
	}
	var apiErr *Error
	if errors.As(err, &apiErr); apiErr.RequestID != "req_fake" {
		t.Errorf("request id %q", apiErr.RequestID)
	}
}
