package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/domain/submission"
)

// DecideSlot sets or clears an advisor decision. While a decision stands, the slot's
// status is the decision; clearing it gives back the status computed from the uploads.
// Every change of the decision (or its reason) emits document_slot.updated with the
// review in its data, and is written to the audit log when the store acts for an
// operator (As). Decisions on a canceled submission or one being purged are refused.
func (s *Store) DecideSlot(ctx context.Context, d submission.Decision) (submission.Slot, error) {
	reason, err := submission.CheckDecision(d.Decision, d.Reason)
	if err != nil {
		return submission.Slot{}, err
	}
	var slot submission.Slot
	err = s.InTx(ctx, func(tx *Tx) error {
		sub, err := tx.submission(ctx, d.ClientID, d.SubmissionID, true)
		if err != nil {
			return err
		}
		if err := submission.CheckDecidable(sub.Purging, sub.Status); err != nil {
			return err
		}
		r, err := tx.q.SlotGet(ctx, db.SlotGetParams{SubmissionID: sub.ID, ID: d.SlotID})
		if err != nil {
			return interpretError(err)
		}
		before := slotFromRow(r)
		slot = before
		var why *string
		if reason != "" {
			why = &reason
		}
		if d.Decision == "" {
			if before.Review == nil {
				return nil // nothing stands: nothing changes
			}
			if slot.Status, err = tx.computedSlotStatus(ctx, d.SlotID); err != nil {
				return err
			}
			if err := tx.q.SlotSetStatus(ctx, db.SlotSetStatusParams{ID: d.SlotID, Status: slot.Status, Now: s.Now()}); err != nil {
				return interpretError(err)
			}
			slot.Review = nil
		} else {
			if r := before.Review; r != nil && r.Decision == d.Decision && equalReason(r.Reason, why) {
				return nil // the same decision again
			}
			now := s.Now()
			var reviewer *uuid.UUID
			if s.actor != nil {
				reviewer = s.actor.OperatorID
			}
			if err := tx.q.SlotSetReview(ctx, db.SlotSetReviewParams{ID: d.SlotID, Decision: d.Decision, Reason: why, OperatorID: reviewer, Now: &now}); err != nil {
				return interpretError(err)
			}
			slot.Status = d.Decision
			slot.Review = &submission.SlotReview{Decision: d.Decision, Reason: why, DecidedAt: now}
		}
		if err := tx.emitSlotUpdate(ctx, sub, slot, before.Status); err != nil {
			return err
		}
		action := "slot.decide"
		if d.Decision == "" {
			action = "slot.clear_decision"
		}
		return tx.audit(ctx, action, "document_slot", d.SlotID.String(), map[string]any{
			"api_client_id": sub.ClientID, "submission_id": sub.ID, "slot_key": slot.Key,
			"decision": d.Decision, "reason": why, "previous_status": before.Status, "status": slot.Status,
		})
	})
	return slot, err
}

func equalReason(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
