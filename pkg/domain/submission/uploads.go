package submission

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/domain"
)

// The statuses of an upload (the spec's UploadStatus).
const (
	UploadProcessing = "processing"
	UploadReady      = "ready"
	UploadFailed     = "failed"
)

// Slot statuses computed from uploads; review statuses are set by advisors.
const (
	SlotMissing    = "missing"
	SlotProcessing = "processing"
	SlotReceived   = "received"
)

// CheckAcceptsUpload refuses a new upload to a submission being deleted or canceled; an
// upload moving between the slots of a canceled submission is accepted.
func CheckAcceptsUpload(purging bool, status string, moving bool) error {
	if err := CheckLive(purging); err != nil {
		return err
	}
	if status == StatusCanceled && !moving {
		return ErrCanceled
	}
	return nil
}

// UnknownSlot refuses a slot that is not the submission's: the target of a move names it
// in its body (document_slot_id), a new upload in its path (not found).
func UnknownSlot(slot uuid.UUID, moving bool) error {
	if moving {
		return domain.Fieldf("document_slot_id", "no such slot on this submission")
	}
	return domain.NotFoundf("no slot %s on this submission", slot)
}

// CheckSlotRoom refuses one more upload to a slot taking a single file that already
// holds held uploads; key names the slot.
func CheckSlotRoom(key string, allowMultiple bool, held int64) error {
	if !allowMultiple && held > 0 {
		return domain.Fieldf("document_slot_id", "slot %q takes a single file and already holds one", key)
	}
	return nil
}

// SlotStatus is the status of a slot computed from its uploads' statuses: received once
// one is ready, processing while one is, missing otherwise.
func SlotStatus(uploads []string) string {
	next := SlotMissing
	for _, st := range uploads {
		switch st {
		case UploadReady:
			next = SlotReceived
		case UploadProcessing:
			if next == SlotMissing {
				next = SlotProcessing
			}
		}
	}
	return next
}

// CheckUploadRoom refuses one more upload to a submission that already holds held
// uploads when it may hold at most maxUploads (0: no cap).
func CheckUploadRoom(held int64, maxUploads int) error {
	if maxUploads > 0 && held >= int64(maxUploads) {
		return &domain.LimitError{Message: fmt.Sprintf("the submission already holds %d uploads, the most one may hold; delete one before uploading another", maxUploads)}
	}
	return nil
}
