package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
)

// IdempotencyTTL is how long the first response to an Idempotency-Key is kept.
const IdempotencyTTL = 24 * time.Hour

// idempotencyStale is how long a first request may run before its key is taken to be
// abandoned (the process handling it died): longer than a JSON request takes. An upload
// may run longer; a retry that takes its key over is still held to the upload's
// external_file_id, so it cannot store the file twice.
const idempotencyStale = 2 * time.Minute

// StoredResponse is the first response to an Idempotency-Key.
type StoredResponse struct {
	Status      int
	ContentType string
	Body        []byte
}

// KeyRecord is what an Idempotency-Key already holds: a request still running, or the
// fingerprint of the first request and its response.
type KeyRecord struct {
	Running     bool
	RequestHash []byte
	Response    StoredResponse
}

// ClaimIdempotencyKey claims key for a first request, named owner (unique per
// request). When the key is taken, it returns claimed false and what the key holds.
// When it fails, the claim may still have been written (the answer was lost): the
// caller releases it by owner.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, client uuid.UUID, key string, owner uuid.UUID) (claimed bool, rec KeyRecord, err error) {
	now := s.Now()
	_, err = s.queries().IdempotencyClaim(ctx, db.IdempotencyClaimParams{
		APIClientID: client, Key: key, Now: now, ExpiresAt: now.Add(IdempotencyTTL), StaleBefore: now.Add(-idempotencyStale), Owner: &owner,
	})
	if err == nil {
		return true, KeyRecord{}, nil
	}
	if !errors.Is(interpretError(err), ErrNotFound) {
		return false, rec, interpretError(err)
	}
	r, err := s.queries().IdempotencyGet(ctx, db.IdempotencyGetParams{APIClientID: client, Key: key})
	if errors.Is(interpretError(err), ErrNotFound) {
		return s.ClaimIdempotencyKey(ctx, client, key, owner) // released in between: try again
	}
	if err != nil {
		return false, rec, interpretError(err)
	}
	rec = KeyRecord{Running: r.State == "running", RequestHash: r.RequestHash}
	if r.ResponseStatus != nil {
		rec.Response = StoredResponse{Status: int(*r.ResponseStatus), ContentType: deref(r.ResponseContentType, ""), Body: r.ResponseBody}
	}
	return false, rec, nil
}

// FinishIdempotencyKey keeps the first response to a key owner claimed with the
// request's fingerprint.
func (s *Store) FinishIdempotencyKey(ctx context.Context, client uuid.UUID, key string, owner uuid.UUID, requestHash []byte, resp StoredResponse) error {
	status := int32(resp.Status)
	return interpretError(s.queries().IdempotencyFinish(ctx, db.IdempotencyFinishParams{
		APIClientID: client, Key: key, Owner: &owner, RequestHash: requestHash, ResponseStatus: &status,
		ResponseContentType: &resp.ContentType, ResponseBody: resp.Body,
	}))
}

// ReleaseIdempotencyKey gives up a key owner claimed, whose request did nothing worth
// keeping (a 5xx, a 429), so a retry with the same key runs again. A key claimed by
// another request since (this claim went stale, or was never written) stays.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, client uuid.UUID, key string, owner uuid.UUID) error {
	return interpretError(s.queries().IdempotencyRelease(ctx, db.IdempotencyReleaseParams{APIClientID: client, Key: key, Owner: &owner}))
}

// DeleteExpiredIdempotencyKeys removes keys past their 24 hours.
func (s *Store) DeleteExpiredIdempotencyKeys(ctx context.Context) (int64, error) {
	n, err := s.queries().IdempotencyDeleteExpired(ctx, s.Now())
	return n, interpretError(err)
}
