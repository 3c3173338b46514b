-- The console: staff accounts (operators), their sessions and sign-in failures, the
-- audit log, and advisors' decisions on document slots.

-- +goose Up
CREATE TABLE operators (
    id            uuid PRIMARY KEY,
    email         text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    role          text NOT NULL CHECK (role IN ('admin', 'advisor')),
    -- An argon2id hash in PHC form; NULL: the account signs in through single sign-on only.
    password_hash text,
    -- "issuer subject" of the OpenID Connect identity bound at the first SSO sign-in.
    oidc_subject  text,
    -- false: the operator sees only the API clients in operator_clients.
    all_clients   boolean NOT NULL DEFAULT true,
    disabled_at   timestamptz,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE UNIQUE INDEX operators_email_idx ON operators (lower(email));
CREATE UNIQUE INDEX operators_oidc_subject_idx ON operators (oidc_subject) WHERE oidc_subject IS NOT NULL;

CREATE TABLE operator_clients (
    operator_id   uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    api_client_id uuid NOT NULL REFERENCES api_clients (id),
    PRIMARY KEY (operator_id, api_client_id)
);

-- Sessions are found by the SHA-256 of the cookie's token; the token itself is never
-- stored. csrf_token is the session's form token.
CREATE TABLE console_sessions (
    token_hash   bytea PRIMARY KEY,
    operator_id  uuid NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    csrf_token   text NOT NULL,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    ip           text NOT NULL,
    user_agent   text NOT NULL
);
CREATE INDEX console_sessions_operator_idx ON console_sessions (operator_id);

-- Failed sign-ins, counted per e-mail and per address to throttle guessing.
CREATE TABLE console_login_failures (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email text NOT NULL,
    ip    text NOT NULL,
    at    timestamptz NOT NULL
);
CREATE INDEX console_login_failures_email_idx ON console_login_failures (email, at);
CREATE INDEX console_login_failures_ip_idx ON console_login_failures (ip, at);

-- Who did what, when, from where. Append-only: a trigger refuses UPDATE and DELETE.
-- operator_id is not a foreign key, so an entry outlives its operator; actor keeps the
-- e-mail as it was.
CREATE TABLE audit_log (
    id          uuid PRIMARY KEY,
    at          timestamptz NOT NULL,
    operator_id uuid,
    actor       text NOT NULL,
    action      text NOT NULL,
    target_type text NOT NULL,
    target_id   text NOT NULL,
    details     jsonb NOT NULL,
    ip          text NOT NULL,
    user_agent  text NOT NULL
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);

-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- An advisor's decision on a slot. The slot's status is the decision while it stands;
-- any upload change on the slot clears it (SlotSetStatus). review_operator_id is for
-- the audit trail only: partners never see who decided.
ALTER TABLE document_slots
    ADD COLUMN review_decision    text CHECK (review_decision IN ('accepted', 'rejected', 'needs_review')),
    ADD COLUMN review_reason      text,
    ADD COLUMN review_decided_at  timestamptz,
    ADD COLUMN review_operator_id uuid;

-- +goose Down
ALTER TABLE document_slots
    DROP COLUMN review_decision, DROP COLUMN review_reason,
    DROP COLUMN review_decided_at, DROP COLUMN review_operator_id;
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
DROP TABLE console_login_failures;
DROP TABLE console_sessions;
DROP TABLE operator_clients;
DROP TABLE operators;
