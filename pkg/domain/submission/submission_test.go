package submission_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/domain"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/submission"
)

var statuses = []string{
	submission.StatusCollecting, submission.StatusEvaluating, submission.StatusCompleted,
	submission.StatusFailed, submission.StatusCanceled,
}

func TestCheckCancel(t *testing.T) {
	t.Parallel()
	for _, st := range statuses {
		done, err := submission.CheckCancel(st)
		switch st {
		case submission.StatusCompleted:
			require.ErrorIs(t, err, submission.ErrNotCancelable)
		case submission.StatusCanceled:
			require.NoError(t, err)
			require.True(t, done, "canceling a canceled submission changes nothing")
		default:
			require.NoError(t, err, st)
			require.False(t, done, st)
		}
	}
}

func TestCheckUploadsChangeable(t *testing.T) {
	t.Parallel()
	for _, st := range statuses {
		if st == submission.StatusEvaluating {
			require.ErrorIs(t, submission.CheckUploadsChangeable(st), submission.ErrUploadsLocked)
			continue
		}
		require.NoError(t, submission.CheckUploadsChangeable(st), st)
	}
}

func TestReopensOnUploadChange(t *testing.T) {
	t.Parallel()
	for _, st := range statuses {
		want := st == submission.StatusCompleted || st == submission.StatusFailed
		require.Equal(t, want, submission.ReopensOnUploadChange(st), st)
	}
}

func TestCheckAcceptsUpload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		purging bool
		status  string
		moving  bool
		want    error
	}{
		{"collecting", false, submission.StatusCollecting, false, nil},
		{"completed", false, submission.StatusCompleted, false, nil},
		{"being deleted", true, submission.StatusCollecting, false, submission.ErrPurging},
		{"being deleted, moving", true, submission.StatusCanceled, true, submission.ErrPurging},
		{"canceled", false, submission.StatusCanceled, false, submission.ErrCanceled},
		{"canceled, moving", false, submission.StatusCanceled, true, nil},
	} {
		err := submission.CheckAcceptsUpload(tc.purging, tc.status, tc.moving)
		if tc.want == nil {
			require.NoError(t, err, tc.name)
			continue
		}
		require.ErrorIs(t, err, tc.want, tc.name)
	}
}

func TestUnknownSlot(t *testing.T) {
	t.Parallel()
	slot := uuid.MustParse("0b7e2c55-2f0a-4a4c-8d3e-1f2a3b4c5d6e")
	var field *domain.FieldError
	require.ErrorAs(t, submission.UnknownSlot(slot, true), &field)
	require.Equal(t, "document_slot_id", field.Field)
	require.EqualError(t, field, "no such slot on this submission")
	var missing *domain.NotFoundError
	require.ErrorAs(t, submission.UnknownSlot(slot, false), &missing)
	require.Equal(t, "no slot 0b7e2c55-2f0a-4a4c-8d3e-1f2a3b4c5d6e on this submission", missing.Message)
}

func TestCheckSlotRoom(t *testing.T) {
	t.Parallel()
	require.NoError(t, submission.CheckSlotRoom("id_card", false, 0))
	require.NoError(t, submission.CheckSlotRoom("payslip", true, 3))
	var field *domain.FieldError
	require.ErrorAs(t, submission.CheckSlotRoom("id_card", false, 1), &field)
	require.Equal(t, "document_slot_id", field.Field)
	require.Equal(t, `slot "id_card" takes a single file and already holds one`, field.Error())
}

func TestCheckUploadRoom(t *testing.T) {
	t.Parallel()
	require.NoError(t, submission.CheckUploadRoom(199, 200))
	require.NoError(t, submission.CheckUploadRoom(5000, 0), "0 is no cap")
	var limit *domain.LimitError
	require.ErrorAs(t, submission.CheckUploadRoom(200, 200), &limit)
	require.ErrorAs(t, submission.CheckUploadRoom(201, 200), &limit)
}

func TestSlotStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		uploads []string
		want    string
	}{
		{nil, submission.SlotMissing},
		{[]string{submission.UploadFailed}, submission.SlotMissing},
		{[]string{submission.UploadProcessing, submission.UploadFailed}, submission.SlotProcessing},
		{[]string{submission.UploadProcessing, submission.UploadReady}, submission.SlotReceived},
		{[]string{submission.UploadReady, submission.UploadProcessing}, submission.SlotReceived},
	} {
		require.Equal(t, tc.want, submission.SlotStatus(tc.uploads), "%v", tc.uploads)
	}
}

func TestCheckDecision(t *testing.T) {
	t.Parallel()
	long := string(make([]rune, submission.MaxReasonLength+1))
	for _, tc := range []struct {
		decision, reason string
		want             error
	}{
		{"", "", nil},
		{submission.DecisionAccepted, "", nil},
		{submission.DecisionRejected, "  ", submission.ErrReasonRequired},
		{submission.DecisionNeedsReview, "", submission.ErrReasonRequired},
		{submission.DecisionRejected, "blurred", nil},
		{"maybe", "why not", submission.ErrDecisionUnknown},
		{submission.DecisionAccepted, long, submission.ErrReasonTooLong},
	} {
		_, err := submission.CheckDecision(tc.decision, tc.reason)
		if tc.want == nil {
			require.NoError(t, err, tc.decision)
			continue
		}
		require.ErrorIs(t, err, tc.want, tc.decision)
	}
	reason, err := submission.CheckDecision(submission.DecisionRejected, "  blurred \n")
	require.NoError(t, err)
	require.Equal(t, "blurred", reason)
}

func TestCheckDecidable(t *testing.T) {
	t.Parallel()
	require.NoError(t, submission.CheckDecidable(false, submission.StatusCompleted))
	require.ErrorIs(t, submission.CheckDecidable(true, submission.StatusCanceled), submission.ErrPurging)
	require.ErrorIs(t, submission.CheckDecidable(false, submission.StatusCanceled), submission.ErrCanceled)
}

func TestUnusableTemplate(t *testing.T) {
	t.Parallel()
	var field *domain.FieldError
	require.ErrorAs(t, submission.UnusableTemplate("loan_x", true), &field)
	require.Equal(t, "template_id", field.Field)
	require.ErrorIs(t, field, submission.ErrTemplateArchived)
	require.ErrorAs(t, submission.UnusableTemplate("loan_x", false), &field)
	require.Equal(t, "template_id", field.Field)
	require.EqualError(t, field, `no template "loan_x"`)
}

// An extra requirement's refusals name its document_type_id, and an unknown type is
// refused as unknown before archived or repeated are considered.
func TestCheckExtraRequirement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ref    catalog.Reference
		reason string
	}{
		{catalog.Reference{Found: true}, ""},
		{catalog.Reference{Archived: true, Repeated: true}, `no document type "payslip"`},
		{catalog.Reference{Found: true, Archived: true, Repeated: true}, `document type "payslip" is archived`},
		{catalog.Reference{Found: true, Repeated: true}, `document type "payslip" already has a slot on this submission`},
	} {
		err := submission.CheckExtraRequirement(3, "payslip", tc.ref)
		if tc.reason == "" {
			require.NoError(t, err)
			continue
		}
		var field *domain.FieldError
		require.ErrorAs(t, err, &field)
		require.Equal(t, "extra_document_requirements[3].document_type_id", field.Field)
		require.EqualError(t, field, tc.reason)
	}
}
