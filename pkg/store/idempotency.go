package store

import (
	"context"
	"errors"
	"fmt"
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

// StoredResponse is the first response to an Idempotency-Key. Its body rests sealed
// (SealedBody: secretbox, bound to IdempotencyOwner): a createWebhookEndpoint or
// rotateWebhookSecret answer carries signing_secret. Body is set instead only on a row
// kept in clear before bodies were sealed (until it expires or is sealed by
// ResealIdempotencyResponses).
type StoredResponse struct {
	Status      int
	ContentType string
	SealedBody  []byte
	Body        []byte
}

// IdempotencyOwner is what a kept response's body is sealed to (the additional data of
// secretbox): its client and key, so a sealed body copied onto another key's row does
// not open.
func IdempotencyOwner(client uuid.UUID, key string) []byte {
	owner := make([]byte, 0, len(client)+len(key))
	return append(append(owner, client[:]...), key...)
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
	_, err = s.queries(ctx).IdempotencyClaim(ctx, db.IdempotencyClaimParams{
		APIClientID: client, Key: key, Now: now, ExpiresAt: now.Add(IdempotencyTTL), StaleBefore: now.Add(-idempotencyStale), Owner: &owner,
	})
	if err == nil {
		return true, KeyRecord{}, nil
	}
	if !errors.Is(interpretError(err), ErrNotFound) {
		return false, rec, interpretError(err)
	}
	r, err := s.queries(ctx).IdempotencyGet(ctx, db.IdempotencyGetParams{APIClientID: client, Key: key})
	if errors.Is(interpretError(err), ErrNotFound) {
		return s.ClaimIdempotencyKey(ctx, client, key, owner) // released in between: try again
	}
	if err != nil {
		return false, rec, interpretError(err)
	}
	return false, keyRecord(r), nil
}

// keyRecord maps a taken key's row.
func keyRecord(r db.IdempotencyKey) KeyRecord {
	rec := KeyRecord{Running: r.State == "running", RequestHash: r.RequestHash}
	if r.ResponseStatus != nil {
		rec.Response = StoredResponse{Status: int(*r.ResponseStatus), ContentType: deref(r.ResponseContentType, ""), SealedBody: r.ResponseSealed, Body: r.ResponseBody}
	}
	return rec
}

// FinishIdempotencyKey keeps the first response to a key owner claimed with the
// request's fingerprint. Its body must be sealed (resp.SealedBody): a body in clear is
// refused.
func (s *Store) FinishIdempotencyKey(ctx context.Context, client uuid.UUID, key string, owner uuid.UUID, requestHash []byte, resp StoredResponse) error {
	return finishIdempotencyKey(ctx, s.queries(ctx), client, key, owner, requestHash, resp)
}

func finishIdempotencyKey(ctx context.Context, q *db.Queries, client uuid.UUID, key string, owner uuid.UUID, requestHash []byte, resp StoredResponse) error {
	if err := sealedOnly(resp); err != nil {
		return err
	}
	status := int32(resp.Status)
	return interpretError(q.IdempotencyFinish(ctx, db.IdempotencyFinishParams{
		APIClientID: client, Key: key, Owner: &owner, RequestHash: requestHash, ResponseStatus: &status,
		ResponseContentType: &resp.ContentType, ResponseSealed: resp.SealedBody,
	}))
}

func sealedOnly(resp StoredResponse) error {
	if resp.SealedBody == nil || resp.Body != nil {
		return errors.New("an idempotent response is kept sealed only")
	}
	return nil
}

// ReleaseIdempotencyKey gives up a key owner claimed, whose request did nothing worth
// keeping (a 5xx, a 429), so a retry with the same key runs again. A key claimed by
// another request since (this claim went stale, or was never written) stays.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, client uuid.UUID, key string, owner uuid.UUID) error {
	return interpretError(s.queries(ctx).IdempotencyRelease(ctx, db.IdempotencyReleaseParams{APIClientID: client, Key: key, Owner: &owner}))
}

// DeleteExpiredIdempotencyKeys removes keys past their 24 hours.
func (s *Store) DeleteExpiredIdempotencyKeys(ctx context.Context) (int64, error) {
	n, err := s.queries(ctx).IdempotencyDeleteExpired(ctx, s.Now())
	return n, interpretError(err)
}

// ResealIdempotencyResponses moves every kept response body to the newest key of the
// ring, a page of keys per transaction: a sealed one goes through reseal (secretbox
// Box.Reseal) and is stored when it says the value changed; one kept in clear (before
// bodies were sealed) is sealed with seal. The owner is IdempotencyOwner. It returns
// how many bodies were sealed anew.
func (s *Store) ResealIdempotencyResponses(ctx context.Context, reseal Resealer, seal func(plain, owner []byte) []byte) (int, error) {
	type cursor struct {
		client uuid.UUID
		key    string
	}
	return resealPages(ctx, s, "idempotency_responses", func(ctx context.Context, tx *Tx, after cursor) (int, cursor, int, error) {
		rows, err := tx.q.IdempotencyResponsesPage(ctx, db.IdempotencyResponsesPageParams{AfterClient: after.client, AfterKey: after.key, PageSize: resealPageSize})
		if err != nil {
			return 0, after, 0, interpretError(err)
		}
		changed := 0
		for _, r := range rows {
			owner := IdempotencyOwner(r.APIClientID, r.Key)
			sealed, change := []byte(nil), true
			if r.ResponseSealed != nil {
				if sealed, change, err = reseal(r.ResponseSealed, owner); err != nil {
					return 0, after, 0, fmt.Errorf("idempotency key %q of client %s: %w", r.Key, r.APIClientID, err)
				}
			} else { // kept in clear before bodies were sealed (an empty body too)
				sealed = seal(r.ResponseBody, owner)
			}
			if !change {
				continue
			}
			if err := tx.q.IdempotencyResponseSeal(ctx, db.IdempotencyResponseSealParams{APIClientID: r.APIClientID, Key: r.Key, ResponseSealed: sealed}); err != nil {
				return 0, after, 0, interpretError(err)
			}
			changed++
		}
		return len(rows), lastOf(rows, after, func(r db.IdempotencyResponsesPageRow) cursor { return cursor{r.APIClientID, r.Key} }), changed, nil
	})
}

