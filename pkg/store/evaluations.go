package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
)

func evaluationFromRow(r db.Evaluation, externalSubmissionID string) evaluation.Evaluation {
	e := evaluation.Evaluation{
		ID: r.ID, Kind: r.Kind, Status: r.Status, StageLabel: r.StageLabel, ProgressPercent: int(r.ProgressPercent),
		InputFileIDs: r.InputFileIds, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, SubmissionID: r.SubmissionID,
		ExternalSubmissionID: externalSubmissionID, ClientID: r.APIClientID, InputUploadIDs: r.InputUploadIds,
		Attempts: int(r.Attempts), ProgressEmittedAt: r.ProgressEmittedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.FailureCode != nil {
		e.Failure = &evaluation.Failure{Code: *r.FailureCode, Message: deref(r.FailureMessage, "")}
	}
	if r.Result != nil {
		e.Result = r.Result
	}
	return e
}

// StartEvaluation queues an evaluation over the submission's ready uploads and moves
// the submission to evaluating; it refuses more pages than the tenant's limits allow.
// The unique index on active evaluations refuses a second one even if two requests pass
// the status read at once.
func (t Tenant) StartEvaluation(ctx context.Context, submissionID uuid.UUID) (evaluation.Evaluation, error) {
	var out evaluation.Evaluation
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.live(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		if err := evaluation.CheckStart(s.Status); err != nil {
			return err
		}
		uploads, err := tx.q.UploadsOfSubmission(ctx, s.ID)
		if err != nil {
			return interpretError(err)
		}
		var uploadIDs, fileIDs []uuid.UUID
		pages := 0
		for i := len(uploads) - 1; i >= 0; i-- { // oldest first: the order partners uploaded in
			if u := uploads[i]; u.UploadStatus == submission.UploadReady {
				uploadIDs, fileIDs = append(uploadIDs, u.ID), append(fileIDs, u.FileID)
				if u.PageCount != nil {
					pages += int(*u.PageCount)
				}
			}
		}
		if err := evaluation.CheckInputs(len(uploadIDs)); err != nil {
			return err
		}
		if err := evaluation.CheckPages(pages, t.limits.PagesPerEvaluation); err != nil {
			return err
		}
		now := t.s.Now()
		r, err := tx.q.EvaluationInsert(ctx, db.EvaluationInsertParams{
			ID: t.s.NewID(), SubmissionID: s.ID, APIClientID: t.clientID, Kind: evaluation.KindBasic, StageLabel: evaluation.StageQueued,
			InputUploadIds: uploadIDs, InputFileIds: fileIDs, Now: now,
		})
		if err = interpretError(err); errors.Is(err, ErrConflict) {
			return evaluation.ErrInProgress
		} else if err != nil {
			return err
		}
		if err := tx.q.SubmissionSetStatus(ctx, db.SubmissionSetStatusParams{ID: s.ID, Status: submission.StatusEvaluating, Now: now}); err != nil {
			return interpretError(err)
		}
		out = evaluationFromRow(r, s.ExternalID)
		return tx.Enqueue(ctx, jobs.EvaluateJob{EvaluationID: r.ID, APIClientID: t.clientID})
	})
	return out, err
}

// Evaluation reads one of the submission's evaluations. One that a newer evaluation
// superseded is refused (evaluation.ErrOutdated), as is a submission being purged.
func (t Tenant) Evaluation(ctx context.Context, submissionID, id uuid.UUID) (evaluation.Evaluation, error) {
	var out evaluation.Evaluation
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.readable(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		r, err := tx.q.EvaluationGet(ctx, db.EvaluationGetParams{SubmissionID: s.ID, ID: id})
		if err != nil {
			return interpretError(err)
		}
		latest, err := tx.q.EvaluationLatest(ctx, s.ID)
		if err != nil {
			return interpretError(err)
		}
		if err := evaluation.CheckLatest(latest.ID == r.ID); err != nil {
			return err
		}
		out = evaluationFromRow(r, s.ExternalID)
		return nil
	})
	return out, err
}

