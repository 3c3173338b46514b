-- name: SessionInsert :exec
INSERT INTO console_sessions (token_hash, operator_id, csrf_token, created_at, last_seen_at, expires_at, ip, user_agent, mfa_pending)
VALUES (@token_hash, @operator_id, @csrf_token, @now, @now, @expires_at, @ip, @user_agent, @mfa_pending);

-- name: SessionTouch :one
-- The session behind a cookie, if it is neither idle past @idle_before nor past its
-- absolute expiry, and its operator is enabled; last_seen_at is moved forward in the same
-- statement (at most once per @stale_before, so page loads do not all write).
WITH found AS (
    SELECT s.token_hash, s.operator_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at
    FROM console_sessions s
    JOIN operators o ON o.id = s.operator_id
    WHERE s.token_hash = @token_hash
      AND s.expires_at > @now::timestamptz
      AND s.last_seen_at > @idle_before::timestamptz
      AND NOT s.mfa_pending
      AND o.disabled_at IS NULL
), touched AS (
    UPDATE console_sessions u SET last_seen_at = @now::timestamptz
    FROM found f
    WHERE u.token_hash = f.token_hash AND u.last_seen_at < @stale_before::timestamptz
)
SELECT token_hash, operator_id, csrf_token, created_at, last_seen_at, expires_at FROM found;

-- name: SessionPendingGet :one
-- A session waiting for its second factor, unexpired, of an enabled operator.
SELECT s.token_hash, s.operator_id, s.csrf_token, s.created_at, s.expires_at
FROM console_sessions s
JOIN operators o ON o.id = s.operator_id
WHERE s.token_hash = @token_hash
  AND s.mfa_pending
  AND s.expires_at > @now::timestamptz
  AND o.disabled_at IS NULL;

-- name: SessionDelete :exec
DELETE FROM console_sessions WHERE token_hash = @token_hash;

-- name: SessionDeleteOfOperator :execrows
DELETE FROM console_sessions WHERE operator_id = @operator_id;

-- name: SessionDeleteExpired :execrows
DELETE FROM console_sessions WHERE expires_at <= @now::timestamptz OR last_seen_at <= @idle_before::timestamptz;

-- name: LoginFailureInsert :one
INSERT INTO console_login_failures (email, ip, kind, at) VALUES (lower(@email::text), @ip, @kind, @now)
RETURNING id;

-- name: LoginFailureDelete :exec
DELETE FROM console_login_failures WHERE id = @id;

-- name: LoginFailureCount :one
-- Failures for this e-mail from this address, failures from this address for any
-- e-mail, and wrong codes for this e-mail from any address, since @since.
SELECT
    (SELECT count(*) FROM console_login_failures f
     WHERE f.email = lower(@email::text) AND f.ip = @ip::text AND f.at > @since::timestamptz)::bigint AS by_account_source,
    (SELECT count(*) FROM console_login_failures f WHERE f.ip = @ip::text AND f.at > @since::timestamptz)::bigint AS by_source,
    (SELECT count(*) FROM console_login_failures f
     WHERE f.email = lower(@email::text) AND f.kind = 'code' AND f.at > @since::timestamptz)::bigint AS codes_by_account;

-- name: LoginFailureClear :exec
-- Forgets the failures of an e-mail from one address (after a sign-in from there):
-- a sign-in elsewhere leaves a guesser's count where it is.
DELETE FROM console_login_failures WHERE email = lower(@email::text) AND ip = @ip::text;

-- name: LoginFailureDeleteBefore :execrows
DELETE FROM console_login_failures WHERE at < @before::timestamptz;
