package sdk

import "net/http"

// retryableByCode is the "retryable" column of the API's table of error codes (see
// ErrorCode in the generated client) for the codes this version knows.
// revision_mismatch is false: the same request cannot succeed, the caller must re-read
// first.
var retryableByCode = map[string]bool{
	"invalid_request":                false,
	"invalid_field":                  false,
	"invalid_api_key":                false,
	"api_client_disabled":            false,
	"permission_denied":              false,
	"not_found":                      false,
	"method_not_allowed":             false,
	"partner_data_purge_in_progress": false,
	"analysis_outdated":              false,
	"revision_mismatch":              false,
	"idempotency_key_in_use":         true,
	"idempotency_key_reused":         false,
	"evaluation_in_progress":         true,
	"submission_not_cancelable":      false,
	"submission_canceled":            false,
	"file_too_large":                 false,
	"request_too_large":              false,
	"rate_limited":                   true,
	"internal_error":                 true,
	"not_implemented":                false,
	"authz_not_applied_yet":          true,
	"service_unavailable":            true,
}

// retryable decides by code when the code is known, else by status class: an unknown
// 4xx is not blindly retried, 429 and 5xx may be.
func retryable(status int, code string) bool {
	if r, known := retryableByCode[code]; known {
		return r
	}
	return status == http.StatusTooManyRequests || status >= 500
}

// retriedAutomatically is the transport's narrower rule: 429, 5xx and, of the 409s, only
// idempotency_key_in_use, which clears within moments. A 409 evaluation_in_progress is
// retryable "later" (after the evaluation ends, minutes away), not within a backoff
// window, so the transport leaves it to the caller.
func retriedAutomatically(status int, code string) bool {
	if status == http.StatusConflict {
		return code == "idempotency_key_in_use"
	}
	return (status == http.StatusTooManyRequests || status >= 500) && retryable(status, code)
}
