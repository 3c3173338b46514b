-- Staff sign-in a bank accepts: a TOTP second factor for password accounts, a session
-- that waits for that code, and sign-in failures counted per account and source.

-- +goose Up
-- The TOTP secret is sealed with the console's own key ring (DOCEVAL_CONSOLE_SECRET_KEY,
-- secretbox; not the webhook secrets' DOCEVAL_SECRET_KEY) bound to the operator's id;
-- `doceval-admin secrets reencrypt` reseals it. totp_pending_secret is an enrolment
-- not yet confirmed with a code.
-- totp_last_step is the time step of the last code accepted: a code of that step or
-- an earlier one is refused, so each code signs in once.
ALTER TABLE operators
    ADD COLUMN totp_secret         bytea,
    ADD COLUMN totp_pending_secret bytea,
    ADD COLUMN totp_enabled_at     timestamptz,
    ADD COLUMN totp_last_step      bigint,
    ADD CONSTRAINT operators_totp_enabled CHECK ((totp_secret IS NULL) = (totp_enabled_at IS NULL));

-- A session whose password was right but whose second factor is still to come: it
-- opens nothing but the code form (SessionTouch never finds it).
ALTER TABLE console_sessions ADD COLUMN mfa_pending boolean NOT NULL DEFAULT false;

-- Failures are counted per (e-mail, address) and per address. Wrong second-factor
-- codes (kind 'code') are also counted per e-mail from any address: only someone with
-- the password reaches the code form, so that limit cannot lock a stranger's target out.
DROP INDEX console_login_failures_email_idx;
ALTER TABLE console_login_failures
    ADD COLUMN kind text NOT NULL DEFAULT 'password' CHECK (kind IN ('password', 'code'));
CREATE INDEX console_login_failures_email_ip_idx ON console_login_failures (email, ip, at);
CREATE INDEX console_login_failures_email_code_idx ON console_login_failures (email, at) WHERE kind = 'code';

-- +goose Down
DROP INDEX console_login_failures_email_code_idx;
DROP INDEX console_login_failures_email_ip_idx;
ALTER TABLE console_login_failures DROP COLUMN kind;
CREATE INDEX console_login_failures_email_idx ON console_login_failures (email, at);
ALTER TABLE console_sessions DROP COLUMN mfa_pending;
ALTER TABLE operators
    DROP CONSTRAINT operators_totp_enabled,
    DROP COLUMN totp_secret, DROP COLUMN totp_pending_secret,
    DROP COLUMN totp_enabled_at, DROP COLUMN totp_last_step;
