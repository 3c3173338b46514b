-- The API caches what a key authenticates as (store.KeyCache). A change to what that
-- answer depends on, a key revoked or removed, a client's permissions or disabled state
-- changed, is announced on doceval_api_keys by the transaction that makes it (delivered
-- when it commits), whatever changed it; every API replica then drops its cached
-- answers. last_used_at, which a request writes, is not announced.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION api_keys_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('doceval_api_keys', '');
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER api_keys_notify AFTER UPDATE OF key_hash, api_client_id, revoked_at OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION api_keys_notify();
CREATE TRIGGER api_clients_notify AFTER UPDATE OF permissions, disabled_at OR DELETE OR TRUNCATE ON api_clients
    FOR EACH STATEMENT EXECUTE FUNCTION api_keys_notify();

-- +goose Down
DROP TRIGGER api_clients_notify ON api_clients;
DROP TRIGGER api_keys_notify ON api_keys;
DROP FUNCTION api_keys_notify();
