package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/jobs"
)

// BeginIngestAttempt counts an ingest attempt that reached the file and returns how
// many there have been. Only those count against the attempt budget: a delivery that
// met a database or blob store outage never gets here. ErrNotFound: the upload is gone
// or no longer processing.
func (s *Store) BeginIngestAttempt(ctx context.Context, id uuid.UUID) (int, error) {
	n, err := s.queries(ctx).UploadBeginAttempt(ctx, id)
	return int(n), interpretError(err)
}

// GiveBackIngestAttempt takes back an attempt BeginIngestAttempt counted whose file was
// never parsed (the extractor service was busy or could not be reached).
func (s *Store) GiveBackIngestAttempt(ctx context.Context, id uuid.UUID) error {
	return interpretError(s.queries(ctx).UploadGiveBackAttempt(ctx, id))
}

// OrphanedUploads lists processing uploads whose job was last enqueued more than age
// ago. The caller decides whether their jobs are still in flight.
func (s *Store) OrphanedUploads(ctx context.Context, age time.Duration) ([]uuid.UUID, error) {
	before := s.Now().Add(-age)
	ids, err := s.queries(ctx).UploadsOrphaned(ctx, &before)
	return ids, interpretError(err)
}

// RequeueUpload enqueues an orphaned upload's ingest job again, through the outbox, if
// it is still processing and still stale (another replica may have done it). It
// reports whether it did.
func (s *Store) RequeueUpload(ctx context.Context, id uuid.UUID, age time.Duration) (bool, error) {
	done := false
	err := s.InTx(ctx, func(tx *Tx) error {
		now := s.Now()
		before := now.Add(-age)
		n, err := tx.q.UploadRequeue(ctx, db.UploadRequeueParams{ID: id, Now: &now, Before: &before})
		if err != nil || n == 0 {
			done = false
			return interpretError(err)
		}
		done = true
		u, err := tx.q.UploadGetAny(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		return tx.Enqueue(ctx, jobs.IngestJob{UploadID: id, APIClientID: u.APIClientID})
	})
	return done, err
}

// OrphanedEvaluations lists queued evaluations untouched for longer than queued and
// running ones untouched for longer than running.
func (s *Store) OrphanedEvaluations(ctx context.Context, queued, running time.Duration) ([]uuid.UUID, error) {
	now := s.Now()
	ids, err := s.queries(ctx).EvaluationsOrphaned(ctx, db.EvaluationsOrphanedParams{QueuedBefore: now.Add(-queued), RunningBefore: now.Add(-running)})
	return ids, interpretError(err)
}

// RequeueEvaluation enqueues an orphaned evaluation's job again, through the outbox, if
// it is still active and untouched for longer than age. It reports whether it did.
func (s *Store) RequeueEvaluation(ctx context.Context, id uuid.UUID, age time.Duration) (bool, error) {
	done := false
	err := s.InTx(ctx, func(tx *Tx) error {
		now := s.Now()
		n, err := tx.q.EvaluationRequeue(ctx, db.EvaluationRequeueParams{ID: id, Now: now, Before: now.Add(-age)})
		if err != nil || n == 0 {
			done = false
			return interpretError(err)
		}
		done = true
		owner, err := tx.q.EvaluationOwner(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		return tx.Enqueue(ctx, jobs.EvaluateJob{EvaluationID: id, APIClientID: owner.APIClientID})
	})
	return done, err
}

// OutboxWaiting reports whether a message of subject, or of a subject starting with
// prefix, waits in the outbox (not yet published): its job is in flight even if
// JetStream has not seen it.
func (s *Store) OutboxWaiting(ctx context.Context, subject, prefix string) (bool, error) {
	waiting, err := s.queries(ctx).OutboxWaiting(ctx, db.OutboxWaitingParams{Subject: subject, Prefix: prefix})
	return waiting, interpretError(err)
}

// OrphanedPurges lists submissions whose purge was requested, or last enqueued again,
// more than age ago and that still exist. The caller decides whether their purge jobs
// are still in flight.
func (s *Store) OrphanedPurges(ctx context.Context, age time.Duration) ([]uuid.UUID, error) {
	ids, err := s.queries(ctx).SubmissionsPurgeOrphaned(ctx, s.Now().Add(-age))
	return ids, interpretError(err)
}

// RequeuePurge enqueues an orphaned purge's job again, through the outbox, if the
// submission still waits for it and is still stale (another replica may have done it).
// It reports whether it did.
func (s *Store) RequeuePurge(ctx context.Context, id uuid.UUID, age time.Duration) (bool, error) {
	done := false
	err := s.InTx(ctx, func(tx *Tx) error {
		now := s.Now()
		n, err := tx.q.SubmissionPurgeRequeue(ctx, db.SubmissionPurgeRequeueParams{ID: id, Now: now, Before: now.Add(-age)})
		if err != nil || n == 0 {
			done = false
			return interpretError(err)
		}
		done = true
		return tx.Enqueue(ctx, jobs.PurgeJob{SubmissionID: id})
	})
	return done, err
}

// PurgeStats reports the purges requested and not finished: how many, and how long ago
// the oldest was requested (0 when none waits).
func (s *Store) PurgeStats(ctx context.Context) (pending int64, oldestAge time.Duration, err error) {
	now := s.Now()
	row, err := s.queries(ctx).SubmissionsPurgePending(ctx, now)
	if err != nil {
		return 0, 0, interpretError(err)
	}
	return row.Pending, now.Sub(row.Oldest), nil
}
