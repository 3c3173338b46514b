package sdktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// submission is the fake's state of one submission.
type submission struct {
	client.Submission
	template    client.TemplateDetail
	slots       []*slot
	uploads     []*client.Upload // oldest first
	evaluations []*client.Evaluation
}

type slot struct {
	id       uuid.UUID
	key      string
	label    string
	required bool
	multiple bool
}

func (s *Server) findSubmission(c *call) (*submission, error) {
	id, err := c.uuidParam("submission_id")
	if err != nil {
		return nil, err
	}
	for _, sub := range s.submissions {
		if sub.Id == id {
			return sub, nil
		}
	}
	return nil, notFound("submission")
}

func (s *Server) createSubmission(c *call) (int, any, error) {
	var req client.CreateSubmissionRequest
	if err := c.decode(&req, false); err != nil {
		return 0, nil, err
	}
	if n := len(req.ExternalSubmissionId); n < 1 || n > 255 {
		return 0, nil, invalidField("external_submission_id", "external_submission_id must be 1 to 255 characters")
	}
	for _, sub := range s.submissions {
		if sub.ExternalSubmissionId == req.ExternalSubmissionId {
			return http.StatusOK, sub.view(), nil
		}
	}
	templateID := defaultTemplateID
	if req.TemplateId != nil {
		templateID = *req.TemplateId
	}
	tpl, ok := findTemplate(templateID)
	if !ok {
		return 0, nil, invalidField("template_id", "no template "+templateID)
	}
	metadata := client.Metadata{}
	if req.Metadata != nil {
		if b, _ := json.Marshal(*req.Metadata); len(b) > 16<<10 {
			return 0, nil, invalidField("metadata", "metadata is over 16 KiB")
		}
		metadata = *req.Metadata
	}
	if req.Language != nil && *req.Language != client.De && *req.Language != client.En {
		return 0, nil, invalidField("language", "language must be de or en")
	}
	created := now()
	sub := &submission{template: tpl, Submission: client.Submission{
		Id: uuid.New(), DisplayId: fmt.Sprintf("SUB-%08d", len(s.submissions)+1), TemplateId: tpl.Id,
		ExternalSubmissionId: req.ExternalSubmissionId, Status: client.SubmissionStatusCollectingDocuments,
		Metadata: metadata, CreatedAt: created, UpdatedAt: created,
	}}
	for _, r := range tpl.DocumentRequirements {
		sub.slots = append(sub.slots, &slot{id: uuid.New(), key: r.Key, label: r.Label, required: r.Required, multiple: r.AllowMultipleFiles})
	}
	if req.ExtraDocumentRequirements != nil {
		for i, r := range *req.ExtraDocumentRequirements {
			param := fmt.Sprintf("extra_document_requirements[%d].document_type_id", i)
			taken := slices.ContainsFunc(sub.slots, func(sl *slot) bool { return sl.key == r.DocumentTypeId })
			if !builtinDocumentTypes[r.DocumentTypeId] || taken {
				return 0, nil, invalidField(param, "unknown document type, or one the submission already requires")
			}
			extra := &slot{id: uuid.New(), key: r.DocumentTypeId, label: documentTypeLabel(r.DocumentTypeId),
				required: r.Required == nil || *r.Required, multiple: r.AllowMultipleFiles != nil && *r.AllowMultipleFiles}
			if r.Label != nil {
				extra.label = *r.Label
			}
			sub.slots = append(sub.slots, extra)
		}
	}
	s.submissions = append(s.submissions, sub)
	return http.StatusCreated, sub.view(), nil
}

// view is the Submission answer of create and cancel, with consistency.
func (sub *submission) view() client.Submission {
	v := sub.Submission
	v.Consistency = &client.Consistency{Authz: client.Applied}
	return v
}

func (s *Server) getSubmission(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, sub.detail(), nil
}

