// Package submission holds a credit submission, its document slots and the uploads that
// fill them: their types (the Submission with the Snapshot of its template, Slot,
// SlotReview, Upload), what creating one, recording an upload and deciding on a slot
// ask for (New, NewUpload, Decision), the data of the file.* and document_slot.updated
// events, whose JSON is the spec's; the statuses, which moves they allow (cancel,
// upload, move or delete uploads, a review decision) and the refusals of the rest.
// pkg/store reads and writes them. A submission being deleted (its data purged) refuses
// everything: ErrPurging is that refusal, for the API (partner_data_purge_in_progress)
// and the console alike.
package submission

import (
	"errors"
	"fmt"

	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/catalog"
)

// The statuses of the spec's SubmissionStatus.
const (
	StatusCollecting = "collecting_documents"
	StatusEvaluating = "evaluating"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
	StatusCanceled   = "canceled"
)

// Refusals of submission writes and reads.
var (
	ErrPurging       = errors.New("this submission is being deleted; its data is being purged")
	ErrCanceled      = errors.New("the submission is canceled: it accepts no new uploads or evaluations")
	ErrNotCancelable = errors.New("the submission is completed and cannot be canceled (it can still be deleted)")
	// ErrUploadsLocked refuses moving or deleting uploads while an evaluation reads them.
	ErrUploadsLocked = errors.New("an evaluation is queued or running; move or delete uploads after it ends")
	// ErrTemplateArchived refuses creating a submission from an archived template.
	ErrTemplateArchived = errors.New("the template is archived and can no longer create submissions")
)

// CheckLive refuses any use of a submission being deleted.
func CheckLive(purging bool) error {
	if purging {
		return ErrPurging
	}
	return nil
}

// CheckCancel decides a cancel of a submission in status: a completed one is refused, a
// canceled one is already done (nothing changes), any other moves to canceled.
func CheckCancel(status string) (done bool, err error) {
	switch status {
	case StatusCompleted:
		return false, ErrNotCancelable
	case StatusCanceled:
		return true, nil
	}
	return false, nil
}

// CheckUploadsChangeable refuses moving or deleting uploads of a submission an
// evaluation is reading.
func CheckUploadsChangeable(status string) error {
	if status == StatusEvaluating {
		return ErrUploadsLocked
	}
	return nil
}

// ReopensOnUploadChange reports whether a new, moved or deleted upload sends a submission
// in status back to collecting_documents: a completed or failed one's result no longer
// covers its documents.
func ReopensOnUploadChange(status string) bool {
	return status == StatusCompleted || status == StatusFailed
}

// UnusableTemplate refuses creating a submission from the template ref (template_id):
// there is none, or it is archived.
func UnusableTemplate(ref string, archived bool) error {
	if archived {
		return domain.OnField("template_id", ErrTemplateArchived)
	}
	return domain.Fieldf("template_id", "no template %q", ref)
}

// CheckExtraRequirement refuses the extra document requirement at index (its
// document_type_id) whose document type ref is unknown, archived, or already has a slot
// on the submission.
func CheckExtraRequirement(index int, ref string, r catalog.Reference) error {
	field := fmt.Sprintf("extra_document_requirements[%d].document_type_id", index)
	switch {
	case !r.Found:
		return domain.Fieldf(field, "no document type %q", ref)
	case r.Archived:
		return domain.Fieldf(field, "document type %q is archived", ref)
	case r.Repeated:
		return domain.Fieldf(field, "document type %q already has a slot on this submission", ref)
	}
	return nil
}
