package store

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/keyset"
)

// UploadCursor is the upload's position in the newest-first list.
func UploadCursor(u submission.Upload) keyset.Position {
	return keyset.Position{CreatedAt: u.CreatedAt, ID: u.ID}
}

func uploadFromRow(r db.Upload, externalSubmissionID string) submission.Upload {
	u := submission.Upload{
		ID: r.ID, ExternalFileID: r.ExternalFileID, Status: r.UploadStatus, FileID: r.FileID, SlotID: r.DocumentSlotID,
		Filename: r.Filename, ContentType: r.ContentType, CreatedAt: r.CreatedAt, SubmissionID: r.SubmissionID,
		ExternalSubmissionID: externalSubmissionID, ClientID: r.APIClientID, Size: r.SizeBytes, SHA256: r.Sha256,
		BlobKey: r.BlobKey, UpdatedAt: r.UpdatedAt,
	}
	if r.FailureCode != nil {
		u.Failure = &submission.UploadFailure{Code: *r.FailureCode, Message: deref(r.FailureMessage, "")}
	}
	if r.PageCount != nil {
		n := int(*r.PageCount)
		u.PageCount = &n
	}
	return u
}

// UploadTarget checks, before any byte is stored, that a submission accepts an upload
// (into slot, when given).
func (t Tenant) UploadTarget(ctx context.Context, submissionID uuid.UUID, slot *uuid.UUID) error {
	return t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.submission(ctx, t.clientID, submissionID, false)
		if err != nil {
			return err
		}
		// The slot's capacity is checked when the upload is recorded, after its
		// external id: a retry of an upload that filled the slot answers 200.
		return tx.acceptsUpload(ctx, s, slot, uuid.Nil, false)
	})
}

func (tx *Tx) acceptsUpload(ctx context.Context, s submission.Submission, slot *uuid.UUID, moving uuid.UUID, capacity bool) error {
	if err := submission.CheckAcceptsUpload(s.Purging, s.Status, moving != uuid.Nil); err != nil || slot == nil {
		return err
	}
	r, err := tx.q.SlotGet(ctx, db.SlotGetParams{SubmissionID: s.ID, ID: *slot})
	if errors.Is(interpretError(err), ErrNotFound) {
		return submission.UnknownSlot(*slot, moving != uuid.Nil)
	}
	if err != nil {
		return interpretError(err)
	}
	if capacity && !r.AllowMultipleFiles {
		n, err := tx.q.UploadCountInSlot(ctx, db.UploadCountInSlotParams{DocumentSlotID: slot, Excluding: moving})
		if err != nil {
			return interpretError(err)
		}
		if err := submission.CheckSlotRoom(r.Key, r.AllowMultipleFiles, n); err != nil {
			return err
		}
	}
	return nil
}

// uploadRoom refuses one more upload to a submission holding limits.UploadsPerSubmission.
func (tx *Tx) uploadRoom(ctx context.Context, submissionID uuid.UUID, limits Limits) error {
	if limits.UploadsPerSubmission <= 0 {
		return nil
	}
	n, err := tx.q.UploadCountInSubmission(ctx, submissionID)
	if err != nil {
		return interpretError(err)
	}
	return submission.CheckUploadRoom(n, limits.UploadsPerSubmission)
}

// ExistingUpload returns the upload with external id in the submission, if any. When
// there is none and the submission holds as many uploads as the tenant's limits allow,
// it refuses (before any byte is stored; CreateUpload checks again under the lock).
func (t Tenant) ExistingUpload(ctx context.Context, submissionID uuid.UUID, externalFileID string) (submission.Upload, bool, error) {
	var u submission.Upload
	found := false
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.readable(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		r, err := tx.q.UploadGetByExternalID(ctx, db.UploadGetByExternalIDParams{SubmissionID: submissionID, ExternalFileID: externalFileID})
		if errors.Is(interpretError(err), ErrNotFound) {
			return tx.uploadRoom(ctx, s.ID, t.limits)
		}
		if err != nil {
			return interpretError(err)
		}
		u, found = uploadFromRow(r, s.ExternalID), true
		return nil
	})
	return u, found, err
}

