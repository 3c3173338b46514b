-- name: SubmissionInsert :one
-- No row: the external id (or, rarely, the display id) is taken; the caller re-reads.
INSERT INTO submissions (id, api_client_id, display_id, external_submission_id, template_id, snapshot, language, metadata, status, created_at, updated_at)
VALUES (@id, @api_client_id, @display_id, @external_submission_id, @template_id, @snapshot, @language, @metadata, 'collecting_documents', @now, @now)
ON CONFLICT DO NOTHING
RETURNING *;

-- name: SubmissionGet :one
SELECT * FROM submissions WHERE api_client_id = @api_client_id AND id = @id;

-- name: SubmissionGetForUpdate :one
SELECT * FROM submissions WHERE api_client_id = @api_client_id AND id = @id FOR UPDATE;

-- name: SubmissionGetByExternalID :one
SELECT * FROM submissions WHERE api_client_id = @api_client_id AND external_submission_id = @external_submission_id;

-- name: SubmissionDisplayIDTaken :one
SELECT EXISTS (SELECT 1 FROM submissions WHERE api_client_id = @api_client_id AND display_id = @display_id);

-- name: SubmissionList :many
-- Newest first, keyset-paginated on (created_at, id); submissions being purged are hidden.
SELECT id, display_id, template_id, external_submission_id, status, created_at, updated_at
FROM submissions
WHERE api_client_id = @api_client_id
  AND purge_requested_at IS NULL
  AND (sqlc.narg(external_submission_id)::text IS NULL OR external_submission_id = sqlc.narg(external_submission_id)::text)
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status)::text)
  AND (sqlc.narg(template_id)::text IS NULL OR template_id = sqlc.narg(template_id)::text)
  AND (sqlc.narg(created_at_gte)::timestamptz IS NULL OR created_at >= sqlc.narg(created_at_gte)::timestamptz)
  AND (sqlc.narg(created_at_lt)::timestamptz IS NULL OR created_at < sqlc.narg(created_at_lt)::timestamptz)
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: SubmissionSetMetadata :one
UPDATE submissions SET metadata = @metadata, updated_at = @now
WHERE api_client_id = @api_client_id AND id = @id
RETURNING *;

-- name: SubmissionSetStatus :exec
UPDATE submissions SET status = @status, updated_at = @now WHERE id = @id;

-- name: SubmissionRequestPurge :exec
UPDATE submissions SET purge_requested_at = @now::timestamptz, updated_at = @now::timestamptz WHERE id = @id AND purge_requested_at IS NULL;

-- name: SubmissionsPurgeOrphaned :many
-- Submissions whose purge was requested (or last enqueued again) before @before and that
-- still exist: their purge job may be lost.
SELECT id FROM submissions
WHERE purge_requested_at IS NOT NULL AND coalesce(purge_enqueued_at, purge_requested_at) < @before::timestamptz
ORDER BY purge_requested_at LIMIT 200;

-- name: SubmissionPurgeRequeue :execrows
UPDATE submissions SET purge_enqueued_at = @now::timestamptz
WHERE id = @id AND purge_requested_at IS NOT NULL
  AND coalesce(purge_enqueued_at, purge_requested_at) < @before::timestamptz;

-- name: SubmissionsPurgePending :one
-- For the purge metrics: how many purges wait, and when the oldest was requested.
SELECT count(*) AS pending, coalesce(min(purge_requested_at), @now::timestamptz)::timestamptz AS oldest
FROM submissions WHERE purge_requested_at IS NOT NULL;

-- name: SubmissionGetAny :one
-- For the purge worker: the submission whatever its client.
SELECT * FROM submissions WHERE id = @id;

-- name: SubmissionDelete :exec
DELETE FROM submissions WHERE id = @id;

-- name: SlotsInsert :exec
-- A new submission's slots in one statement: element i of each array is one slot (the
-- arrays are unnested side by side).
INSERT INTO document_slots (id, submission_id, position, key, label, description, document_type_id, required, allow_multiple_files, extra, status, updated_at)
SELECT unnest(@ids::uuid[]), @submission_id, unnest(@positions::int[]), unnest(@keys::text[]), unnest(@labels::text[]),
       unnest(@descriptions::text[]), unnest(@document_type_ids::text[]), unnest(@required::bool[]),
       unnest(@allow_multiple_files::bool[]), unnest(@extra::bool[]), 'missing', @now;

-- name: SlotsOfSubmission :many
SELECT * FROM document_slots WHERE submission_id = @submission_id ORDER BY position;

-- name: SlotGet :one
SELECT * FROM document_slots WHERE submission_id = @submission_id AND id = @id;

-- name: SlotSetStatus :exec
-- A computed status: it replaces any advisor decision (SlotSetReview).
UPDATE document_slots
SET status = @status, review_decision = NULL, review_reason = NULL, review_decided_at = NULL,
    review_operator_id = NULL, updated_at = @now
WHERE id = @id;

-- name: SlotSetReview :exec
UPDATE document_slots
SET status = @decision::text, review_decision = @decision::text, review_reason = sqlc.narg(reason),
    review_decided_at = @now, review_operator_id = @operator_id, updated_at = @now
WHERE id = @id;

-- name: SlotUploadStatuses :many
SELECT upload_status FROM uploads WHERE document_slot_id = @document_slot_id;
