// Package apierr holds the error codes of the API (the spec's ErrorCode) and the one
// error type that carries them from domain code to the HTTP error envelope. Domain code returns *Error; the API's error handler renders it.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Code is a stable, machine-readable error code. Clients branch on it.
type Code string

// The codes of the spec's ErrorCode enum.
const (
	InvalidRequest             Code = "invalid_request"
	InvalidField               Code = "invalid_field"
	InvalidAPIKey              Code = "invalid_api_key"
	APIClientDisabled          Code = "api_client_disabled"
	PermissionDenied           Code = "permission_denied"
	NotFound                   Code = "not_found"
	MethodNotAllowed           Code = "method_not_allowed"
	PartnerDataPurgeInProgress Code = "partner_data_purge_in_progress"
	AnalysisOutdated           Code = "analysis_outdated"
	RevisionMismatch           Code = "revision_mismatch"
	EvaluationInProgress       Code = "evaluation_in_progress"
	SubmissionNotCancelable    Code = "submission_not_cancelable"
	SubmissionCanceled         Code = "submission_canceled"
	FileTooLarge               Code = "file_too_large"
	RequestTooLarge            Code = "request_too_large"
	RateLimited                Code = "rate_limited"
	AuthzNotAppliedYet         Code = "authz_not_applied_yet"
	InternalError              Code = "internal_error"
	ServiceUnavailable         Code = "service_unavailable"
	NotImplemented             Code = "not_implemented"
	IdempotencyKeyInUse        Code = "idempotency_key_in_use"
	IdempotencyKeyReused       Code = "idempotency_key_reused"
)

// AllCodes lists every code the server sends; the spec's ErrorCode enum holds them all.
var AllCodes = []Code{
	InvalidRequest, InvalidField, InvalidAPIKey, APIClientDisabled, PermissionDenied, NotFound,
	MethodNotAllowed, PartnerDataPurgeInProgress, AnalysisOutdated, RevisionMismatch,
	EvaluationInProgress, SubmissionNotCancelable, SubmissionCanceled, FileTooLarge,
	RequestTooLarge, RateLimited, AuthzNotAppliedYet, InternalError, ServiceUnavailable, NotImplemented,
	IdempotencyKeyInUse, IdempotencyKeyReused,
}

// Error is an expected failure with its HTTP status, code and, for field errors, the
// name of the offending request field.
type Error struct {
	Status     int
	Code       Code
	Message    string
	Param      string
	RetryAfter time.Duration // sent as retry-after (whole seconds, rounded up) when > 0
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s (%s): %s", e.Code, e.Param, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// As finds an *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// New builds an error with an explicit status.
func New(status int, code Code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// Field is a 422 invalid_field naming the request field at fault.
func Field(param, message string) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: InvalidField, Param: param, Message: message}
}

// BadRequest is a 400 invalid_request: malformed JSON, missing body, wrong content type.
func BadRequest(message string) *Error {
	return New(http.StatusBadRequest, InvalidRequest, message)
}

// NotFoundf is a 404 not_found. Resources of other API clients answer the same way.
func NotFoundf(format string, args ...any) *Error {
	return New(http.StatusNotFound, NotFound, fmt.Sprintf(format, args...))
}

// Conflict is a 409 with the given code.
func Conflict(code Code, message string) *Error {
	return New(http.StatusConflict, code, message)
}

// Unavailable is the 503 a request gets while a dependency it needs (the database) is
// out of reach: retry after retry-after with the same idempotency key or external id.
func Unavailable() *Error {
	e := New(http.StatusServiceUnavailable, ServiceUnavailable, "the service cannot reach its database right now; retry after the retry-after header, with the same Idempotency-Key or external id")
	e.RetryAfter = 2 * time.Second
	return e
}

// Internal is the 500 every unexpected failure becomes; the cause is logged, never sent.
func Internal() *Error {
	return New(http.StatusInternalServerError, InternalError, "an unexpected error occurred; retry with backoff and the same external id")
}
