package apierr_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/domain/webhook"
)

func TestFromDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err     error
		status  int
		code    apierr.Code
		param   string
		message string
	}{
		{submission.ErrPurging, http.StatusConflict, apierr.PartnerDataPurgeInProgress, "", "this submission is being deleted; its data is being purged"},
		{submission.ErrCanceled, http.StatusConflict, apierr.SubmissionCanceled, "", "the submission is canceled: it accepts no new uploads or evaluations"},
		{submission.ErrNotCancelable, http.StatusConflict, apierr.SubmissionNotCancelable, "", "the submission is completed and cannot be canceled (it can still be deleted)"},
		{submission.ErrUploadsLocked, http.StatusConflict, apierr.EvaluationInProgress, "", "an evaluation is queued or running; move or delete uploads after it ends"},
		{evaluation.ErrNoReadyUpload, http.StatusUnprocessableEntity, apierr.InvalidRequest, "", "the submission has no upload in status ready; upload a document and wait for file.ready"},
		{evaluation.ErrInProgress, http.StatusConflict, apierr.EvaluationInProgress, "", "an evaluation of this submission is queued or running; wait for it to end"},
		{evaluation.ErrOutdated, http.StatusConflict, apierr.AnalysisOutdated, "", "a newer evaluation superseded this one; read the submission's latest_evaluation"},
		{catalog.ErrRevisionMismatch, http.StatusConflict, apierr.RevisionMismatch, "", "expected_revision is not the template's current revision; re-read the template, reapply the change and retry"},
		{domain.OnField("url", webhook.ErrTooManyActive), http.StatusUnprocessableEntity, apierr.InvalidField, "url", "at most 20 webhook endpoints can be active; disable or delete one first"},
		{domain.OnField("template_id", catalog.ErrReadOnly), http.StatusUnprocessableEntity, apierr.InvalidField, "template_id", "builtin entries are read-only; duplicate a builtin template to customize it"},
		{domain.NotFoundf("no slot %d on this submission", 7), http.StatusNotFound, apierr.NotFound, "", "no slot 7 on this submission"},
		{fmt.Errorf("create upload: %w", submission.ErrCanceled), http.StatusConflict, apierr.SubmissionCanceled, "", "the submission is canceled: it accepts no new uploads or evaluations"},
	} {
		e, ok := apierr.FromDomain(tc.err)
		require.True(t, ok, tc.message)
		require.Equal(t, apierr.Error{Status: tc.status, Code: tc.code, Param: tc.param, Message: tc.message}, *e)
	}
	_, ok := apierr.FromDomain(errors.New("connection reset"))
	require.False(t, ok, "not a refusal")
}
