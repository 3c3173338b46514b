package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/keyset"
)

// SubmissionCursor is the submission's position in the newest-first list.
func SubmissionCursor(s submission.Submission) keyset.Position {
	return keyset.Position{CreatedAt: s.CreatedAt, ID: s.ID}
}

func submissionFromRow(r db.Submission) (submission.Submission, error) {
	s := submission.Submission{
		ID: r.ID, ClientID: r.APIClientID, DisplayID: r.DisplayID, ExternalID: r.ExternalSubmissionID,
		TemplateID: r.TemplateID, Language: r.Language, Metadata: r.Metadata, Status: r.Status,
		Purging: r.PurgeRequestedAt != nil, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if err := json.Unmarshal(r.Snapshot, &s.Snapshot); err != nil {
		return submission.Submission{}, fmt.Errorf("submission %s snapshot: %w", r.ID, err)
	}
	return s, nil
}

func slotFromRow(r db.DocumentSlot) submission.Slot {
	s := submission.Slot{
		ID: r.ID, Position: int(r.Position), Key: r.Key, Label: r.Label, Description: r.Description,
		DocumentTypeID: r.DocumentTypeID, Required: r.Required, AllowMultipleFiles: r.AllowMultipleFiles,
		Extra: r.Extra, Status: r.Status,
	}
	if r.ReviewDecision != nil && r.ReviewDecidedAt != nil {
		s.Review = &submission.SlotReview{Decision: *r.ReviewDecision, Reason: r.ReviewReason, DecidedAt: *r.ReviewDecidedAt}
	}
	return s
}

// SubmissionDetail is a submission with its slots, unassigned uploads and latest
// evaluation (nil before the first).
type SubmissionDetail struct {
	submission.Submission
	Slots            []submission.SlotWithUploads
	Unassigned       []submission.Upload
	LatestEvaluation *evaluation.Evaluation
}

// displayAlphabet is Crockford's base32: no I, L, O, U, so ids read aloud unambiguously.
const displayAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newDisplayID returns a short id for people: "SUB-" and eight base32 characters.
func newDisplayID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	out := []byte("SUB-")
	for _, x := range b {
		out = append(out, displayAlphabet[int(x)%len(displayAlphabet)])
	}
	return string(out)
}