// CreateUpload records an upload whose bytes are stored and queues it for ingest. When
// the external id is already used in the submission (a concurrent duplicate), it
// returns that upload with created false and the caller deletes the new bytes.
func (t Tenant) CreateUpload(ctx context.Context, in submission.NewUpload) (submission.Upload, bool, error) {
	var out submission.Upload
	created := false
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.submission(ctx, t.clientID, in.SubmissionID, true)
		if err != nil {
			return err
		}
		// Under the submission's lock: a known external id answers with its upload before
		// any other check, so retries (and concurrent duplicates) get 200.
		r, err := tx.q.UploadGetByExternalID(ctx, db.UploadGetByExternalIDParams{SubmissionID: s.ID, ExternalFileID: in.ExternalFileID})
		if err == nil {
			out = uploadFromRow(r, s.ExternalID)
			return nil
		} else if !errors.Is(interpretError(err), ErrNotFound) {
			return interpretError(err)
		}
		if err := tx.acceptsUpload(ctx, s, in.SlotID, uuid.Nil, true); err != nil {
			return err
		}
		if err := tx.uploadRoom(ctx, s.ID, t.limits); err != nil {
			return err
		}
		id := t.s.NewID()
		n, err := tx.q.UploadInsert(ctx, db.UploadInsertParams{
			ID: id, SubmissionID: s.ID, APIClientID: t.clientID, ExternalFileID: in.ExternalFileID, FileID: in.FileID,
			DocumentSlotID: in.SlotID, Filename: in.Filename, ContentType: in.ContentType, SizeBytes: in.Size,
			Sha256: in.SHA256, BlobKey: in.BlobKey, Now: t.s.Now(),
		})
		if err != nil {
			return interpretError(err)
		}
		if n == 0 {
			r, err := tx.q.UploadGetByExternalID(ctx, db.UploadGetByExternalIDParams{SubmissionID: s.ID, ExternalFileID: in.ExternalFileID})
			if err != nil {
				return interpretError(err)
			}
			out = uploadFromRow(r, s.ExternalID)
			return nil
		}
		if err := tx.Enqueue(ctx, jobs.IngestJob{UploadID: id, APIClientID: t.clientID}); err != nil {
			return err
		}
		if in.SlotID != nil {
			if err := tx.recomputeSlot(ctx, s, *in.SlotID); err != nil {
				return err
			}
		}
		if err := tx.uploadsChanged(ctx, s); err != nil {
			return err
		}
		r, err = tx.q.UploadGet(ctx, db.UploadGetParams{SubmissionID: s.ID, ID: id})
		if err != nil {
			return interpretError(err)
		}
		out, created = uploadFromRow(r, s.ExternalID), true
		return nil
	})
	return out, created, err
}

// Upload reads one upload of a submission.
func (t Tenant) Upload(ctx context.Context, submissionID, id uuid.UUID) (submission.Upload, error) {
	var u submission.Upload
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.readable(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		r, err := tx.q.UploadGet(ctx, db.UploadGetParams{SubmissionID: submissionID, ID: id})
		if err != nil {
			return interpretError(err)
		}
		u = uploadFromRow(r, s.ExternalID)
		return nil
	})
	return u, err
}

// Uploads lists a submission's uploads newest first, up to limit+1.
func (t Tenant) Uploads(ctx context.Context, submissionID uuid.UUID, after *keyset.Position, limit int) ([]submission.Upload, error) {
	var out []submission.Upload
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.readable(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		p := db.UploadListParams{SubmissionID: submissionID, MaxRows: int32(limit + 1)}
		if after != nil {
			p.CursorCreatedAt, p.CursorID = &after.CreatedAt, &after.ID
		}
		rows, err := tx.q.UploadList(ctx, p)
		if err != nil {
			return interpretError(err)
		}
		out = make([]submission.Upload, len(rows))
		for i, r := range rows {
			out[i] = uploadFromRow(r, s.ExternalID)
		}
		return nil
	})
	return out, err
}

// MoveUpload assigns an upload to a slot of its submission, or unassigns it (nil), and
// recomputes both slots.
func (t Tenant) MoveUpload(ctx context.Context, submissionID, id uuid.UUID, slot *uuid.UUID) (submission.Upload, error) {
	var out submission.Upload
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.uploadsChangeable(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		r, err := tx.q.UploadGet(ctx, db.UploadGetParams{SubmissionID: s.ID, ID: id})
		if err != nil {
			return interpretError(err)
		}
		if eqPtr(r.DocumentSlotID, slot) {
			out = uploadFromRow(r, s.ExternalID) // nothing moves: review statuses stay
			return nil
		}
		if err := tx.acceptsUpload(ctx, s, slot, id, true); err != nil {
			return err
		}
		moved, err := tx.q.UploadSetSlot(ctx, db.UploadSetSlotParams{ID: id, DocumentSlotID: slot, Now: t.s.Now()})
		if err != nil {
			return interpretError(err)
		}
		for _, sl := range []*uuid.UUID{r.DocumentSlotID, slot} {
			if sl != nil {
				if err := tx.recomputeSlot(ctx, s, *sl); err != nil {
					return err
				}
			}
		}
		if err := tx.uploadsChanged(ctx, s); err != nil {
			return err
		}
		out = uploadFromRow(moved, s.ExternalID)
		return nil
	})
	return out, err
}

