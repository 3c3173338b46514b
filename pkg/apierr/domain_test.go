package apierr_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
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
		{submission.CheckUploadRoom(200, 200), http.StatusUnprocessableEntity, apierr.InvalidRequest, "", "the submission already holds 200 uploads, the most one may hold; delete one before uploading another"},
		{evaluation.CheckPages(2001, 2000), http.StatusUnprocessableEntity, apierr.InvalidRequest, "", "the submission's ready uploads hold 2001 pages; an evaluation reads at most 2000; delete uploads before starting one"},
		{fmt.Errorf("create upload: %w", submission.ErrCanceled), http.StatusConflict, apierr.SubmissionCanceled, "", "the submission is canceled: it accepts no new uploads or evaluations"},
	} {
		e, ok := apierr.FromDomain(tc.err)
		require.True(t, ok, tc.message)
		require.Equal(t, apierr.Error{Status: tc.status, Code: tc.code, Param: tc.param, Message: tc.message}, *e)
	}
	_, ok := apierr.FromDomain(errors.New("connection reset"))
	require.False(t, ok, "not a refusal")
}

// Every sentinel refusal the domain declares has been placed: it is in FromDomain's
// table, or it reaches the edge only wrapped as a field refusal (domain.OnField), or it
// never reaches the edge at all. A new sentinel fails here until its author says which,
// so none can fall through to a 500.
func TestEveryDomainSentinelIsPlaced(t *testing.T) {
	t.Parallel()
	inTable := map[string]error{
		"ErrPurging": submission.ErrPurging, "ErrCanceled": submission.ErrCanceled, "ErrNotCancelable": submission.ErrNotCancelable,
		"ErrUploadsLocked": submission.ErrUploadsLocked, "ErrNoReadyUpload": evaluation.ErrNoReadyUpload,
		"ErrInProgress": evaluation.ErrInProgress, "ErrOutdated": evaluation.ErrOutdated, "ErrRevisionMismatch": catalog.ErrRevisionMismatch,
	}
	onFieldOnly := []string{
		"ErrReadOnly", "ErrArchived", // catalog: the path's id or template_id
		"ErrTemplateArchived",                 // submission: template_id
		"ErrTooManyActive", "ErrTestDisabled", // webhook: url, endpoint_id
	}
	notAtTheEdge := []string{
		"ErrOver",                                                     // evaluation: tells the evaluator to stop, never a request's answer
		"ErrDecisionUnknown", "ErrReasonRequired", "ErrReasonTooLong", // submission: the console's review form shows them on the form
	}
	for name, err := range inTable {
		e, ok := apierr.FromDomain(err)
		require.True(t, ok, "%s is not in FromDomain's table", name)
		require.Less(t, e.Status, 500, name)
	}
	for _, name := range domainSentinels(t) {
		if _, ok := inTable[name]; !ok && !slices.Contains(onFieldOnly, name) && !slices.Contains(notAtTheEdge, name) {
			t.Errorf("pkg/domain declares %s: put it in FromDomain's table or say in this test how it reaches the edge", name)
		}
	}
}

// domainSentinels are the names of the package-level Err… variables of pkg/domain and
// its aggregates.
func domainSentinels(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../domain/*/*.go")
	require.NoError(t, err)
	top, err := filepath.Glob("../domain/*.go")
	require.NoError(t, err)
	var names []string
	for _, path := range append(files, top...) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Err") {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	require.NotEmpty(t, names, "no sentinels found under pkg/domain")
	return names
}
