package apiserver

import (
	"context"
	"encoding/json"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// MaxMetadataBytes bounds a submission's serialized metadata (Submission.metadata: 16 KiB).
const MaxMetadataBytes = 16 << 10

// applied is the consistency every create, patch and cancel answers with: a submission
// is written in one transaction, so its authorization has propagated when we answer.
var applied = &api.Consistency{Authz: "applied"}

func encodeMetadata(m *api.Metadata) (json.RawMessage, error) {
	if m == nil {
		return json.RawMessage(`{}`), nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, apierr.Field("metadata", "metadata must be a JSON object")
	}
	if len(b) > MaxMetadataBytes {
		return nil, apierr.Field("metadata", "metadata exceeds 16 KiB serialized")
	}
	return b, nil
}

func metadataToAPI(raw json.RawMessage) api.Metadata {
	m := api.Metadata{}
	_ = json.Unmarshal(raw, &m) // written by us from a JSON object
	return m
}

func submissionToAPI(s submission.Submission) api.Submission {
	return api.Submission{
		Id: s.ID, DisplayId: s.DisplayID, TemplateId: s.TemplateID, ExternalSubmissionId: s.ExternalID,
		Status: api.SubmissionStatus(s.Status), Metadata: metadataToAPI(s.Metadata), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
	}
}

func detailToAPI(d store.SubmissionDetail) (api.SubmissionDetail, error) {
	s := submissionToAPI(d.Submission)
	unassigned, err := uploadsToAPI(d.Unassigned)
	if err != nil {
		return api.SubmissionDetail{}, err
	}
	out := api.SubmissionDetail{
		Id: s.Id, DisplayId: s.DisplayId, TemplateId: s.TemplateId, ExternalSubmissionId: s.ExternalSubmissionId,
		Status: s.Status, Metadata: s.Metadata, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		DocumentSlots: make([]api.DocumentSlot, len(d.Slots)), UnassignedUploads: unassigned,
	}
	for i, sl := range d.Slots {
		uploads, err := uploadsToAPI(sl.Uploads)
		if err != nil {
			return api.SubmissionDetail{}, err
		}
		out.DocumentSlots[i] = api.DocumentSlot{
			Id: sl.ID, Key: sl.Key, Label: sl.Label, Required: sl.Required,
			Status: api.DocumentSlotStatus(sl.Status), Uploads: uploads,
		}
		if r := sl.Review; r != nil {
			out.DocumentSlots[i].Review = &api.SlotReview{Decision: api.SlotReviewDecision(r.Decision), Reason: r.Reason, DecidedAt: r.DecidedAt}
		}
	}
	if d.LatestEvaluation != nil {
		e, err := evaluationToAPI(*d.LatestEvaluation)
		if err != nil {
			return out, err
		}
		out.LatestEvaluation = &e
	}
	return out, nil
}

// CreateSubmission creates a submission from a template, or returns the one with the
// same external_submission_id (createSubmission).
func (s *Server) CreateSubmission(ctx context.Context, req api.CreateSubmissionRequestObject) (api.CreateSubmissionResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	meta, err := encodeMetadata(b.Metadata)
	if err != nil {
		return nil, err
	}
	in := submission.New{
		ExternalID: b.ExternalSubmissionId, Metadata: meta, Language: strOr(b.Language, "en"),
		Extra: requirementInputs(orEmpty(b.ExtraDocumentRequirements)),
	}
	if b.TemplateId != nil {
		in.TemplateRef = *b.TemplateId
	}
	sub, created, err := t.CreateSubmission(ctx, in)
	if err != nil {
		return nil, err
	}
	body := submissionToAPI(sub)
	body.Consistency = applied
	if !created {
		return api.CreateSubmission200JSONResponse{Body: body}, nil
	}
	return api.CreateSubmission201JSONResponse{Body: body}, nil
}

// ListSubmissions lists submissions newest first with the filters of listSubmissions.
func (s *Server) ListSubmissions(ctx context.Context, req api.ListSubmissionsRequestObject) (api.ListSubmissionsResponseObject, error) {
	p := req.Params
	t, limit, after, err := s.listStart(ctx, (*int)(p.Limit), (*string)(p.Cursor))
	if err != nil {
		return nil, err
	}
	rows, err := t.Submissions(ctx, store.SubmissionFilter{
		ExternalID: p.ExternalSubmissionId, Status: (*string)(p.Status), TemplateID: p.TemplateId,
		CreatedAtGTE: p.CreatedAtGte, CreatedAtLT: p.CreatedAtLt, After: after, Limit: limit,
	})
	if err != nil {
		return nil, err
	}
	rows, next := page.Trim(rows, limit, store.SubmissionCursor)
	list := api.SubmissionList{Data: make([]api.SubmissionSummary, len(rows)), NextCursor: next}
	for i, r := range rows {
		list.Data[i] = api.SubmissionSummary{
			Id: r.ID, DisplayId: r.DisplayID, TemplateId: r.TemplateID, ExternalSubmissionId: r.ExternalID,
			Status: api.SubmissionStatus(r.Status), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		}
	}
	return api.ListSubmissions200JSONResponse{Body: list}, nil
}

// GetSubmission returns a submission with its slots and uploads.
func (s *Server) GetSubmission(ctx context.Context, req api.GetSubmissionRequestObject) (api.GetSubmissionResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	d, err := t.Submission(ctx, req.SubmissionId)
	if err != nil {
		return nil, err
	}
	body, err := detailToAPI(d)
	if err != nil {
		return nil, err
	}
	return api.GetSubmission200JSONResponse{Body: body}, nil
}

// UpdateSubmission replaces a submission's metadata whole.
func (s *Server) UpdateSubmission(ctx context.Context, req api.UpdateSubmissionRequestObject) (api.UpdateSubmissionResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := encodeMetadata(&req.Body.Metadata)
	if err != nil {
		return nil, err
	}
	sub, err := t.UpdateMetadata(ctx, req.SubmissionId, meta)
	if err != nil {
		return nil, err
	}
	body := submissionToAPI(sub)
	body.Consistency = applied
	return api.UpdateSubmission200JSONResponse{Body: body}, nil
}

// CancelSubmission cancels a submission that is not completed.
func (s *Server) CancelSubmission(ctx context.Context, req api.CancelSubmissionRequestObject) (api.CancelSubmissionResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := t.CancelSubmission(ctx, req.SubmissionId)
	if err != nil {
		return nil, err
	}
	body := submissionToAPI(sub)
	body.Consistency = applied
	return api.CancelSubmission200JSONResponse{Body: body}, nil
}

// DeleteSubmission starts the asynchronous purge of a submission.
func (s *Server) DeleteSubmission(ctx context.Context, req api.DeleteSubmissionRequestObject) (api.DeleteSubmissionResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.DeleteSubmission(ctx, req.SubmissionId); err != nil {
		return nil, err
	}
	return api.DeleteSubmission202Response{}, nil
}
