-- name: AuditInsert :exec
INSERT INTO audit_log (id, at, operator_id, actor, action, target_type, target_id, details, ip, user_agent)
VALUES (@id, @at, sqlc.narg(operator_id), @actor, @action, @target_type, @target_id, @details, @ip, @user_agent);

-- name: AuditList :many
-- Newest first, keyset-paginated on (at, id).
SELECT * FROM audit_log
WHERE (sqlc.narg(action)::text IS NULL OR action = sqlc.narg(action)::text)
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL
       OR (at, id) < (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY at DESC, id DESC
LIMIT @max_rows;