// latestEvaluation is the submission's newest evaluation, or nil.
func (tx *Tx) latestEvaluation(ctx context.Context, s submission.Submission) (*evaluation.Evaluation, error) {
	r, err := tx.q.EvaluationLatest(ctx, s.ID)
	switch err := interpretError(err); {
	case errors.Is(err, ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	e := evaluationFromRow(r, s.ExternalID)
	return &e, nil
}

// cancelActiveEvaluations cancels the submission's queued or running evaluation (the
// caller holds the submission's lock) and emits evaluation.canceled. The evaluator
// notices at its next step; its completion then finds nothing running and writes no
// result.
func (tx *Tx) cancelActiveEvaluations(ctx context.Context, s submission.Submission) error {
	active, err := tx.q.EvaluationsActiveOfSubmission(ctx, s.ID)
	if err != nil {
		return interpretError(err)
	}
	for _, a := range active {
		r, err := tx.q.EvaluationCancel(ctx, db.EvaluationCancelParams{ID: a.ID, StageLabel: evaluation.StageCanceled, Now: tx.s.Now()})
		if err != nil {
			return interpretError(err)
		}
		if err := tx.emitEvaluation(ctx, events.EvaluationCanceled, evaluationFromRow(r, s.ExternalID)); err != nil {
			return err
		}
	}
	return nil
}

func (tx *Tx) emitEvaluation(ctx context.Context, typ events.Type, e evaluation.Evaluation) error {
	_, err := tx.Emit(ctx, events.Draft{APIClientID: e.ClientID, Type: typ, SubmissionID: &e.SubmissionID, Data: evaluation.EventData{Evaluation: e}})
	return err
}

// ---- the evaluator's side

// EvaluationRun is what the evaluator needs to run an evaluation.
type EvaluationRun struct {
	Evaluation evaluation.Evaluation
	Submission submission.Submission
	// Slots are the template's requirements plus the submission's extra ones.
	Slots []submission.Slot
	// Inputs are the evaluation's input uploads, in input order.
	Inputs []EvaluationInput
}

// EvaluationInput is one input upload of an evaluation with the pages ingest stored.
type EvaluationInput struct {
	Upload submission.Upload
	Pages  []document.Page
}

// BeginEvaluation moves a queued evaluation to running (evaluation.started) or takes over
// a running one whose worker died, and loads its inputs. A job delivered more than
// maxAttempts times ends the evaluation as failed (evaluation_crashed) instead, so a
// document that kills the worker cannot keep it running forever. evaluation.ErrOver: the
// evaluation is not active any more; ErrNotFound: it is gone; ErrClientDisabled: its
// client is disabled, and the evaluation was set aside, no attempt counted.
func (s *Store) BeginEvaluation(ctx context.Context, id uuid.UUID, maxAttempts int) (EvaluationRun, error) {
	var run EvaluationRun
	ended, held := false, false
	err := s.InTx(ctx, func(tx *Tx) error {
		run, ended, held = EvaluationRun{}, false, false
		disabled, err := tx.evaluationClientDisabled(ctx, id)
		if err != nil {
			return err
		}
		sub, cur, err := tx.lockEvaluation(ctx, id)
		if err != nil {
			return err
		}
		if err := evaluation.CheckActive(cur.Status); err != nil {
			return err
		}
		if disabled {
			held = true
			return interpretError(tx.q.EvaluationHold(ctx, db.EvaluationHoldParams{ID: id, GiveBack: 0, Now: s.Now()}))
		}
		if maxAttempts > 0 && cur.Attempts >= maxAttempts {
			ended = true
			return tx.failEvaluation(ctx, sub, cur.ID, "evaluation_crashed",
				"the evaluation stopped unexpectedly several times; start a new evaluation or contact support")
		}
		r, err := tx.q.EvaluationBegin(ctx, db.EvaluationBeginParams{ID: id, StageLabel: evaluation.StageStarting, Now: s.Now()})
		if err != nil {
			return interpretError(err)
		}
		run.Evaluation, run.Submission = evaluationFromRow(r, sub.ExternalID), sub
		if cur.Status == evaluation.StatusQueued {
			if err := tx.emitEvaluation(ctx, events.EvaluationStarted, run.Evaluation); err != nil {
				return err
			}
		}
		run.Slots, run.Inputs, err = tx.evaluationInputs(ctx, sub, run.Evaluation.InputUploadIDs)
		return err
	})
	switch {
	case err == nil && ended:
		return EvaluationRun{}, evaluation.ErrOver
	case err == nil && held:
		return EvaluationRun{}, ErrClientDisabled
	}
	return run, err
}

// lockEvaluation locks the evaluation's submission, then the evaluation. Every
// transaction that takes both takes them in this order (cancel and delete lock the
// submission, then its active evaluations), so none waits on another in a cycle.
func (tx *Tx) lockEvaluation(ctx context.Context, id uuid.UUID) (submission.Submission, evaluation.Evaluation, error) {
	owner, err := tx.q.EvaluationOwner(ctx, id)
	if err != nil {
		return submission.Submission{}, evaluation.Evaluation{}, interpretError(err)
	}
	sr, err := tx.q.SubmissionGetForUpdate(ctx, db.SubmissionGetForUpdateParams{APIClientID: owner.APIClientID, ID: owner.SubmissionID})
	if err != nil {
		return submission.Submission{}, evaluation.Evaluation{}, interpretError(err)
	}
	sub, err := submissionFromRow(sr)
	if err != nil {
		return submission.Submission{}, evaluation.Evaluation{}, err
	}
	r, err := tx.q.EvaluationGetForUpdate(ctx, id)
	if err != nil {
		return submission.Submission{}, evaluation.Evaluation{}, interpretError(err)
	}
	return sub, evaluationFromRow(r, sub.ExternalID), nil
}

// evaluationInputs loads the submission's slots and the input uploads with their pages,
// in input order. An input upload deleted since (impossible while the evaluation is
// active, but cheap to tolerate) is left out.
func (tx *Tx) evaluationInputs(ctx context.Context, sub submission.Submission, uploadIDs []uuid.UUID) ([]submission.Slot, []EvaluationInput, error) {
	rows, err := tx.q.SlotsOfSubmission(ctx, sub.ID)
	if err != nil {
		return nil, nil, interpretError(err)
	}
	slots := make([]submission.Slot, len(rows))
	for i, r := range rows {
		slots[i] = slotFromRow(r)
	}
	inputs := make([]EvaluationInput, 0, len(uploadIDs))
	for _, id := range uploadIDs {
		u, err := tx.q.UploadGet(ctx, db.UploadGetParams{SubmissionID: sub.ID, ID: id})
		if errors.Is(interpretError(err), ErrNotFound) {
			continue
		} else if err != nil {
			return nil, nil, interpretError(err)
		}
		pageRows, err := tx.q.UploadPages(ctx, id)
		if err != nil {
			return nil, nil, interpretError(err)
		}
		in := EvaluationInput{Upload: uploadFromRow(u, sub.ExternalID), Pages: make([]document.Page, len(pageRows))}
		for i, r := range pageRows {
			in.Pages[i] = pageFromRow(r)
		}
		inputs = append(inputs, in)
	}
	return slots, inputs, nil
}

// EvaluationProgress records the stage and percentage of a running evaluation and
// emits evaluation.progress unless one was emitted less than throttle ago.
// evaluation.ErrOver: it was canceled meanwhile; the evaluator stops. ErrClientDisabled:
// its client was disabled meanwhile; the evaluator stops and the evaluation is set
// aside, the attempt its run counted given back, to run again when the client is
// enabled.
func (s *Store) EvaluationProgress(ctx context.Context, id uuid.UUID, stage string, percent int, throttle time.Duration) error {
	held := false
	err := s.InTx(ctx, func(tx *Tx) error {
		held = false
		disabled, err := tx.evaluationClientDisabled(ctx, id)
		if err != nil {
			return err
		}
		sub, cur, err := tx.lockEvaluation(ctx, id)
		if err != nil {
			return err
		}
		if err := evaluation.CheckRunning(cur.Status); err != nil {
			return err
		}
		now := s.Now()
		if disabled {
			held = true
			return interpretError(tx.q.EvaluationHold(ctx, db.EvaluationHoldParams{ID: id, GiveBack: 1, Now: now}))
		}
		emit := cur.ProgressEmittedAt == nil || now.Sub(*cur.ProgressEmittedAt) >= throttle
		r, err := tx.q.EvaluationSetProgress(ctx, db.EvaluationSetProgressParams{
			ID: id, StageLabel: stage, ProgressPercent: int32(min(max(percent, 0), 99)), Emitted: emit, Now: now,
		})
		if err != nil {
			return interpretError(err)
		}
		if !emit {
			return nil
		}
		return tx.emitEvaluation(ctx, events.EvaluationProgress, evaluationFromRow(r, sub.ExternalID))
	})
	if err == nil && held {
		return ErrClientDisabled
	}
	return err
}

// CompleteEvaluation stores the result of a running evaluation, emits
// evaluation.completed and moves the submission to completed. evaluation.ErrOver: it
// was canceled (or finished by another delivery) meanwhile, and nothing is written.
func (s *Store) CompleteEvaluation(ctx context.Context, id uuid.UUID, result json.RawMessage) error {
	return s.InTx(ctx, func(tx *Tx) error {
		sub, cur, err := tx.lockEvaluation(ctx, id)
		if err != nil {
			return err
		}
		if err := evaluation.CheckRunning(cur.Status); err != nil {
			return err
		}
		now := s.Now()
		r, err := tx.q.EvaluationComplete(ctx, db.EvaluationCompleteParams{ID: id, Result: result, StageLabel: evaluation.StageCompleted, Now: now})
		if err != nil {
			return interpretError(err)
		}
		if err := tx.finishSubmission(ctx, sub, submission.StatusCompleted); err != nil {
			return err
		}
		return tx.emitEvaluation(ctx, events.EvaluationCompleted, evaluationFromRow(r, sub.ExternalID))
	})
}

// FailEvaluation ends a queued or running evaluation as failed with code and message,
// emits evaluation.failed and moves the submission to failed. evaluation.ErrOver: it is
// not active any more.
func (s *Store) FailEvaluation(ctx context.Context, id uuid.UUID, code, message string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		sub, cur, err := tx.lockEvaluation(ctx, id)
		if err != nil {
			return err
		}
		if err := evaluation.CheckActive(cur.Status); err != nil {
			return err
		}
		return tx.failEvaluation(ctx, sub, id, code, message)
	})
}

