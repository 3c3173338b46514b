package apierr

import (
	"errors"
	"net/http"

	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
)

// refusal is a row of the one table choosing the status and code of a domain refusal;
// the message is the refusal's own text.
type refusal struct {
	err    error
	status int
	code   Code
}

// refusals lists the aggregates' sentinel refusals that are not field errors.
var refusals = []refusal{
	{catalog.ErrRevisionMismatch, http.StatusConflict, RevisionMismatch},
	{submission.ErrPurging, http.StatusConflict, PartnerDataPurgeInProgress},
	{submission.ErrCanceled, http.StatusConflict, SubmissionCanceled},
	{submission.ErrNotCancelable, http.StatusConflict, SubmissionNotCancelable},
	{submission.ErrUploadsLocked, http.StatusConflict, EvaluationInProgress},
	{evaluation.ErrNoReadyUpload, http.StatusUnprocessableEntity, InvalidRequest},
	{evaluation.ErrInProgress, http.StatusConflict, EvaluationInProgress},
	{evaluation.ErrOutdated, http.StatusConflict, AnalysisOutdated},
}

// FromDomain is the error a domain refusal in err's chain answers with, for the API's
// error envelope and the console's pages alike: a field refusal is 422 invalid_field on
// its field, a missing reference 404 not_found, a cap 422 invalid_request, a sentinel
// what refusals says. ok is false when err holds no domain refusal.
func FromDomain(err error) (e *Error, ok bool) {
	var field *domain.FieldError
	if errors.As(err, &field) {
		return Field(field.Field, field.Err.Error()), true
	}
	var missing *domain.NotFoundError
	if errors.As(err, &missing) {
		return New(http.StatusNotFound, NotFound, missing.Message), true
	}
	var limit *domain.LimitError
	if errors.As(err, &limit) {
		return New(http.StatusUnprocessableEntity, InvalidRequest, limit.Message), true
	}
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return New(r.status, r.code, r.err.Error()), true
		}
	}
	return nil, false
}