// CreateSubmission creates a submission with the template's snapshot and its slots, or
// returns the client's existing submission with the same external id (created false),
// also when a concurrent request created it first.
//
// A repeat is found by the INSERT meeting the external id's unique index, not by a
// lookup before it: a new submission costs no extra statement, and the lookup's plan,
// made on the table while it was small, cannot make every create scan the client's
// submissions (it did, until autovacuum analyzed the table). A repeat answers with its
// submission whatever its template or extra requirements would say now.
func (t Tenant) CreateSubmission(ctx context.Context, in submission.New) (submission.Submission, bool, error) {
	var out submission.Submission
	created := false
	err := t.s.InTx(ctx, func(tx *Tx) error {
		// existingOr answers with the submission the external id already names, or
		// with refusal when there is none.
		existingOr := func(refusal error) error {
			existing, err := tx.submissionByExternalID(ctx, t.clientID, in.ExternalID)
			switch {
			case errors.Is(err, ErrNotFound):
				return refusal
			case err != nil:
				return err
			}
			if err := submission.CheckLive(existing.Purging); err != nil {
				return err
			}
			out = existing
			return nil
		}
		snap, err := takeSnapshot(ctx, tx.q, t.clientID, in.TemplateRef)
		switch {
		case errors.Is(err, ErrNotFound):
			return existingOr(submission.UnusableTemplate(in.TemplateRef, false))
		case errors.Is(err, catalog.ErrArchived):
			return existingOr(submission.UnusableTemplate(in.TemplateRef, true))
		case err != nil:
			return err
		}
		slots, err := tx.slotsFor(ctx, t.clientID, snap, in.Extra)
		var refused *domain.FieldError
		switch {
		case errors.As(err, &refused):
			return existingOr(err)
		case err != nil:
			return err
		}
		snapJSON, err := json.Marshal(snap)
		if err != nil {
			return err
		}
		id, now := t.s.NewID(), t.s.Now()
		for attempt := 0; ; attempt++ {
			r, err := tx.q.SubmissionInsert(ctx, db.SubmissionInsertParams{
				ID: id, APIClientID: t.clientID, DisplayID: newDisplayID(), ExternalSubmissionID: in.ExternalID,
				TemplateID: snap.TemplateID, Snapshot: snapJSON, Language: in.Language, Metadata: in.Metadata, Now: now,
			})
			if err == nil {
				if out, err = submissionFromRow(r); err != nil {
					return err
				}
				break
			}
			if err = interpretError(err); !errors.Is(err, ErrNotFound) {
				return err
			}
			// The external id is taken (a repeat, or a concurrent request that won):
			// answer with its submission.
			if existing, err := tx.submissionByExternalID(ctx, t.clientID, in.ExternalID); err == nil {
				if err := submission.CheckLive(existing.Purging); err != nil {
					return err
				}
				out = existing
				return nil
			}
			if attempt == 5 { // display id collisions five times in a row: something else is wrong
				return errors.New("could not allocate a display id")
			}
		}
		if len(slots) > 0 {
			p := db.SlotsInsertParams{SubmissionID: id, Now: now}
			for i, sl := range slots {
				p.Ids = append(p.Ids, t.s.NewID())
				p.Positions = append(p.Positions, int32(i))
				p.Keys, p.Labels, p.Descriptions = append(p.Keys, sl.key), append(p.Labels, sl.label), append(p.Descriptions, sl.description)
				p.DocumentTypeIds, p.Required = append(p.DocumentTypeIds, sl.documentTypeID), append(p.Required, sl.required)
				p.AllowMultipleFiles, p.Extra = append(p.AllowMultipleFiles, sl.allowMultipleFiles), append(p.Extra, sl.extra)
			}
			if err := tx.q.SlotsInsert(ctx, p); err != nil {
				return interpretError(err)
			}
		}
		created = true
		return nil
	})
	return out, created, err
}

// newSlot is one slot of a new submission.
type newSlot struct {
	key, label, description, documentTypeID string
	required, allowMultipleFiles, extra     bool
}

// slotsFor lists a new submission's slots: the snapshot's requirements, then the extra
// ones (each a document type the template does not already ask for).
func (tx *Tx) slotsFor(ctx context.Context, client uuid.UUID, snap submission.Snapshot, extra []catalog.ItemInput) ([]newSlot, error) {
	var out []newSlot
	seen := map[string]bool{}
	for _, r := range snap.DocumentRequirements {
		seen[r.DocumentType.Key] = true
		out = append(out, newSlot{
			key: r.DocumentType.Key, label: r.Label, description: r.Description, documentTypeID: r.DocumentType.ID,
			required: r.Required, allowMultipleFiles: r.AllowMultipleFiles,
		})
	}
	for i, it := range extra {
		e, err := lookupEntry(ctx, tx.q, client, catalog.FamilyDocumentType, it.Ref)
		found := !errors.Is(err, ErrNotFound)
		if found && err != nil {
			return nil, err
		}
		if err := submission.CheckExtraRequirement(i, it.Ref, catalog.Reference{Found: found, Archived: e.Archived, Repeated: seen[e.Key]}); err != nil {
			return nil, err
		}
		seen[e.Key] = true
		out = append(out, newSlot{
			key: e.Key, label: deref(it.Label, e.Name), description: deref(it.Description, e.Description), documentTypeID: e.PublicID(),
			required: deref(it.Required, true), allowMultipleFiles: deref(it.AllowMultipleFiles, false), extra: true,
		})
	}
	return out, nil
}

func (tx *Tx) submissionByExternalID(ctx context.Context, client uuid.UUID, external string) (submission.Submission, error) {
	r, err := tx.q.SubmissionGetByExternalID(ctx, db.SubmissionGetByExternalIDParams{APIClientID: client, ExternalSubmissionID: external})
	if err != nil {
		return submission.Submission{}, interpretError(err)
	}
	return submissionFromRow(r)
}