// DeleteUpload removes an upload (its external id becomes reusable) and, through the
// outbox in the same transaction, asks for its stored bytes to be removed
// (jobs.BlobDeleteJob, retried until done).
func (t Tenant) DeleteUpload(ctx context.Context, submissionID, id uuid.UUID) error {
	return t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.uploadsChangeable(ctx, t.clientID, submissionID)
		if err != nil {
			return err
		}
		r, err := tx.q.UploadGet(ctx, db.UploadGetParams{SubmissionID: s.ID, ID: id})
		if err != nil {
			return interpretError(err)
		}
		if err := tx.q.UploadDelete(ctx, id); err != nil {
			return interpretError(err)
		}
		if r.DocumentSlotID != nil {
			if err := tx.recomputeSlot(ctx, s, *r.DocumentSlotID); err != nil {
				return err
			}
		}
		job := jobs.BlobDeleteJob{Key: r.BlobKey, Prefix: blobkey.RenderedPages(t.clientID, s.ID, id)}
		if err := tx.Enqueue(ctx, job); err != nil {
			return err
		}
		return tx.uploadsChanged(ctx, s)
	})
}

// IngestUpload is what the ingest worker needs to process an upload.
type IngestUpload struct {
	submission.Upload
	Submission submission.Submission
}

// UploadForIngest reads an upload whatever its client; ErrNotFound when it was deleted
// or purged meanwhile.
func (s *Store) UploadForIngest(ctx context.Context, id uuid.UUID) (IngestUpload, error) {
	r, err := s.queries(ctx).UploadGetAny(ctx, id)
	if err != nil {
		return IngestUpload{}, interpretError(err)
	}
	sr, err := s.queries(ctx).SubmissionGetAny(ctx, r.SubmissionID)
	if err != nil {
		return IngestUpload{}, interpretError(err)
	}
	sub, err := submissionFromRow(sr)
	if err != nil {
		return IngestUpload{}, err
	}
	return IngestUpload{Upload: uploadFromRow(r, sub.ExternalID), Submission: sub}, nil
}

// FinishIngest records a processed upload: its pages and ready status, or its failure,
// emits file.ready or file.failed and recomputes its slot, in one transaction. An upload
// that is no longer processing (a redelivered job) is left alone.
func (s *Store) FinishIngest(ctx context.Context, id uuid.UUID, pages []document.Page, metadata map[string]string, failure *submission.UploadFailure) error {
	return s.InTx(ctx, func(tx *Tx) error {
		cur, err := tx.q.UploadGetAny(ctx, id)
		if err != nil {
			return interpretError(err)
		}
		if cur.UploadStatus != submission.UploadProcessing {
			return nil // a late or duplicate delivery: the outcome is recorded already
		}
		sr, err := tx.q.SubmissionGetForUpdate(ctx, db.SubmissionGetForUpdateParams{APIClientID: cur.APIClientID, ID: cur.SubmissionID})
		if err != nil {
			return interpretError(err)
		}
		sub, err := submissionFromRow(sr)
		if err != nil {
			return err
		}
		var r db.Upload
		typ := events.FileReady
		if failure != nil {
			typ = events.FileFailed
			r, err = tx.q.UploadMarkFailed(ctx, db.UploadMarkFailedParams{ID: id, FailureCode: &failure.Code, FailureMessage: &failure.Message, Now: s.Now()})
		} else {
			for _, p := range pages {
				if err := tx.q.UploadPageInsert(ctx, pageInsertParams(id, p)); err != nil {
					return interpretError(err)
				}
			}
			meta, _ := json.Marshal(metadata)
			r, err = tx.q.UploadMarkReady(ctx, db.UploadMarkReadyParams{ID: id, PageCount: new(int32(len(pages))), Metadata: meta, Now: s.Now()})
		}
		if errors.Is(interpretError(err), ErrNotFound) {
			return nil // not processing any more: a redelivery after success
		}
		if err != nil {
			return interpretError(err)
		}
		u := uploadFromRow(r, sub.ExternalID)
		if _, err := tx.Emit(ctx, events.Draft{APIClientID: sub.ClientID, Type: typ, SubmissionID: &sub.ID, Data: submission.FileEventData{Upload: u}}); err != nil {
			return err
		}
		if u.SlotID != nil {
			return tx.recomputeSlot(ctx, sub, *u.SlotID)
		}
		return nil
	})
}
