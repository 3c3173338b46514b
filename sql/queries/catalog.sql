-- name: CatalogEntryInsert :execrows
-- A custom entry; 0 rows when a concurrent create took the key first.
INSERT INTO catalog_entries (id, family, api_client_id, key, version, created_at, updated_at)
VALUES (@id, @family, @api_client_id, @key, 1, @now, @now)
ON CONFLICT (family, api_client_id, key) WHERE api_client_id IS NOT NULL DO NOTHING;

-- name: CatalogBuiltinInsert :execrows
-- Builtins are loaded by every replica at start-up; the first one inserts.
INSERT INTO catalog_entries (id, family, api_client_id, key, version, created_at, updated_at)
VALUES (@id, @family, NULL, @key, 1, @now, @now)
ON CONFLICT (family, key) WHERE api_client_id IS NULL DO NOTHING;

-- name: CatalogVersionInsert :exec
INSERT INTO catalog_entry_versions (entry_id, version, name, description, prompt, category, product_types, value_format, created_at)
VALUES (@entry_id, @version, @name, @description, sqlc.narg(prompt), @category, @product_types::text[], sqlc.narg(value_format), @now);

-- name: CatalogEntryBumpVersion :one
-- Makes room for a new version of a live entry; locks the row until commit, so
-- concurrent edits of one entry serialize.
UPDATE catalog_entries SET version = version + 1, updated_at = @now
WHERE id = @id AND archived_at IS NULL
RETURNING version;

-- name: CatalogEntryArchive :execrows
UPDATE catalog_entries SET archived_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE id = @id AND archived_at IS NULL;

-- name: CatalogEntryGetByID :one
-- A client's custom entry by its UUID.
SELECT sqlc.embed(e), sqlc.embed(v)
FROM catalog_entries e
JOIN catalog_entry_versions v ON v.entry_id = e.id AND v.version = e.version
WHERE e.family = @family AND e.id = @id AND e.api_client_id = @api_client_id;

-- name: CatalogEntryGetByKey :one
-- A builtin entry, or the client's custom one, by key (keys never collide: custom keys
-- avoid builtin ones).
SELECT sqlc.embed(e), sqlc.embed(v)
FROM catalog_entries e
JOIN catalog_entry_versions v ON v.entry_id = e.id AND v.version = e.version
WHERE e.family = @family AND e.key = @key AND (e.api_client_id IS NULL OR e.api_client_id = @api_client_id)
ORDER BY e.api_client_id NULLS FIRST
LIMIT 1;

-- name: CatalogEntryList :many
-- Builtin and the client's custom entries, not archived, in catalog order (oldest first).
SELECT sqlc.embed(e), sqlc.embed(v)
FROM catalog_entries e
JOIN catalog_entry_versions v ON v.entry_id = e.id AND v.version = e.version
WHERE e.family = @family
  AND (e.api_client_id IS NULL OR e.api_client_id = @api_client_id)
  AND e.archived_at IS NULL
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (e.created_at, e.id) > (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY e.created_at, e.id
LIMIT @max_rows;

-- name: CatalogKeysTaken :many
-- Keys a new custom entry of the family must avoid: builtin keys and the client's own.
SELECT key FROM catalog_entries
WHERE family = @family AND (api_client_id IS NULL OR api_client_id = @api_client_id)
  AND (key = @base OR key LIKE @base || '\_%');

-- name: CatalogBuiltinKeys :many
SELECT key FROM catalog_entries WHERE family = @family AND api_client_id IS NULL;

-- name: CatalogEntryLock :exec
-- FOR UPDATE before an edit (concurrent edits of one entry apply one after the other).
SELECT id FROM catalog_entries WHERE id = @id FOR UPDATE;

-- name: CatalogEntryLockShare :exec
-- FOR SHARE while a template references the entry: a concurrent archive waits.
SELECT id FROM catalog_entries WHERE id = @id FOR SHARE;