// submission reads (and with lock, locks) one of the client's submissions.
func (tx *Tx) submission(ctx context.Context, client, id uuid.UUID, lock bool) (submission.Submission, error) {
	var r db.Submission
	var err error
	if lock {
		r, err = tx.q.SubmissionGetForUpdate(ctx, db.SubmissionGetForUpdateParams{APIClientID: client, ID: id})
	} else {
		r, err = tx.q.SubmissionGet(ctx, db.SubmissionGetParams{APIClientID: client, ID: id})
	}
	if err != nil {
		return submission.Submission{}, interpretError(err)
	}
	return submissionFromRow(r)
}

// readable reads a submission for a read: one being purged is refused (submission.ErrPurging).
func (tx *Tx) readable(ctx context.Context, client, id uuid.UUID) (submission.Submission, error) {
	s, err := tx.submission(ctx, client, id, false)
	if err == nil {
		err = submission.CheckLive(s.Purging)
	}
	if err != nil {
		return submission.Submission{}, err
	}
	return s, nil
}

// live reads a submission for a write: locked, and not being purged.
func (tx *Tx) live(ctx context.Context, client, id uuid.UUID) (submission.Submission, error) {
	s, err := tx.submission(ctx, client, id, true)
	if err == nil {
		err = submission.CheckLive(s.Purging)
	}
	if err != nil {
		return submission.Submission{}, err
	}
	return s, nil
}

// uploadsChangeable reads a submission whose uploads are to be moved or deleted: live,
// and with no evaluation queued or running (submission.ErrUploadsLocked).
func (tx *Tx) uploadsChangeable(ctx context.Context, client, id uuid.UUID) (submission.Submission, error) {
	s, err := tx.live(ctx, client, id)
	if err == nil {
		err = submission.CheckUploadsChangeable(s.Status)
	}
	if err != nil {
		return submission.Submission{}, err
	}
	return s, nil
}

// SubmissionFilter selects submissions for the list.
type SubmissionFilter struct {
	ExternalID   *string
	Status       *string
	TemplateID   *string
	CreatedAtGTE *time.Time
	CreatedAtLT  *time.Time
	After        *keyset.Position
	Limit        int
}

// Submissions lists the tenant's submissions newest first, up to Limit+1.
func (t Tenant) Submissions(ctx context.Context, f SubmissionFilter) ([]submission.Submission, error) {
	p := db.SubmissionListParams{
		APIClientID: t.clientID, ExternalSubmissionID: f.ExternalID, Status: f.Status, TemplateID: f.TemplateID,
		CreatedAtGte: f.CreatedAtGTE, CreatedAtLt: f.CreatedAtLT, MaxRows: int32(f.Limit + 1),
	}
	if f.After != nil {
		p.CursorCreatedAt, p.CursorID = &f.After.CreatedAt, &f.After.ID
	}
	rows, err := t.s.queries(ctx).SubmissionList(ctx, p)
	if err != nil {
		return nil, interpretError(err)
	}
	out := make([]submission.Submission, len(rows))
	for i, r := range rows {
		out[i] = submission.Submission{
			ID: r.ID, ClientID: t.clientID, DisplayID: r.DisplayID, TemplateID: r.TemplateID, ExternalID: r.ExternalSubmissionID,
			Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		}
	}
	return out, nil
}

// Submission reads a submission with its slots and uploads. A submission being purged
// is refused (submission.ErrPurging).
func (t Tenant) Submission(ctx context.Context, id uuid.UUID) (SubmissionDetail, error) {
	var d SubmissionDetail
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.readable(ctx, t.clientID, id)
		if err != nil {
			return err
		}
		d, err = tx.detail(ctx, s)
		return err
	})
	return d, err
}