func (sub *submission) detail() client.SubmissionDetail {
	d := client.SubmissionDetail{
		Id: sub.Id, DisplayId: sub.DisplayId, ExternalSubmissionId: sub.ExternalSubmissionId, TemplateId: sub.TemplateId,
		Status: sub.Status, Metadata: sub.Metadata, CreatedAt: sub.CreatedAt, UpdatedAt: sub.UpdatedAt,
		DocumentSlots: []client.DocumentSlot{}, UnassignedUploads: []client.Upload{},
	}
	for _, sl := range sub.slots {
		ds := client.DocumentSlot{Id: sl.id, Key: sl.key, Label: sl.label, Required: sl.required, Uploads: []client.Upload{}}
		for _, up := range sub.uploads {
			if up.DocumentSlotId != nil && *up.DocumentSlotId == sl.id {
				ds.Uploads = append(ds.Uploads, *up)
			}
		}
		ds.Status = slotStatus(ds.Uploads)
		d.DocumentSlots = append(d.DocumentSlots, ds)
	}
	for _, up := range sub.uploads {
		if up.DocumentSlotId == nil {
			d.UnassignedUploads = append(d.UnassignedUploads, *up)
		}
	}
	if n := len(sub.evaluations); n > 0 {
		latest := *sub.evaluations[n-1]
		d.LatestEvaluation = &latest
	}
	return d
}

// slotStatus is missing, processing or received, computed from the slot's uploads.
func slotStatus(uploads []client.Upload) client.DocumentSlotStatus {
	status := client.DocumentSlotStatusMissing
	for _, up := range uploads {
		switch up.UploadStatus {
		case client.UploadStatusReady:
			return client.DocumentSlotStatusReceived
		case client.UploadStatusProcessing:
			status = client.DocumentSlotStatusProcessing
		}
	}
	return status
}

func (s *Server) listSubmissions(c *call) (int, any, error) {
	q := c.r.URL.Query()
	status := q.Get("status")
	if status != "" && !slices.Contains([]client.SubmissionStatus{
		client.SubmissionStatusCollectingDocuments, client.SubmissionStatusEvaluating, client.SubmissionStatusCompleted,
		client.SubmissionStatusFailed, client.SubmissionStatusCanceled,
	}, client.SubmissionStatus(status)) {
		return 0, nil, invalidField("status", "unknown status "+status)
	}
	var bounds [2]*time.Time
	for i, name := range []string{"created_at_gte", "created_at_lt"} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return 0, nil, invalidField(name, name+" must be a date-time")
			}
			bounds[i] = &t
		}
	}
	var matching []client.SubmissionSummary
	for _, sub := range slices.Backward(s.submissions) { // newest first
		switch {
		case q.Has("external_submission_id") && sub.ExternalSubmissionId != q.Get("external_submission_id"),
			status != "" && string(sub.Status) != status,
			q.Has("template_id") && sub.TemplateId != q.Get("template_id"),
			bounds[0] != nil && sub.CreatedAt.Before(*bounds[0]),
			bounds[1] != nil && !sub.CreatedAt.Before(*bounds[1]):
			continue
		}
		matching = append(matching, client.SubmissionSummary{
			Id: sub.Id, DisplayId: sub.DisplayId, ExternalSubmissionId: sub.ExternalSubmissionId, TemplateId: sub.TemplateId,
			Status: sub.Status, CreatedAt: sub.CreatedAt, UpdatedAt: sub.UpdatedAt,
		})
	}
	page, err := paginate(c, matching)
	return http.StatusOK, page, err
}

func (s *Server) cancelSubmission(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	switch sub.Status {
	case client.SubmissionStatusCanceled:
		return http.StatusOK, sub.view(), nil
	case client.SubmissionStatusCompleted:
		return 0, nil, newError(http.StatusConflict, "submission_not_cancelable", "a completed submission cannot be canceled")
	}
	if ev := sub.activeEvaluation(); ev != nil {
		s.finishEvaluation(sub, ev, client.EvaluationStatusCanceled, nil, nil)
	}
	sub.Status, sub.UpdatedAt = client.SubmissionStatusCanceled, now()
	return http.StatusOK, sub.view(), nil
}
