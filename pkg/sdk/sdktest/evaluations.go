package sdktest

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

func (s *Server) startEvaluation(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case sub.Status == client.SubmissionStatusCanceled:
		return 0, nil, newError(http.StatusConflict, "submission_canceled", "the submission is canceled")
	case sub.activeEvaluation() != nil:
		return 0, nil, newError(http.StatusConflict, "evaluation_in_progress", "an evaluation is already queued or running")
	}
	inputs := []uuid.UUID{}
	for _, up := range sub.uploads {
		if up.UploadStatus == client.UploadStatusReady {
			inputs = append(inputs, up.FileId)
		}
	}
	if len(inputs) == 0 {
		return 0, nil, newError(http.StatusUnprocessableEntity, "invalid_request", "no upload is ready")
	}
	ev := &client.Evaluation{
		Id: uuid.New(), Kind: client.Basic, Status: client.EvaluationStatusQueued, StageLabel: "Queued",
		InputFileIds: inputs, SubmissionId: &sub.Id, ExternalSubmissionId: &sub.ExternalSubmissionId,
	}
	sub.evaluations = append(sub.evaluations, ev)
	sub.Status, sub.UpdatedAt = client.SubmissionStatusEvaluating, now()
	answer := *ev
	if !s.manual.evaluations {
		s.finishEvaluation(sub, ev, client.EvaluationStatusCompleted, s.resultFor(sub, ev), nil)
	}
	return http.StatusAccepted, answer, nil
}

func (sub *submission) activeEvaluation() *client.Evaluation {
	if n := len(sub.evaluations); n > 0 {
		if ev := sub.evaluations[n-1]; ev.Status == client.EvaluationStatusQueued || ev.Status == client.EvaluationStatusRunning {
			return ev
		}
	}
	return nil
}

func (s *Server) getEvaluation(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	id, err := c.uuidParam("evaluation_id")
	if err != nil {
		return 0, nil, err
	}
	for i, ev := range sub.evaluations {
		if ev.Id != id {
			continue
		}
		if i < len(sub.evaluations)-1 {
			return 0, nil, newError(http.StatusConflict, "analysis_outdated", "a newer evaluation superseded this one")
		}
		return http.StatusOK, *ev, nil
	}
	return 0, nil, notFound("evaluation")
}

// finishEvaluation moves ev to status (completed, failed or canceled) through running,
// with the evaluation.* events the service emits, and the submission with it.
func (s *Server) finishEvaluation(sub *submission, ev *client.Evaluation, status client.EvaluationStatus, result *client.EvaluationResult, failure *client.Failure) {
	at := now()
	if ev.Status == client.EvaluationStatusQueued && status != client.EvaluationStatusCanceled {
		ev.Status, ev.StageLabel, ev.StartedAt = client.EvaluationStatusRunning, "Running", &at
		s.emitEvaluation(ev, client.EventTypeEvaluationStarted)
	}
	ev.Status, ev.FinishedAt, ev.Result, ev.Failure = status, &at, result, failure
	switch status {
	case client.EvaluationStatusCompleted:
		ev.StageLabel, ev.ProgressPercent, sub.Status = "Completed", 100, client.SubmissionStatusCompleted
		s.emitEvaluation(ev, client.EventTypeEvaluationCompleted)
	case client.EvaluationStatusFailed:
		ev.StageLabel, sub.Status = "Failed", client.SubmissionStatusFailed
		s.emitEvaluation(ev, client.EventTypeEvaluationFailed)
	default:
		ev.StageLabel = "Canceled"
		s.emitEvaluation(ev, client.EventTypeEvaluationCanceled)
	}
	sub.UpdatedAt = at
}

func (s *Server) emitEvaluation(ev *client.Evaluation, typ client.EventType) {
	s.emitLocked(typ, map[string]any{"evaluation": *ev})
}

