-- name: UploadInsert :execrows
-- 0 rows: the external file id is taken within the submission (a concurrent duplicate).
INSERT INTO uploads (id, submission_id, api_client_id, external_file_id, file_id, document_slot_id, filename, content_type,
                     size_bytes, sha256, blob_key, upload_status, created_at, updated_at)
VALUES (@id, @submission_id, @api_client_id, @external_file_id, @file_id, sqlc.narg(document_slot_id), @filename, @content_type,
        @size_bytes, @sha256, @blob_key, 'processing', @now, @now)
ON CONFLICT (submission_id, external_file_id) DO NOTHING;

-- name: UploadGet :one
SELECT * FROM uploads WHERE submission_id = @submission_id AND id = @id;

-- name: UploadGetByExternalID :one
SELECT * FROM uploads WHERE submission_id = @submission_id AND external_file_id = @external_file_id;

-- name: UploadGetAny :one
SELECT * FROM uploads WHERE id = @id;

-- name: UploadsOfSubmission :many
SELECT * FROM uploads WHERE submission_id = @submission_id ORDER BY created_at DESC, id DESC;

-- name: UploadList :many
SELECT * FROM uploads
WHERE submission_id = @submission_id
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: UploadSetSlot :one
UPDATE uploads SET document_slot_id = sqlc.narg(document_slot_id), updated_at = @now
WHERE id = @id
RETURNING *;

-- name: UploadDelete :exec
DELETE FROM uploads WHERE id = @id;

-- name: UploadCountInSubmission :one
SELECT count(*) FROM uploads WHERE submission_id = @submission_id;

-- name: UploadCountInSlot :one
SELECT count(*) FROM uploads WHERE document_slot_id = @document_slot_id AND id <> @excluding;

-- name: UploadMarkReady :one
UPDATE uploads SET upload_status = 'ready', page_count = @page_count, metadata = @metadata, failure_code = NULL, failure_message = NULL, updated_at = @now
WHERE id = @id AND upload_status = 'processing'
RETURNING *;

-- name: UploadMarkFailed :one
UPDATE uploads SET upload_status = 'failed', failure_code = @failure_code, failure_message = @failure_message, updated_at = @now
WHERE id = @id AND upload_status = 'processing'
RETURNING *;

-- name: UploadPageInsert :exec
INSERT INTO upload_pages (upload_id, page, text, chars, ocr, ocr_confidence, width, height, words)
VALUES (@upload_id, @page, @text, @chars, @ocr, sqlc.narg(ocr_confidence), sqlc.narg(width), sqlc.narg(height), sqlc.narg(words))
ON CONFLICT (upload_id, page) DO UPDATE SET text = excluded.text, chars = excluded.chars, ocr = excluded.ocr, ocr_confidence = excluded.ocr_confidence,
                                            width = excluded.width, height = excluded.height, words = excluded.words;

-- name: UploadPages :many
SELECT * FROM upload_pages WHERE upload_id = @upload_id ORDER BY page;

-- name: UploadGiveBackAttempt :exec
-- Takes back an attempt that never reached the file (the extractor was busy or away).
UPDATE uploads SET ingest_attempts = greatest(ingest_attempts - 1, 0)
WHERE id = @id AND upload_status = 'processing';

-- name: UploadBeginAttempt :one
-- Counts an attempt that reached the file; NULL row when the upload is not processing.
UPDATE uploads SET ingest_attempts = ingest_attempts + 1
WHERE id = @id AND upload_status = 'processing'
RETURNING ingest_attempts;

-- name: UploadsOrphaned :many
-- Processing uploads whose job was enqueued before @before and that still wait (held
-- ones have no job by design: enabling their client enqueues it).
SELECT id FROM uploads
WHERE upload_status = 'processing' AND coalesce(job_enqueued_at, created_at) < @before AND held_at IS NULL
ORDER BY created_at LIMIT 200;

-- name: UploadRequeue :execrows
UPDATE uploads SET job_enqueued_at = @now
WHERE id = @id AND upload_status = 'processing' AND coalesce(job_enqueued_at, created_at) < @before AND held_at IS NULL;

-- name: UploadHold :exec
-- Sets a processing upload's ingest job aside while its client is disabled.
UPDATE uploads SET held_at = @now::timestamptz WHERE id = @id AND upload_status = 'processing';

-- name: UploadsResume :many
-- The client's held uploads, released when it is enabled: the processing ones get a job
-- again (the caller enqueues it).
UPDATE uploads
SET held_at = NULL,
    job_enqueued_at = CASE WHEN upload_status = 'processing' THEN @now::timestamptz ELSE job_enqueued_at END
WHERE api_client_id = @api_client_id AND held_at IS NOT NULL
RETURNING id, (upload_status = 'processing')::boolean AS processing;

-- name: UploadsReferencingObjects :many
-- For the orphan sweep: the uploads whose stored bytes are among @blob_keys, or whose id
-- is among @ids (a rendered page lies under its upload's id).
SELECT id, api_client_id, submission_id, blob_key FROM uploads
WHERE blob_key = ANY(@blob_keys::text[]) OR id = ANY(@ids::uuid[]);
