package store

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/jobs"
)

// A disabled API client is stopped, not only refused at the API (403
// api_client_disabled): its webhook deliveries are held (DeliveryClaim skips them; no
// attempt is made or counted), and its evaluation and ingest jobs are set aside by the
// workers that meet them (held_at; their messages acknowledged). Enabling the client
// enqueues the held jobs again in the same transaction, and its deliveries are claimed
// again, the overdue ones at once.
//
// A worker takes the client's hold lock (shared) before it reads whether the client is
// disabled and sets a job aside, and before it locks the submission and evaluation;
// SetClientDisabled takes it exclusively before anything else. So an enabling waits for
// a job being set aside and then enqueues it, or the worker reads the client enabled
// and runs the job: a held job is never missed.

// ErrClientDisabled: the job's API client is disabled; its job was set aside (held)
// and is enqueued again when the client is enabled.
var ErrClientDisabled = errors.New("the API client is disabled: its job is held until it is enabled")

// clientDisabled reads whether client is disabled, holding off its disabling and
// enabling until the transaction ends.
func (tx *Tx) clientDisabled(ctx context.Context, client uuid.UUID) (bool, error) {
	if err := tx.q.ClientHoldLockShared(ctx, client); err != nil {
		return false, interpretError(err)
	}
	disabled, err := tx.q.ClientDisabled(ctx, client)
	return disabled, interpretError(err)
}

// evaluationClientDisabled is clientDisabled for the client of evaluation id.
func (tx *Tx) evaluationClientDisabled(ctx context.Context, id uuid.UUID) (bool, error) {
	owner, err := tx.q.EvaluationOwner(ctx, id)
	if err != nil {
		return false, interpretError(err)
	}
	return tx.clientDisabled(ctx, owner.APIClientID)
}

// HoldIngest sets a processing upload's ingest job aside when its API client is
// disabled, and reports whether it did (the worker then acknowledges the job without
// running it).
func (s *Store) HoldIngest(ctx context.Context, upload IngestUpload) (bool, error) {
	held := false
	err := s.InTx(ctx, func(tx *Tx) error {
		disabled, err := tx.clientDisabled(ctx, upload.Submission.ClientID)
		if err != nil || !disabled {
			held = false
			return err
		}
		held = true
		return interpretError(tx.q.UploadHold(ctx, db.UploadHoldParams{ID: upload.ID, Now: s.Now()}))
	})
	return held, err
}

// Resumed counts the held jobs an enabling enqueued again.
type Resumed struct {
	Evaluations int `json:"evaluations"`
	Uploads     int `json:"uploads"`
}

// resumeHeldJobs enqueues again, through the outbox, the jobs set aside while client
// was disabled: its active evaluations and processing uploads.
func (tx *Tx) resumeHeldJobs(ctx context.Context, client uuid.UUID) (Resumed, error) {
	var r Resumed
	now := tx.s.Now()
	evals, err := tx.q.EvaluationsResume(ctx, db.EvaluationsResumeParams{APIClientID: client, Now: now})
	if err != nil {
		return r, interpretError(err)
	}
	for _, e := range evals {
		if !e.Active {
			continue
		}
		if err := tx.Enqueue(ctx, jobs.EvaluateJob{EvaluationID: e.ID, APIClientID: client}); err != nil {
			return r, err
		}
		r.Evaluations++
	}
	uploads, err := tx.q.UploadsResume(ctx, db.UploadsResumeParams{APIClientID: client, Now: now})
	if err != nil {
		return r, interpretError(err)
	}
	for _, u := range uploads {
		if !u.Processing {
			continue
		}
		if err := tx.Enqueue(ctx, jobs.IngestJob{UploadID: u.ID, APIClientID: client}); err != nil {
			return r, err
		}
		r.Uploads++
	}
	return r, nil
}
