-- name: EvaluationInsert :one
-- A second active evaluation of the submission violates evaluations_one_active_idx.
INSERT INTO evaluations (id, submission_id, api_client_id, kind, status, stage_label, progress_percent,
                         input_upload_ids, input_file_ids, created_at, updated_at)
VALUES (@id, @submission_id, @api_client_id, @kind, 'queued', @stage_label, 0,
        @input_upload_ids::uuid[], @input_file_ids::uuid[], @now::timestamptz, @now::timestamptz)
RETURNING *;

-- name: EvaluationGet :one
SELECT * FROM evaluations WHERE submission_id = @submission_id AND id = @id;

-- name: EvaluationOwner :one
-- Without a lock: the submission is locked first, then the evaluation (one lock order).
SELECT submission_id, api_client_id FROM evaluations WHERE id = @id;

-- name: EvaluationGetForUpdate :one
SELECT * FROM evaluations WHERE id = @id FOR UPDATE;

-- name: EvaluationLatest :one
SELECT * FROM evaluations WHERE submission_id = @submission_id ORDER BY seq DESC LIMIT 1;

-- name: EvaluationsActiveOfSubmission :many
SELECT * FROM evaluations WHERE submission_id = @submission_id AND status IN ('queued', 'running') FOR UPDATE;

-- name: EvaluationBegin :one
UPDATE evaluations
SET status = 'running', started_at = coalesce(started_at, @now::timestamptz), attempts = attempts + 1,
    stage_label = @stage_label, updated_at = @now::timestamptz
WHERE id = @id AND status IN ('queued', 'running')
RETURNING *;

-- name: EvaluationSetProgress :one
UPDATE evaluations
SET stage_label = @stage_label, progress_percent = @progress_percent, updated_at = @now::timestamptz,
    progress_emitted_at = CASE WHEN @emitted::boolean THEN @now::timestamptz ELSE progress_emitted_at END
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: EvaluationComplete :one
UPDATE evaluations
SET status = 'completed', result = @result, stage_label = @stage_label, progress_percent = 100,
    finished_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: EvaluationFail :one
UPDATE evaluations
SET status = 'failed', failure_code = @failure_code, failure_message = @failure_message, stage_label = @stage_label,
    finished_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id AND status IN ('queued', 'running')
RETURNING *;

-- name: EvaluationCancel :one
UPDATE evaluations
SET status = 'canceled', stage_label = @stage_label, finished_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id AND status IN ('queued', 'running')
RETURNING *;

-- name: EvaluationsStale :many
-- Active evaluations nothing has touched for too long: their job is lost or keeps dying.
-- Held ones (their client is disabled) wait for the client, not for a job.
SELECT id FROM evaluations
WHERE ((status = 'running' AND updated_at < @running_before::timestamptz)
    OR (status = 'queued' AND updated_at < @queued_before::timestamptz))
  AND held_at IS NULL
ORDER BY updated_at LIMIT 1000;

-- name: EvaluationsOrphaned :many
-- Active evaluations untouched since before their window: queued ones by @queued_before,
-- running ones by @running_before (a live run touches its row within its timeout).
-- Held ones have no job by design: enabling their client enqueues it.
SELECT id FROM evaluations
WHERE ((status = 'queued' AND greatest(updated_at, coalesce(job_enqueued_at, created_at)) < @queued_before::timestamptz)
    OR (status = 'running' AND greatest(updated_at, coalesce(job_enqueued_at, created_at)) < @running_before::timestamptz))
  AND held_at IS NULL
ORDER BY created_at LIMIT 200;

-- name: EvaluationRequeue :execrows
UPDATE evaluations SET job_enqueued_at = @now::timestamptz
WHERE id = @id AND status IN ('queued', 'running') AND held_at IS NULL
  AND greatest(updated_at, coalesce(job_enqueued_at, created_at)) < @before::timestamptz;

-- name: EvaluationHold :exec
-- Sets an active evaluation's job aside while its client is disabled, giving back the
-- attempt its run counted (@give_back 1 when a run was stopped, 0 before it began).
UPDATE evaluations SET held_at = @now::timestamptz, attempts = greatest(attempts - @give_back::int, 0)
WHERE id = @id AND status IN ('queued', 'running');

-- name: EvaluationsResume :many
-- The client's held evaluations, released when it is enabled: the active ones get a job
-- again (the caller enqueues it) and their clocks restart, so neither the sweeper nor
-- the reconciler takes the wait for a lost job.
UPDATE evaluations
SET held_at = NULL,
    job_enqueued_at = CASE WHEN status IN ('queued', 'running') THEN @now::timestamptz ELSE job_enqueued_at END,
    updated_at = CASE WHEN status IN ('queued', 'running') THEN @now::timestamptz ELSE updated_at END
WHERE api_client_id = @api_client_id AND held_at IS NOT NULL
RETURNING id, (status IN ('queued', 'running'))::boolean AS active;
