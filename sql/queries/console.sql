-- Reads of the console, across API clients (the console checks what each operator may see).

-- name: QueueList :many
-- Submissions with their latest completed evaluation's summary, filtered, newest or oldest first,
-- keyset-paginated on (created_at, id) in the chosen direction. @client_ids limits the
-- clients unless @all_clients.
SELECT s.id, s.api_client_id, c.name AS client_name, s.display_id, s.external_submission_id,
       s.template_id, s.status, s.created_at, s.updated_at,
       coalesce(e.result -> 'summary' ->> 'outcome', '')::text AS outcome,
       coalesce(e.result -> 'summary' ->> 'recommendation', '')::text AS recommendation,
       coalesce(e.result -> 'summary' ->> 'risk_band', '')::text AS risk_band,
       (SELECT count(*) FROM document_slots d WHERE d.submission_id = s.id AND d.review_decision IS NULL AND d.status = 'received')::bigint AS slots_to_review
FROM submissions s
JOIN api_clients c ON c.id = s.api_client_id
LEFT JOIN LATERAL (
    SELECT ev.result FROM evaluations ev
    WHERE ev.submission_id = s.id AND ev.status = 'completed' ORDER BY ev.seq DESC LIMIT 1
) e ON true
WHERE s.purge_requested_at IS NULL
  AND (@all_clients::boolean OR s.api_client_id = ANY (@client_ids::uuid[]))
  AND (sqlc.narg(client_id)::uuid IS NULL OR s.api_client_id = sqlc.narg(client_id)::uuid)
  AND (sqlc.narg(status)::text IS NULL OR s.status = sqlc.narg(status)::text)
  AND (sqlc.narg(outcome)::text IS NULL OR e.result -> 'summary' ->> 'outcome' = sqlc.narg(outcome)::text)
  AND (sqlc.narg(recommendation)::text IS NULL OR e.result -> 'summary' ->> 'recommendation' = sqlc.narg(recommendation)::text)
  AND (sqlc.narg(risk_band)::text IS NULL OR e.result -> 'summary' ->> 'risk_band' = sqlc.narg(risk_band)::text)
  AND (sqlc.narg(created_before)::timestamptz IS NULL OR s.created_at < sqlc.narg(created_before)::timestamptz)
  AND (sqlc.narg(created_after)::timestamptz IS NULL OR s.created_at >= sqlc.narg(created_after)::timestamptz)
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (@oldest_first::boolean AND (s.created_at, s.id) > (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
       OR (NOT @oldest_first::boolean AND (s.created_at, s.id) < (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid)))
ORDER BY
  CASE WHEN @oldest_first::boolean THEN s.created_at END ASC,
  CASE WHEN @oldest_first::boolean THEN s.id END ASC,
  s.created_at DESC, s.id DESC
LIMIT @max_rows;

-- name: QueueSearch :many
-- Submissions whose display id (upper case, so @term in any case) or external
-- submission id (exactly) is @term, among the clients the operator sees (all with
-- @all_clients), newest first: the queue's search box. A client has at most one of
-- each, so there is no paging. The match is read from submissions_display_id_idx and
-- submissions_external_id_idx (a BitmapOr: 0.1-0.7 ms at 300,000 submissions of 300
-- clients, where the unique indexes, which lead with the client, meant a full scan).
-- The columns are QueueList's.
SELECT s.id, s.api_client_id, c.name AS client_name, s.display_id, s.external_submission_id,
       s.template_id, s.status, s.created_at, s.updated_at,
       coalesce(e.result -> 'summary' ->> 'outcome', '')::text AS outcome,
       coalesce(e.result -> 'summary' ->> 'recommendation', '')::text AS recommendation,
       coalesce(e.result -> 'summary' ->> 'risk_band', '')::text AS risk_band,
       (SELECT count(*) FROM document_slots d WHERE d.submission_id = s.id AND d.review_decision IS NULL AND d.status = 'received')::bigint AS slots_to_review
FROM api_clients c
JOIN submissions s ON s.api_client_id = c.id
LEFT JOIN LATERAL (
    SELECT ev.result FROM evaluations ev
    WHERE ev.submission_id = s.id AND ev.status = 'completed' ORDER BY ev.seq DESC LIMIT 1
) e ON true
WHERE (@all_clients::boolean OR c.id = ANY (@client_ids::uuid[]))
  AND (s.display_id = upper(@term::text) OR s.external_submission_id = @term::text)
  AND s.purge_requested_at IS NULL
ORDER BY s.created_at DESC, s.id DESC
LIMIT @max_rows;

-- name: UploadClientOf :one
SELECT u.api_client_id, u.submission_id FROM uploads u WHERE u.id = @id;

-- name: EndpointDeliveryHealth :many
-- Deliveries of a client's endpoints since @since, counted by status, with the last activity.
SELECT d.endpoint_id, d.status, count(*)::bigint AS deliveries, coalesce(max(d.last_attempted_at), max(d.created_at))::timestamptz AS last_activity_at
FROM deliveries d
WHERE d.api_client_id = @api_client_id AND d.created_at >= @since
GROUP BY d.endpoint_id, d.status;

-- name: SubmissionOwnerOf :one
-- The client a submission belongs to and whether it is being purged.
SELECT api_client_id, (purge_requested_at IS NOT NULL)::boolean AS purging FROM submissions WHERE id = @id;

-- name: PageGeometryOne :one
-- One stored page of an upload, for the document viewer.
SELECT * FROM upload_pages WHERE upload_id = @upload_id AND page = @page;
