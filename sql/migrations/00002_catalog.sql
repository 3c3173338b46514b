-- Catalog (checks, data fields, document types) and templates.
--
-- A catalog entry is builtin (api_client_id NULL; its public id is its key) or custom
-- (owned by one client; its public id is its UUID). Its content lives in versions: every
-- edit of a custom entry adds one, the entry points at the current one, and snapshots
-- keep the version they were taken with.

-- +goose Up
CREATE TABLE catalog_entries (
    id            uuid PRIMARY KEY,
    family        text NOT NULL CHECK (family IN ('check', 'data_field', 'document_type')),
    api_client_id uuid REFERENCES api_clients (id),
    key           text NOT NULL CHECK (key ~ '^[a-z0-9_]+$' AND length(key) <= 80),
    version       integer NOT NULL CHECK (version >= 1),
    archived_at   timestamptz,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE UNIQUE INDEX catalog_entries_builtin_key_idx ON catalog_entries (family, key) WHERE api_client_id IS NULL;
CREATE UNIQUE INDEX catalog_entries_client_key_idx ON catalog_entries (family, api_client_id, key) WHERE api_client_id IS NOT NULL;
CREATE INDEX catalog_entries_list_idx ON catalog_entries (family, created_at, id);

CREATE TABLE catalog_entry_versions (
    entry_id      uuid NOT NULL REFERENCES catalog_entries (id),
    version       integer NOT NULL,
    -- name is a check's title, or a data field's or document type's display name.
    name          text NOT NULL,
    description   text NOT NULL,
    prompt        text,
    category      text NOT NULL,
    product_types text[] NOT NULL,
    value_format  text,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (entry_id, version)
);

CREATE TABLE templates (
    id            uuid PRIMARY KEY,
    api_client_id uuid REFERENCES api_clients (id),
    key           text NOT NULL CHECK (key ~ '^[a-z0-9_]+$' AND length(key) <= 80),
    display_name  text NOT NULL,
    is_default    boolean NOT NULL DEFAULT false,
    revision      integer NOT NULL CHECK (revision >= 1),
    archived_at   timestamptz,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    CHECK (NOT (is_default AND (archived_at IS NOT NULL OR api_client_id IS NULL)))
);
CREATE UNIQUE INDEX templates_builtin_key_idx ON templates (key) WHERE api_client_id IS NULL;
CREATE UNIQUE INDEX templates_client_key_idx ON templates (api_client_id, key) WHERE api_client_id IS NOT NULL;
-- At most one custom default per client.
CREATE UNIQUE INDEX templates_one_default_idx ON templates (api_client_id) WHERE is_default;
CREATE INDEX templates_list_idx ON templates (created_at, id);

-- The items of a template, in display order per kind.
CREATE TABLE template_items (
    template_id          uuid NOT NULL REFERENCES templates (id),
    kind                 text NOT NULL CHECK (kind IN ('document_requirement', 'check', 'data_field')),
    position             integer NOT NULL,
    entry_id             uuid NOT NULL REFERENCES catalog_entries (id),
    required             boolean NOT NULL,
    allow_multiple_files boolean NOT NULL,
    label                text,
    description          text,
    confidence_threshold double precision CHECK (confidence_threshold BETWEEN 0 AND 1),
    PRIMARY KEY (template_id, kind, position),
    UNIQUE (template_id, kind, entry_id)
);
CREATE INDEX template_items_entry_idx ON template_items (entry_id);

-- +goose Down
DROP TABLE template_items;
DROP TABLE templates;
DROP TABLE catalog_entry_versions;
DROP TABLE catalog_entries;