// IdempotentOutcome is how IdempotentTx ended.
type IdempotentOutcome int

const (
	// KeptInTx: the claim, the work and its answer committed together.
	KeptInTx IdempotentOutcome = iota + 1
	// KeyInUse: another request holds the key and still runs; nothing was done.
	KeyInUse
	// KeyTaken: the key already holds a request (IdempotentTx returns its KeyRecord);
	// nothing was done.
	KeyTaken
	// NotKept: the work's answer is not one to keep (KeptAnswer nil); all of it was rolled
	// back, the claim too, and the answer stands.
	NotKept
	// SetAside: something the work ran failed inside the transaction, which cannot be
	// rolled back alone; all of it was rolled back, the claim too, and the request is to
	// be run again without a request transaction.
	SetAside
)

// KeptAnswer is what a request's work keeps for its Idempotency-Key: the request's
// fingerprint and its response, sealed (FinishIdempotencyKey).
type KeptAnswer struct {
	RequestHash []byte
	Response    StoredResponse
}

// IdempotentTx claims key for a first request, named owner, and runs work in the same
// transaction: InTx and single queries of the store join it through work's context
// (until work returns; what runs on after it with that context uses the pool). When
// work returns an answer to keep, it is kept and all of it commits at once, so a lost
// COMMIT answer leaves either nothing or the kept answer, which a retry replays. When
// work returns no answer (nil: NotKept), asks to be set aside, or something it ran
// failed inside the transaction (SetAside), all of it rolls back. One attempt: a
// transaction aborted for its timing (a deadlock) is set aside too, and the run without
// it has InTx's retries.
//
// The claim is a lock for the transaction and a look at the key, sent with BEGIN; the
// key's row is written once, with its answer, sent with COMMIT (runPipelinedTx): the key
// costs the request no round trip and one write. An upload that claimed the key
// meanwhile (uploads claim without the lock) makes that write fail: all of it rolls back
// (SetAside), and the request run in steps meets the upload's claim.
//
// The error is the claim's or the commit's, with what InTx returns for them; the
// outcome is then meaningless.
func (s *Store) IdempotentTx(ctx context.Context, client uuid.UUID, key string, owner uuid.UUID, work func(ctx context.Context) (answer *KeptAnswer, setAside bool)) (IdempotentOutcome, KeyRecord, error) {
	var outcome IdempotentOutcome
	var rec KeyRecord
	err := s.runPipelinedTx(ctx, func(tx *Tx) error {
		now := s.Now()
		c, err := tx.q.IdempotencyCheckInTx(ctx, db.IdempotencyCheckInTxParams{
			LockName: "idempotency/" + client.String() + "/" + key, APIClientID: client, Key: key,
			Now: now, StaleBefore: now.Add(-idempotencyStale),
		})
		switch {
		case err != nil:
			return interpretError(err)
		case !c.Free:
			outcome = KeyInUse
			return errSetAside
		case c.Taken:
			r, err := tx.q.IdempotencyGet(ctx, db.IdempotencyGetParams{APIClientID: client, Key: key})
			if errors.Is(interpretError(err), ErrNotFound) {
				outcome = SetAside // released in between: the run without this transaction claims it
				return errSetAside
			}
			if err != nil {
				return interpretError(err)
			}
			outcome, rec = KeyTaken, keyRecord(r)
			return errSetAside
		}
		answer, setAside := work(withRequestTx(ctx, tx))
		tx.ended.Store(true)
		switch {
		case tx.spoiled || setAside:
			outcome = SetAside
			return errSetAside
		case answer == nil:
			outcome = NotKept
			return errSetAside
		}
		resp := answer.Response
		status := int32(resp.Status)
		err = tx.atCommit(func(q *db.Queries) error {
			if err := sealedOnly(resp); err != nil {
				return err
			}
			return q.IdempotencyKeepInTx(ctx, db.IdempotencyKeepInTxParams{
				APIClientID: client, Key: key, Now: now, ExpiresAt: now.Add(IdempotencyTTL), StaleBefore: now.Add(-idempotencyStale),
				Owner: &owner, RequestHash: answer.RequestHash, ResponseStatus: &status, ResponseContentType: &resp.ContentType,
				ResponseSealed: resp.SealedBody,
			})
		})
		if err != nil {
			outcome = SetAside
			return errSetAside
		}
		outcome = KeptInTx
		return nil
	})
	var refused atCommitRefused
	switch {
	case errors.Is(err, errSetAside):
		err = nil
	case errors.As(err, &refused): // the kept answer refused: all of it rolled back
		outcome, err = SetAside, nil
	}
	return outcome, rec, err
}
