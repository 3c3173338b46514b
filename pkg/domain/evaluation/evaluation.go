// Package evaluation holds an evaluation of a submission: the Evaluation with its JSON
// form (the spec's Evaluation) and the data of the evaluation.* events, its statuses,
// when one may start (startEvaluation), that only the latest one is read
// (getEvaluation), and that the evaluator stops writing to one that is over. pkg/store
// reads and writes them.
package evaluation

import (
	"errors"
	"fmt"

	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/submission"
)

// The statuses of the spec's EvaluationStatus.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCanceled  = "canceled"
)

// KindBasic is the only kind of evaluation today.
const KindBasic = "basic"

// Stage labels set by the rules here; the evaluator names its own stages.
const (
	StageQueued    = "Queued"
	StageStarting  = "Starting"
	StageCompleted = "Completed"
	StageFailed    = "Failed"
	StageCanceled  = "Canceled"
)

// Refusals of evaluation starts and reads.
var (
	ErrNoReadyUpload = errors.New("the submission has no upload in status ready; upload a document and wait for file.ready")
	ErrInProgress    = errors.New("an evaluation of this submission is queued or running; wait for it to end")
	ErrOutdated      = errors.New("a newer evaluation superseded this one; read the submission's latest_evaluation")
	// ErrOver tells the evaluator the evaluation is no longer running: canceled (or
	// deleted with its submission), or finished by another delivery.
	ErrOver = errors.New("evaluation is no longer running")
)

// Active reports whether an evaluation in status is queued or running.
func Active(status string) bool {
	return status == StatusQueued || status == StatusRunning
}

// CheckStart refuses an evaluation of a submission in status that is canceled or
// already evaluating.
func CheckStart(status string) error {
	switch status {
	case submission.StatusCanceled:
		return submission.ErrCanceled
	case submission.StatusEvaluating:
		return ErrInProgress
	}
	return nil
}

// CheckInputs refuses an evaluation without input: ready counts the submission's
// uploads in status ready.
func CheckInputs(ready int) error {
	if ready == 0 {
		return ErrNoReadyUpload
	}
	return nil
}

// CheckPages refuses an evaluation whose ready uploads hold pages pages when one may
// read at most maxPages (0: no cap): the evaluator loads every page and its word boxes
// at once.
func CheckPages(pages, maxPages int) error {
	if maxPages > 0 && pages > maxPages {
		return &domain.LimitError{Message: fmt.Sprintf("the submission's ready uploads hold %d pages; an evaluation reads at most %d; delete uploads before starting one", pages, maxPages)}
	}
	return nil
}

// CheckLatest refuses reading an evaluation that is not the submission's latest.
func CheckLatest(isLatest bool) error {
	if !isLatest {
		return ErrOutdated
	}
	return nil
}

// CheckActive refuses beginning or failing an evaluation that is no longer queued or
// running.
func CheckActive(status string) error {
	if !Active(status) {
		return ErrOver
	}
	return nil
}

// CheckRunning refuses the evaluator's progress and result for an evaluation that is
// not running.
func CheckRunning(status string) error {
	if status != StatusRunning {
		return ErrOver
	}
	return nil
}
