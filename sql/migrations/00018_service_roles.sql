-- A database role per service, holding only the tables and rights that service's code
-- reaches (found from each service's main down to the sqlc queries it can call), so a
-- compromised service can touch no more than its own work. The roles are NOLOGIN
-- groups: a deployment gives each service a login user that is a member of its group
-- (deploy/helm/doceval/README.md, "Database roles"); `make run` does so itself.
-- Migrations run as the owner of the tables, who alone may change or drop them, or
-- their triggers.
--
-- Role names are cluster-wide, table privileges are per database: the groups are made
-- once per cluster (when missing, so a second database on the cluster, or roles a DBA
-- made beforehand, are fine) and granted in each database that runs this migration.
-- Creating them needs CREATEROLE only when they do not exist yet.
--
-- A new table is reached by no service until a block below (in a new migration) grants
-- it; TestEveryTableHasAGrant (pkg/store) fails for a table no role was given, and the
-- services' tests, which connect as their roles, fail for a missing grant.
--
-- Identity columns need no grant on their sequence; row locks (FOR UPDATE, FOR SHARE)
-- need UPDATE; foreign-key checks and ON DELETE CASCADE run with the owner's rights.
-- LISTEN/NOTIFY (the outbox wake-up) and advisory locks need no grant.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['doceval_api', 'doceval_ingest', 'doceval_evaluator',
                             'doceval_dispatcher', 'doceval_console', 'doceval_admin'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', r);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL; -- another database of the cluster migrating at the same moment made it
            END;
        END IF;
    END LOOP;
END
$$;
-- +goose StatementEnd

GRANT USAGE ON SCHEMA public TO doceval_api, doceval_ingest, doceval_evaluator,
    doceval_dispatcher, doceval_console, doceval_admin;

-- The audit log is insert-only for every application role: none is given UPDATE,
-- DELETE or TRUNCATE on it, nor owns it (so none can drop its append-only trigger).
-- The console reads it (its audit page); nothing deletes entries (no retention).
REVOKE ALL ON audit_log FROM PUBLIC;

-- The outbox, for every service that runs a relay (DOCEVAL_OUTBOX_RELAY): it claims
-- rows FOR UPDATE SKIP LOCKED, publishes them and deletes them; the backlog metric
-- and the reconcilers read it. Writers add INSERT in their own block.
GRANT SELECT, UPDATE, DELETE ON outbox TO doceval_api, doceval_ingest, doceval_evaluator,
    doceval_dispatcher, doceval_console;

-- api: the partner HTTP API (openapi/openapi.yaml). Authentication reads clients and
-- keys and records a key's last use; everything else is the contract's resources.
GRANT SELECT ON api_clients TO doceval_api;
GRANT SELECT, UPDATE (last_used_at) ON api_keys TO doceval_api;
GRANT SELECT, INSERT, UPDATE ON catalog_entries, templates, submissions, document_slots,
    evaluations, webhook_endpoints, deliveries TO doceval_api;
GRANT SELECT, INSERT ON catalog_entry_versions TO doceval_api;
GRANT SELECT, INSERT, DELETE ON template_items TO doceval_api;
GRANT SELECT, INSERT, UPDATE, DELETE ON uploads, idempotency_keys TO doceval_api;
GRANT SELECT ON upload_pages, delivery_attempts TO doceval_api;
GRANT SELECT, INSERT ON events TO doceval_api;
GRANT INSERT ON outbox TO doceval_api;

-- ingest: extracts uploads' text and runs submission purges (a purge deletes the
-- submission; its slots, uploads, pages and evaluations go by ON DELETE CASCADE).
GRANT SELECT, UPDATE, DELETE ON submissions TO doceval_ingest;
GRANT SELECT, UPDATE ON document_slots, uploads TO doceval_ingest;
GRANT SELECT, INSERT, UPDATE ON upload_pages TO doceval_ingest;
GRANT INSERT ON events, outbox TO doceval_ingest;
GRANT SELECT (id, disabled_at) ON api_clients TO doceval_ingest; -- a disabled client's ingest jobs are held

-- evaluator: runs evaluations on the uploads' text.
GRANT SELECT, UPDATE ON submissions, evaluations TO doceval_evaluator;
GRANT SELECT ON document_slots, uploads, upload_pages TO doceval_evaluator;
GRANT INSERT ON events, outbox TO doceval_evaluator;
GRANT SELECT (id, disabled_at) ON api_clients TO doceval_evaluator; -- a disabled client's evaluations are held

-- dispatcher: fans events out to webhook endpoints, delivers them, and deletes events
-- past retention (their deliveries go by ON DELETE CASCADE). It writes no outbox row.
GRANT SELECT, DELETE ON events TO doceval_dispatcher;
GRANT SELECT ON webhook_endpoints TO doceval_dispatcher;
GRANT SELECT, INSERT, UPDATE ON deliveries TO doceval_dispatcher;
GRANT INSERT ON delivery_attempts TO doceval_dispatcher;
GRANT SELECT (id, disabled_at) ON api_clients TO doceval_dispatcher; -- a disabled client's deliveries are held

-- console: the staff web console. Operators sign in (sessions, failed sign-ins), admins
-- manage API clients and keys, advisors read submissions and decide on slots; every
-- staff action is written to the audit log.
-- The console binds an SSO identity and keeps a second factor; an account's password,
-- role and access are the admin CLI's.
GRANT SELECT, UPDATE (oidc_subject, totp_pending_secret, totp_secret, totp_enabled_at,
    totp_last_step, updated_at) ON operators TO doceval_console;
GRANT SELECT ON operator_clients TO doceval_console;
GRANT SELECT, INSERT, UPDATE, DELETE ON console_sessions TO doceval_console;
GRANT SELECT, INSERT, DELETE ON console_login_failures TO doceval_console;
GRANT SELECT, INSERT ON audit_log TO doceval_console;
GRANT SELECT, INSERT, UPDATE ON api_clients, api_keys TO doceval_console;
GRANT SELECT, UPDATE ON submissions, document_slots TO doceval_console;
GRANT SELECT ON upload_pages, webhook_endpoints, deliveries, delivery_attempts TO doceval_console;
-- Enabling a client releases its held evaluations and uploads.
GRANT SELECT, UPDATE (held_at, job_enqueued_at) ON uploads TO doceval_console;
GRANT SELECT, UPDATE (held_at, job_enqueued_at, updated_at) ON evaluations TO doceval_console;
GRANT SELECT, INSERT ON events TO doceval_console;
GRANT INSERT ON outbox TO doceval_console;

-- admin: the doceval-admin CLI's commands (clients, keys, operators, `secrets
-- reencrypt`). Its `migrate` runs as the owner, not as this role.
GRANT SELECT, INSERT, UPDATE ON api_clients, api_keys, operators TO doceval_admin;
GRANT SELECT, INSERT, DELETE ON operator_clients TO doceval_admin;
GRANT SELECT, DELETE ON console_sessions TO doceval_admin;
GRANT INSERT ON audit_log TO doceval_admin;
GRANT SELECT, UPDATE ON webhook_endpoints TO doceval_admin;
-- secrets reencrypt reseals the responses kept for Idempotency-Key replay.
GRANT SELECT, UPDATE ON idempotency_keys TO doceval_admin;
-- Enabling a client releases its held evaluations and uploads and enqueues their jobs.
GRANT SELECT, UPDATE (held_at, job_enqueued_at) ON uploads TO doceval_admin;
GRANT SELECT, UPDATE (held_at, job_enqueued_at, updated_at) ON evaluations TO doceval_admin;
GRANT INSERT ON outbox TO doceval_admin;

-- +goose Down
-- The roles stay: other databases of the cluster may still grant to them.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM doceval_api, doceval_ingest, doceval_evaluator,
    doceval_dispatcher, doceval_console, doceval_admin;
REVOKE USAGE ON SCHEMA public FROM doceval_api, doceval_ingest, doceval_evaluator,
    doceval_dispatcher, doceval_console, doceval_admin;