func (tx *Tx) detail(ctx context.Context, s submission.Submission) (SubmissionDetail, error) {
	d := SubmissionDetail{Submission: s, Slots: []submission.SlotWithUploads{}, Unassigned: []submission.Upload{}}
	slots, err := tx.q.SlotsOfSubmission(ctx, s.ID)
	if err != nil {
		return d, interpretError(err)
	}
	index := map[uuid.UUID]int{}
	for i, r := range slots {
		index[r.ID] = i
		d.Slots = append(d.Slots, submission.SlotWithUploads{Slot: slotFromRow(r), Uploads: []submission.Upload{}})
	}
	uploads, err := tx.q.UploadsOfSubmission(ctx, s.ID)
	if err != nil {
		return d, interpretError(err)
	}
	for _, r := range uploads {
		u := uploadFromRow(r, s.ExternalID)
		if u.SlotID != nil {
			if i, ok := index[*u.SlotID]; ok {
				d.Slots[i].Uploads = append(d.Slots[i].Uploads, u)
				continue
			}
		}
		d.Unassigned = append(d.Unassigned, u)
	}
	d.LatestEvaluation, err = tx.latestEvaluation(ctx, s)
	return d, err
}

// UpdateMetadata replaces a submission's metadata whole.
func (t Tenant) UpdateMetadata(ctx context.Context, id uuid.UUID, metadata json.RawMessage) (submission.Submission, error) {
	var out submission.Submission
	err := t.s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.live(ctx, t.clientID, id); err != nil {
			return err
		}
		r, err := tx.q.SubmissionSetMetadata(ctx, db.SubmissionSetMetadataParams{APIClientID: t.clientID, ID: id, Metadata: metadata, Now: t.s.Now()})
		if err != nil {
			return interpretError(err)
		}
		out, err = submissionFromRow(r)
		return err
	})
	return out, err
}

// CancelSubmission cancels a submission that is not completed; canceling a canceled one
// does nothing.
func (t Tenant) CancelSubmission(ctx context.Context, id uuid.UUID) (submission.Submission, error) {
	var out submission.Submission
	err := t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.live(ctx, t.clientID, id)
		if err != nil {
			return err
		}
		switch done, err := submission.CheckCancel(s.Status); {
		case err != nil:
			return err
		case done:
			out = s
			return nil
		}
		if err := tx.cancelActiveEvaluations(ctx, s); err != nil {
			return err
		}
		if err := tx.q.SubmissionSetStatus(ctx, db.SubmissionSetStatusParams{ID: id, Status: submission.StatusCanceled, Now: t.s.Now()}); err != nil {
			return interpretError(err)
		}
		out, err = tx.submission(ctx, t.clientID, id, false)
		return err
	})
	return out, err
}

// DeleteSubmission starts the purge of a submission: from now on reads refuse with
// submission.ErrPurging, and the purge job (through the outbox) removes its stored
// bytes, text, uploads and slots. PurgeSubmission's deletePrefix removes every object
// under a prefix.
// Deleting again while the purge runs is refused with submission.ErrPurging too.
func (t Tenant) DeleteSubmission(ctx context.Context, id uuid.UUID) error {
	return t.s.InTx(ctx, func(tx *Tx) error {
		s, err := tx.live(ctx, t.clientID, id)
		if err != nil {
			return err // a repeated DELETE during the purge: ErrPurging like every other call
		}
		if err := tx.cancelActiveEvaluations(ctx, s); err != nil {
			return err
		}
		if err := tx.q.SubmissionRequestPurge(ctx, db.SubmissionRequestPurgeParams{ID: id, Now: t.s.Now()}); err != nil {
			return interpretError(err)
		}
		return tx.Enqueue(ctx, jobs.PurgeJob{SubmissionID: id})
	})
}

