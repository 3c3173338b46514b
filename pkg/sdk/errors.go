package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Error is a non-2xx answer of the API. Branch on Code (stable), never on Message.
// Code is empty when the body was not the error envelope, for example a proxy's 502.
type Error struct {
	StatusCode int
	Code       string
	Message    string
	Param      string
	RequestID  string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "doceval: %d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Param != "" {
		b.WriteString(" (param " + e.Param + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" [request_id " + e.RequestID + "]")
	}
	return b.String()
}

// headerRequestID is the response header that equals error.request_id.
const headerRequestID = "x-request-id"

// maxErrorMessage bounds how much of a body that is not the envelope ends up in Message.
const maxErrorMessage = 200

// ParseError returns the *Error for a non-2xx response and nil for a 2xx one. body is
// the response body already read; the generated client's XxxResponse values carry it
// as Body and the response as HTTPResponse, so API() users can write
// sdk.ParseError(res.HTTPResponse, res.Body).
func ParseError(res *http.Response, body []byte) error {
	if res == nil || (res.StatusCode >= 200 && res.StatusCode < 300) {
		return nil
	}
	e := &Error{StatusCode: res.StatusCode, RequestID: res.Header.Get(headerRequestID)}
	var envelope struct {
		Error *struct {
			Code      string  `json:"code"`
			Message   string  `json:"message"`
			Param     *string `json:"param"`
			RequestID string  `json:"request_id"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &envelope) == nil && envelope.Error != nil && envelope.Error.Code != "" {
		e.Code, e.Message = envelope.Error.Code, envelope.Error.Message
		if envelope.Error.Param != nil {
			e.Param = *envelope.Error.Param
		}
		if envelope.Error.RequestID != "" {
			e.RequestID = envelope.Error.RequestID
		}
		return e
	}
	// Not the envelope (a proxy or load balancer answered): keep a short excerpt so the
	// error still says something useful.
	e.Message = http.StatusText(res.StatusCode)
	if excerpt := strings.TrimSpace(string(body)); excerpt != "" {
		if len(excerpt) > maxErrorMessage {
			excerpt = excerpt[:maxErrorMessage] + "…"
		}
		e.Message += ": " + excerpt
	}
	return e
}

// asError is errors.As for *Error.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Code returns the error code of an *Error in err's chain, or "" when there is none.
func Code(err error) string {
	if e, ok := asError(err); ok {
		return e.Code
	}
	return ""
}

// IsNotFound reports a 404: the resource is absent, owned by another client or purged.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsConflict reports a 409 (revision_mismatch, evaluation_in_progress,
// submission_canceled and the other state conflicts; look at Code for which one).
func IsConflict(err error) bool { return hasStatus(err, http.StatusConflict) }

// IsRateLimited reports a 429.
func IsRateLimited(err error) bool { return hasStatus(err, http.StatusTooManyRequests) }

func hasStatus(err error, status int) bool {
	e, ok := asError(err)
	return ok && e.StatusCode == status
}

// IsRetryable reports whether sending the same request again later may succeed. It
// follows the "retryable" column of the API's error codes for the codes it knows
// (revision_mismatch only after re-reading, so false; evaluation_in_progress later, so
// true); an unknown code is judged by its HTTP status class: 429 and 5xx yes, other
// 4xx no. Errors that are not an *Error (network failures, a canceled context) report
// false: the SDK has already retried them.
func IsRetryable(err error) bool {
	e, ok := asError(err)
	return ok && retryable(e.StatusCode, e.Code)
}
