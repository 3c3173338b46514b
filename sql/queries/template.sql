-- name: TemplateInsert :execrows
-- A custom template; 0 rows when a concurrent create took the key first.
INSERT INTO templates (id, api_client_id, key, display_name, is_default, revision, created_at, updated_at)
VALUES (@id, @api_client_id, @key, @display_name, false, 1, @now, @now)
ON CONFLICT (api_client_id, key) WHERE api_client_id IS NOT NULL DO NOTHING;

-- name: TemplateBuiltinUpdate :exec
UPDATE templates SET display_name = @display_name, revision = revision + 1, updated_at = @now
WHERE id = @id AND api_client_id IS NULL;

-- name: TemplateBuiltinInsert :execrows
INSERT INTO templates (id, api_client_id, key, display_name, is_default, revision, created_at, updated_at)
VALUES (@id, NULL, @key, @display_name, false, 1, @now, @now)
ON CONFLICT (key) WHERE api_client_id IS NULL DO NOTHING;

-- name: TemplateGetByID :one
SELECT * FROM templates WHERE id = @id AND api_client_id = @api_client_id;

-- name: TemplateGetByKey :one
SELECT * FROM templates
WHERE key = @key AND (api_client_id IS NULL OR api_client_id = @api_client_id)
ORDER BY api_client_id NULLS FIRST
LIMIT 1;

-- name: TemplateClientDefault :one
SELECT * FROM templates WHERE api_client_id = @api_client_id AND is_default;

-- name: TemplateList :many
-- Builtin and the client's custom templates, not archived, oldest first.
SELECT * FROM templates
WHERE (api_client_id IS NULL OR api_client_id = @api_client_id)
  AND archived_at IS NULL
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (created_at, id) > (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY created_at, id
LIMIT @max_rows;

-- name: TemplateKeysTaken :many
SELECT key FROM templates
WHERE (api_client_id IS NULL OR api_client_id = @api_client_id)
  AND (key = @base OR key LIKE @base || '\_%');

-- name: TemplateWrite :one
-- One write to a live custom template at the expected revision: the revision grows by
-- one. The row lock makes concurrent writers with the same expected revision serialize;
-- the second finds the revision moved on and updates nothing.
UPDATE templates
SET revision = revision + 1,
    display_name = coalesce(sqlc.narg(display_name), display_name),
    is_default = coalesce(sqlc.narg(is_default), is_default),
    updated_at = @now
WHERE id = @id AND api_client_id = @api_client_id AND revision = @expected_revision AND archived_at IS NULL
RETURNING *;

-- name: TemplateArchive :one
UPDATE templates
SET revision = revision + 1, is_default = false, archived_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id AND api_client_id = @api_client_id AND archived_at IS NULL
RETURNING *;

-- name: TemplateClearDefault :exec
-- Clearing the flag is a write to those templates too: their revision grows.
UPDATE templates
SET is_default = false, revision = revision + 1, updated_at = @now
WHERE api_client_id = @api_client_id AND is_default AND id <> @keep;

-- name: TemplateItemsDelete :exec
DELETE FROM template_items WHERE template_id = @template_id AND kind = @kind;

-- name: TemplateItemInsert :exec
INSERT INTO template_items (template_id, kind, position, entry_id, required, allow_multiple_files, label, description, confidence_threshold)
VALUES (@template_id, @kind, @position, @entry_id, @required, @allow_multiple_files, sqlc.narg(label), sqlc.narg(description), sqlc.narg(confidence_threshold));

-- name: TemplateItems :many
-- The items of a template with their entries' current versions, in display order.
SELECT i.kind, i.position, i.required, i.allow_multiple_files, i.label AS item_label,
       i.description AS item_description, i.confidence_threshold,
       e.id AS entry_id, e.api_client_id AS entry_client_id, e.key AS entry_key, e.version AS entry_version,
       (e.archived_at IS NOT NULL)::boolean AS entry_archived,
       v.name, v.description, v.prompt, v.category, v.product_types, v.value_format
FROM template_items i
JOIN catalog_entries e ON e.id = i.entry_id
JOIN catalog_entry_versions v ON v.entry_id = e.id AND v.version = e.version
WHERE i.template_id = @template_id
ORDER BY i.kind, i.position;

-- name: ClientLockForTemplates :exec
-- Serializes changes of a client's default template (a transaction-scoped advisory
-- lock: it blocks nothing else the client does).
SELECT pg_advisory_xact_lock(hashtextextended('doceval_default_template:' || @id::text, 0));

-- name: TemplateGetForShare :one
-- FOR SHARE while a snapshot is taken: a concurrent write or archive waits for it, and
-- the row read is the one last committed.
SELECT * FROM templates WHERE id = @id FOR SHARE;