// failEvaluation ends the evaluation as failed and the evaluating submission with it.
func (tx *Tx) failEvaluation(ctx context.Context, sub submission.Submission, id uuid.UUID, code, message string) error {
	r, err := tx.q.EvaluationFail(ctx, db.EvaluationFailParams{ID: id, FailureCode: &code, FailureMessage: &message, StageLabel: evaluation.StageFailed, Now: tx.s.Now()})
	if err != nil {
		return interpretError(err)
	}
	if err := tx.finishSubmission(ctx, sub, submission.StatusFailed); err != nil {
		return err
	}
	return tx.emitEvaluation(ctx, events.EvaluationFailed, evaluationFromRow(r, sub.ExternalID))
}

// finishSubmission moves an evaluating submission to the outcome of its evaluation.
func (tx *Tx) finishSubmission(ctx context.Context, sub submission.Submission, status string) error {
	if sub.Status != submission.StatusEvaluating {
		return nil
	}
	return interpretError(tx.q.SubmissionSetStatus(ctx, db.SubmissionSetStatusParams{ID: sub.ID, Status: status, Now: tx.s.Now()}))
}

// StaleEvaluations lists running evaluations untouched for longer than running and
// queued ones older than queued.
func (s *Store) StaleEvaluations(ctx context.Context, running, queued time.Duration) ([]uuid.UUID, error) {
	now := s.Now()
	ids, err := s.queries(ctx).EvaluationsStale(ctx, db.EvaluationsStaleParams{RunningBefore: now.Add(-running), QueuedBefore: now.Add(-queued)})
	return ids, interpretError(err)
}