// PurgeSubmission removes a submission whose purge was requested: first the stored bytes
// (deleteBlob, which must treat a missing object as done), then every row (slots,
// uploads, page text, evaluations and results go with the submission's). It is
// idempotent, so a purge interrupted by a crash finishes when the job is redelivered, or
// enqueued again by the reconciler (OrphanedPurges, RequeuePurge) when it was lost.
//
// What stays, by design: the submission's events and their deliveries until event
// retention removes them (deleteSubmission's description: they stay readable until
// then), the audit log's entries about it (append-only), and answers stored for its
// Idempotency-Keys until they expire. A page the console renders after the purge's
// delete is removed by the console itself or by the orphan sweep.
func (s *Store) PurgeSubmission(ctx context.Context, id uuid.UUID, deleteBlob, deletePrefix func(ctx context.Context, key string) error) error {
	r, err := s.queries(ctx).SubmissionGetAny(ctx, id)
	if errors.Is(interpretError(err), ErrNotFound) {
		return nil // purged already
	}
	if err != nil {
		return interpretError(err)
	}
	if r.PurgeRequestedAt == nil {
		return fmt.Errorf("submission %s: purge not requested", id)
	}
	uploads, err := s.queries(ctx).UploadsOfSubmission(ctx, id)
	if err != nil {
		return interpretError(err)
	}
	for _, u := range uploads {
		if err := deleteBlob(ctx, u.BlobKey); err != nil {
			return fmt.Errorf("delete %s: %w", u.BlobKey, err)
		}
	}
	// And whatever else lies under the submission's prefix (bytes of an upload whose
	// row was never written or whose delete failed).
	if err := deletePrefix(ctx, blobkey.Submission(r.APIClientID, id)); err != nil {
		return fmt.Errorf("delete submission files: %w", err)
	}
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.Exec(ctx, "UPDATE uploads SET document_slot_id = NULL WHERE submission_id = $1", id); err != nil {
			return interpretError(err)
		}
		return interpretError(tx.q.SubmissionDelete(ctx, id))
	})
}

// emitSlotUpdate announces a slot's status change.
func (tx *Tx) emitSlotUpdate(ctx context.Context, s submission.Submission, slot submission.Slot, previous string) error {
	rows, err := tx.q.UploadsOfSubmission(ctx, s.ID)
	if err != nil {
		return interpretError(err)
	}
	uploads := []submission.Upload{}
	for _, r := range rows {
		if r.DocumentSlotID != nil && *r.DocumentSlotID == slot.ID {
			uploads = append(uploads, uploadFromRow(r, s.ExternalID))
		}
	}
	_, err = tx.Emit(ctx, events.Draft{
		APIClientID: s.ClientID, Type: events.DocumentSlotUpdated, SubmissionID: &s.ID,
		Data: submission.SlotUpdatedData{DocumentSlot: submission.SlotJSON(slot, uploads), PreviousStatus: previous, SubmissionID: s.ID, ExternalSubmissionID: s.ExternalID},
	})
	return err
}

// recomputeSlot sets a slot's status from its uploads (replacing a review status) and
// emits document_slot.updated when it changed.
func (tx *Tx) recomputeSlot(ctx context.Context, s submission.Submission, slotID uuid.UUID) error {
	r, err := tx.q.SlotGet(ctx, db.SlotGetParams{SubmissionID: s.ID, ID: slotID})
	if err != nil {
		return interpretError(err)
	}
	next, err := tx.computedSlotStatus(ctx, slotID)
	if err != nil {
		return err
	}
	if next == r.Status {
		return nil
	}
	if err := tx.q.SlotSetStatus(ctx, db.SlotSetStatusParams{ID: slotID, Status: next, Now: tx.s.Now()}); err != nil {
		return interpretError(err)
	}
	slot := slotFromRow(r)
	slot.Status, slot.Review = next, nil
	return tx.emitSlotUpdate(ctx, s, slot, r.Status)
}

// computedSlotStatus is a slot's status from its uploads alone: received when one is
// ready, else processing when one is, else missing.
func (tx *Tx) computedSlotStatus(ctx context.Context, slotID uuid.UUID) (string, error) {
	statuses, err := tx.q.SlotUploadStatuses(ctx, &slotID)
	if err != nil {
		return "", interpretError(err)
	}
	return submission.SlotStatus(statuses), nil
}

// uploadsChanged applies the rule that a new, moved or deleted upload sends a completed
// or failed submission back to collecting_documents.
func (tx *Tx) uploadsChanged(ctx context.Context, s submission.Submission) error {
	if !submission.ReopensOnUploadChange(s.Status) {
		return nil
	}
	return interpretError(tx.q.SubmissionSetStatus(ctx, db.SubmissionSetStatusParams{ID: s.ID, Status: submission.StatusCollecting, Now: tx.s.Now()}))
}