// SetEvaluationResult sets the result of the evaluations completed from now on, by
// default and by CompleteEvaluation with a nil result. Without it, a result is made up
// from the submission: every check of its template fulfilled, every data field found,
// one readable document per input upload, and the summary passed / proceed / low.
func (s *Server) SetEvaluationResult(result client.EvaluationResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.result = &result
}

// CompleteEvaluation completes a queued or running evaluation with result (nil: the
// result SetEvaluationResult set, or the made-up one), for WithManualEvaluations.
func (s *Server) CompleteEvaluation(evaluationID uuid.UUID, result *client.EvaluationResult) error {
	return s.settleEvaluation(evaluationID, func(sub *submission, ev *client.Evaluation) {
		if result == nil {
			result = s.resultFor(sub, ev)
		}
		s.finishEvaluation(sub, ev, client.EvaluationStatusCompleted, result, nil)
	})
}

// FailEvaluation fails a queued or running evaluation with code and message, for
// WithManualEvaluations.
func (s *Server) FailEvaluation(evaluationID uuid.UUID, code, message string) error {
	return s.settleEvaluation(evaluationID, func(sub *submission, ev *client.Evaluation) {
		s.finishEvaluation(sub, ev, client.EvaluationStatusFailed, nil, &client.Failure{Code: code, Message: message})
	})
}

func (s *Server) settleEvaluation(evaluationID uuid.UUID, settle func(*submission, *client.Evaluation)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.submissions {
		if ev := sub.activeEvaluation(); ev != nil && ev.Id == evaluationID {
			settle(sub, ev)
			return nil
		}
	}
	return fmt.Errorf("sdktest: no queued or running evaluation %s", evaluationID)
}

// resultFor is the configured result, else one made up from the submission.
func (s *Server) resultFor(sub *submission, ev *client.Evaluation) *client.EvaluationResult {
	if s.result != nil {
		r := *s.result
		return &r
	}
	r := &client.EvaluationResult{
		Documents: []client.ResultDocument{}, Checks: []client.ResultCheck{}, Fields: []client.ResultField{},
		Summary: client.Summary{Outcome: client.SummaryOutcomePassed, Recommendation: client.SummaryRecommendationProceed, RiskBand: client.SummaryRiskBandLow},
	}
	for _, up := range sub.uploads {
		if up.UploadStatus != client.UploadStatusReady {
			continue
		}
		types := []string{"other"}
		for _, sl := range sub.slots {
			if up.DocumentSlotId != nil && *up.DocumentSlotId == sl.id {
				types = []string{sl.key}
			}
		}
		r.Documents = append(r.Documents, client.ResultDocument{
			UploadId: up.Id, FileId: up.FileId, ExternalFileId: up.ExternalFileId, DocumentSlotId: up.DocumentSlotId,
			DocumentTypes: types, Readability: client.Readability{Status: client.ReadabilityStatusPassed},
		})
	}
	for _, item := range sub.template.CheckItems {
		r.Checks = append(r.Checks, client.ResultCheck{
			CheckId: item.CheckId, Key: item.Key, Title: item.Title, Status: client.ResultCheckStatusFulfilled,
			Confidence: 0.9, ReasoningSummary: "Made up by sdktest.", Citations: []client.Citation{},
		})
	}
	for _, item := range sub.template.DataFieldItems {
		source := client.Model
		r.Fields = append(r.Fields, client.ResultField{
			DataFieldId: item.DataFieldId, Key: item.Key, Label: item.DisplayName, Status: client.ResultFieldStatusSucceeded,
			Confidence: 0.9, Value: madeUpValue(item.Key), Source: &source, Citations: []client.Citation{},
		})
	}
	return r
}

// madeUpValue is a value in the field's value_format for the fields the fake's
// templates carry, free text for any other.
func madeUpValue(key string) any {
	switch key {
	case "applicant_full_name":
		return "Erika Mustermann"
	case "net_monthly_income":
		return map[string]any{"amount": "3250.00", "currency": "EUR"}
	}
	return "made up by sdktest"
}
