package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"mime/multipart"
	"net/textproto"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
)

var (
	pdfBytes = []byte("%PDF-1.4\n% a tiny test document\n")
	pngBytes = []byte("\x89PNG\r\n\x1a\n0000IHDR")
)

// part is one multipart part; file parts carry a filename and content type.
type part struct {
	name, filename, contentType string
	body                        []byte
}

func multipartBody(t *testing.T, parts ...part) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"; filename="`+p.filename+`"`)
			h.Set("Content-Type", p.contentType)
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"`)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(p.body)
	}
	w.Close()
	return w.FormDataContentType(), &buf
}

func fileParts(externalID, filename, contentType string, body []byte) []part {
	return []part{{name: "external_file_id", body: []byte(externalID)}, {name: "file", filename: filename, contentType: contentType, body: body}}
}

func (e *testEnv) upload(c *client.ClientWithResponses, sub uuid.UUID, slot *uuid.UUID, parts ...part) *client.CreateUploadResponse {
	e.t.Helper()
	ct, body := multipartBody(e.t, parts...)
	if slot != nil {
		res, err := c.CreateSlotUploadWithBodyWithResponse(context.Background(), sub, *slot, nil, ct, body)
		if err != nil {
			e.t.Fatal(err)
		}
		return &client.CreateUploadResponse{Body: res.Body, HTTPResponse: res.HTTPResponse, JSON200: res.JSON200, JSON202: res.JSON202}
	}
	res, err := c.CreateUploadWithBodyWithResponse(context.Background(), sub, nil, ct, body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// blobCount is how many stored files the blob bucket holds.
func (e *testEnv) blobCount(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".attrs") && !strings.Contains(filepath.Base(path), ".tmp") {
			n++
		}
		return nil
	})
	return n
}

func (e *testEnv) createSubmission(c *client.ClientWithResponses, body client.CreateSubmissionRequest) client.Submission {
	e.t.Helper()
	res, err := c.CreateSubmissionWithResponse(context.Background(), nil, body)
	expect(e.t, err, res.StatusCode(), res.Body, 201)
	return *res.JSON201
}

func TestSubmissionCreate(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)

	sub := e.createSubmission(c, client.CreateSubmissionRequest{
		ExternalSubmissionId: "crm-4711", Metadata: &client.Metadata{"broker": "Example Finanz", "loan": 350000},
		ExtraDocumentRequirements: &[]client.DocumentRequirementInput{{DocumentTypeId: "floor_plan", Required: ptr(false), Label: ptr("Grundriss")}},
	})
	if sub.Consistency == nil || sub.Consistency.Authz != "applied" || sub.Status != "collecting_documents" ||
		sub.TemplateId != "personal_real_estate_financing" || !strings.HasPrefix(sub.DisplayId, "SUB-") || len(sub.DisplayId) != 12 ||
		sub.Metadata["broker"] != "Example Finanz" {
		t.Fatalf("created: %+v", sub)
	}
	detail, err := c.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, detail.StatusCode(), detail.Body, 200)
	d := detail.JSON200
	if len(d.DocumentSlots) != 10 || d.DocumentSlots[0].Key != "id_card" || d.DocumentSlots[9].Key != "floor_plan" ||
		d.DocumentSlots[9].Label != "Grundriss" || d.DocumentSlots[9].Required || !d.DocumentSlots[0].Required ||
		d.DocumentSlots[0].Status != "missing" || len(d.UnassignedUploads) != 0 || d.LatestEvaluation != nil || d.Consistency != nil {
		t.Fatalf("detail: %+v", d)
	}

	// The same external id returns the existing submission; other fields are ignored.
	again, err := c.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-4711", TemplateId: ptr("personal_loan")})
	expect(t, err, again.StatusCode(), again.Body, 200)
	if again.JSON200.Id != sub.Id || again.JSON200.TemplateId != sub.TemplateId || again.JSON200.Consistency == nil {
		t.Errorf("idempotent create: %+v", again.JSON200)
	}

	// The template: given by key, or the client's custom default.
	loan := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-2", TemplateId: ptr("personal_loan"), Language: ptr(client.SubmissionLanguage("de"))})
	if loan.TemplateId != "personal_loan" {
		t.Errorf("template %q", loan.TemplateId)
	}
	tpl, err := c.CreateTemplateWithResponse(ctx, nil, client.CreateTemplateRequest{DisplayName: "Mine", DocumentRequirements: &[]client.DocumentRequirementInput{{DocumentTypeId: "passport"}}})
	expect(t, err, tpl.StatusCode(), tpl.Body, 201)
	upd, err := c.UpdateTemplateWithResponse(ctx, tpl.JSON201.Id, client.UpdateTemplateRequest{ExpectedRevision: 1, IsDefault: ptr(true)})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	mine := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-3"})
	if mine.TemplateId != tpl.JSON201.Id {
		t.Errorf("default template not used: %q", mine.TemplateId)
	}
	// Later template edits do not touch existing submissions: the snapshot was taken.
	put, err := c.ReplaceTemplateDocumentRequirementsWithResponse(ctx, tpl.JSON201.Id, client.ReplaceTemplateDocumentRequirementsRequest{ExpectedRevision: 2, Items: []client.DocumentRequirementInput{}})
	expect(t, err, put.StatusCode(), put.Body, 200)
	mineDetail, err := c.GetSubmissionWithResponse(ctx, mine.Id)
	expect(t, err, mineDetail.StatusCode(), mineDetail.Body, 200)
	if len(mineDetail.JSON200.DocumentSlots) != 1 || mineDetail.JSON200.DocumentSlots[0].Key != "passport" {
		t.Errorf("slots changed with the template: %+v", mineDetail.JSON200.DocumentSlots)
	}

	archived, err := c.DeleteTemplateWithResponse(ctx, tpl.JSON201.Id)
	expect(t, err, archived.StatusCode(), archived.Body, 204)
	// A repeat answers with its submission whatever its template or extra requirements
	// would say now.
	for _, body := range []string{
		`{"external_submission_id": "crm-3"}`,
		`{"external_submission_id": "crm-3", "template_id": "` + tpl.JSON201.Id + `"}`,
		`{"external_submission_id": "crm-3", "extra_document_requirements": [{"document_type_id": "nope"}]}`,
	} {
		res, b := e.raw("POST", "/v1/submissions", key, "application/json", strings.NewReader(body))
		var got client.Submission
		if expect(t, nil, res.StatusCode, b, 200); json.Unmarshal(b, &got) != nil || got.Id != mine.Id {
			t.Errorf("repeat %s: %s, want submission %s", body, b, mine.Id)
		}
	}
	for _, tc := range []struct {
		body  string
		param string
	}{
		{`{"external_submission_id": ""}`, "external_submission_id"},
		{`{}`, "external_submission_id"},
		{`{"external_submission_id": "` + strings.Repeat("x", 256) + `"}`, "external_submission_id"},
		{`{"external_submission_id": "x1", "template_id": "no_such_template"}`, "template_id"},
		{`{"external_submission_id": "x2", "template_id": "` + tpl.JSON201.Id + `"}`, "template_id"},
		{`{"external_submission_id": "x3", "extra_document_requirements": [{"document_type_id": "id_card"}]}`, "extra_document_requirements[0].document_type_id"},
		{`{"external_submission_id": "x4", "extra_document_requirements": [{"document_type_id": "floor_plan"}, {"document_type_id": "nope"}]}`, "extra_document_requirements[1].document_type_id"},
		{`{"external_submission_id": "x5", "metadata": {"blob": "` + strings.Repeat("y", 16<<10) + `"}}`, "metadata"},
		{`{"external_submission_id": "x6", "metadata": [1, 2]}`, "metadata"},
		{`{"external_submission_id": "x7", "language": "fr"}`, "language"},
	} {
		res, body := e.raw("POST", "/v1/submissions", key, "application/json", strings.NewReader(tc.body))
		if d := wantError(t, res, body, 422, client.ErrorCodeInvalidField); deref(d.Param) != tc.param {
			t.Errorf("%s: param %q, want %q", tc.body[:min(len(tc.body), 60)], deref(d.Param), tc.param)
		}
	}
}

// Concurrent creates with one external id make one submission.
func TestSubmissionCreateConcurrentDuplicates(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	const n = 8
	var wg sync.WaitGroup
	ids := make([]uuid.UUID, n)
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			res, err := c.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionRequest{ExternalSubmissionId: "same"})
			if err != nil {
				t.Error(err)
				return
			}
			statuses[i] = res.StatusCode()
			switch {
			case res.JSON201 != nil:
				ids[i] = res.JSON201.Id
			case res.JSON200 != nil:
				ids[i] = res.JSON200.Id
			}
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		if statuses[i] == 201 {
			created++
		}
		if ids[i] != ids[0] || ids[i] == uuid.Nil {
			t.Fatalf("different submissions: %v (statuses %v)", ids, statuses)
		}
	}
	if created != 1 {
		t.Fatalf("statuses %v, want one 201", statuses)
	}
}

func TestSubmissionListFilters(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	a := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "a"})
	time.Sleep(2 * time.Millisecond)
	b := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "b", TemplateId: ptr("personal_loan")})
	time.Sleep(2 * time.Millisecond)
	cc := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "c"})
	cancel, err := c.CancelSubmissionWithResponse(ctx, cc.Id, nil)
	expect(t, err, cancel.StatusCode(), cancel.Body, 200)

	list := func(p client.ListSubmissionsParams) []string {
		t.Helper()
		res, err := c.ListSubmissionsWithResponse(ctx, &p)
		expect(t, err, res.StatusCode(), res.Body, 200)
		var out []string
		for _, s := range res.JSON200.Data {
			out = append(out, s.ExternalSubmissionId)
		}
		return out
	}
	for name, tc := range map[string]struct {
		p    client.ListSubmissionsParams
		want []string
	}{
		"all, newest first": {client.ListSubmissionsParams{}, []string{"c", "b", "a"}},
		"external id":       {client.ListSubmissionsParams{ExternalSubmissionId: ptr("b")}, []string{"b"}},
		"status":            {client.ListSubmissionsParams{Status: ptr(client.SubmissionStatus("canceled"))}, []string{"c"}},
		"template":          {client.ListSubmissionsParams{TemplateId: ptr("personal_real_estate_financing")}, []string{"c", "a"}},
		"created_at_gte":    {client.ListSubmissionsParams{CreatedAtGte: &b.CreatedAt}, []string{"c", "b"}},
		"created_at_lt":     {client.ListSubmissionsParams{CreatedAtLt: &b.CreatedAt}, []string{"a"}},
		"combined":          {client.ListSubmissionsParams{CreatedAtGte: &a.CreatedAt, CreatedAtLt: &cc.CreatedAt, Status: ptr(client.SubmissionStatus("collecting_documents"))}, []string{"b", "a"}},
	} {
		if got := list(tc.p); !equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	one := client.Limit(1)
	res, err := c.ListSubmissionsWithResponse(ctx, &client.ListSubmissionsParams{Limit: &one})
	expect(t, err, res.StatusCode(), res.Body, 200)
	next, err := c.ListSubmissionsWithResponse(ctx, &client.ListSubmissionsParams{Limit: &one, Cursor: res.JSON200.NextCursor})
	expect(t, err, next.StatusCode(), next.Body, 200)
	if res.JSON200.Data[0].ExternalSubmissionId != "c" || next.JSON200.Data[0].ExternalSubmissionId != "b" {
		t.Error("cursor pagination")
	}
	for _, q := range []string{"status=done", "external_submission_id=", "created_at_gte=yesterday"} {
		r, body := e.raw("GET", "/v1/submissions?"+q, key, "", nil)
		wantError(t, r, body, 422, client.ErrorCodeInvalidField)
	}
}

func TestSubmissionMetadataCancelDelete(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "m", Metadata: &client.Metadata{"a": 1, "b": 2}})

	patched, err := c.UpdateSubmissionWithResponse(ctx, sub.Id, client.UpdateSubmissionRequest{Metadata: client.Metadata{"c": "x"}})
	expect(t, err, patched.StatusCode(), patched.Body, 200)
	if m := patched.JSON200.Metadata; len(m) != 1 || m["c"] != "x" || patched.JSON200.Consistency == nil {
		t.Errorf("metadata is replaced whole: %v", m)
	}

	// An upload, so the purge has bytes to remove and an event to leave behind.
	d, err := c.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, d.StatusCode(), d.Body, 200)
	up := e.upload(c, sub.Id, &d.JSON200.DocumentSlots[0].Id, fileParts("f1", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, up.StatusCode(), up.Body, 202)

	canceled, err := c.CancelSubmissionWithResponse(ctx, sub.Id, nil)
	expect(t, err, canceled.StatusCode(), canceled.Body, 200)
	if canceled.JSON200.Status != "canceled" || canceled.JSON200.Consistency == nil {
		t.Errorf("cancel: %+v", canceled.JSON200)
	}
	again, err := c.CancelSubmissionWithResponse(ctx, sub.Id, nil)
	expect(t, err, again.StatusCode(), again.Body, 200)
	late := e.upload(c, sub.Id, nil, fileParts("f2", "b.pdf", "application/pdf", pdfBytes)...)
	wantError(t, late.HTTPResponse, late.Body, 409, client.ErrorCodeSubmissionCanceled)

	done := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "done"})
	if _, err := e.store.Pool().Exec(ctx, "UPDATE submissions SET status = 'completed' WHERE id = $1", done.Id); err != nil {
		t.Fatal(err)
	}
	nope, err := c.CancelSubmissionWithResponse(ctx, done.Id, nil)
	expect(t, err, nope.StatusCode(), nope.Body, 409)
	wantError(t, nope.HTTPResponse, nope.Body, 409, client.ErrorCodeSubmissionNotCancelable)

	// Delete: reads answer 409 while the purge runs, then 404; events stay readable; the
	// external id is free again.
	del, err := c.DeleteSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, del.StatusCode(), del.Body, 202)
	get, err := c.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, get.StatusCode(), get.Body, 409)
	wantError(t, get.HTTPResponse, get.Body, 409, client.ErrorCodePartnerDataPurgeInProgress)
	files, err := c.ListUploadsWithResponse(ctx, sub.Id, nil)
	expect(t, err, files.StatusCode(), files.Body, 409)
	delAgain, err := c.DeleteSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, delAgain.StatusCode(), delAgain.Body, 409)
	cancelDuring, err := c.CancelSubmissionWithResponse(ctx, sub.Id, nil)
	expect(t, err, cancelDuring.StatusCode(), cancelDuring.Body, 409)
	list, err := c.ListSubmissionsWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 1 {
		t.Errorf("a submission being purged is listed: %d", len(list.JSON200.Data))
	}
	var queued int
	if err := e.store.Pool().QueryRow(ctx, "SELECT count(*) FROM outbox WHERE subject = 'doceval.jobs.purge'").Scan(&queued); err != nil || queued != 1 {
		t.Fatalf("purge job queued: %d, %v", queued, err)
	}
	if err := e.store.PurgeSubmission(ctx, sub.Id, e.blobs.Delete, e.blobs.DeletePrefix); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PurgeSubmission(ctx, sub.Id, e.blobs.Delete, e.blobs.DeletePrefix); err != nil { // a redelivered job
		t.Fatal(err)
	}
	get, err = c.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, get.StatusCode(), get.Body, 404)
	if exists, err := e.blobs.Exists(ctx, blobKeyOf(t, e, up)); err != nil || exists {
		t.Errorf("bytes left after the purge: %v %v", exists, err)
	}
	evs, err := c.ListEventsWithResponse(ctx, &client.ListEventsParams{SubmissionId: &sub.Id})
	expect(t, err, evs.StatusCode(), evs.Body, 200)
	if len(evs.JSON200.Data) == 0 {
		t.Error("events of the purged submission are gone")
	}
	reborn, err := c.CreateSubmissionWithResponse(ctx, nil, client.CreateSubmissionRequest{ExternalSubmissionId: "m"})
	expect(t, err, reborn.StatusCode(), reborn.Body, 201)
	if reborn.JSON201.Id == sub.Id {
		t.Error("the purged submission came back")
	}
}

// blobKeyOf finds an upload's storage key (it is not part of the API).
func blobKeyOf(t *testing.T, e *testEnv, up *client.CreateUploadResponse) string {
	t.Helper()
	u := up.JSON202
	if u == nil {
		u = up.JSON200
	}
	return "clients/" + clientOf(t, e, u.SubmissionId) + "/submissions/" + u.SubmissionId.String() + "/files/" + u.FileId.String()
}

func clientOf(t *testing.T, e *testEnv, sub *uuid.UUID) string {
	var id uuid.UUID
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT api_client_id FROM uploads WHERE submission_id = $1 LIMIT 1", sub).Scan(&id); err != nil {
		// purged already: the key holds the client of the env's first client
		if err := e.store.Pool().QueryRow(context.Background(), "SELECT id FROM api_clients ORDER BY created_at LIMIT 1").Scan(&id); err != nil {
			t.Fatal(err)
		}
	}
	return id.String()
}

func TestUploads(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "u"})
	detail, _ := c.GetSubmissionWithResponse(ctx, sub.Id)
	idSlot, payslips := detail.JSON200.DocumentSlots[0], detail.JSON200.DocumentSlots[1]
	blobDir := e.blobDir()

	first := e.upload(c, sub.Id, nil, fileParts("scan-1", `C:\Users\me\Lohn 01/2026.pdf`, "application/pdf", pdfBytes)...)
	expect(t, nil, first.StatusCode(), first.Body, 202)
	u := first.JSON202
	if u.UploadStatus != "processing" || u.DocumentSlotId != nil || u.Filename != "2026.pdf" || u.ContentType != "application/pdf" ||
		u.FileId == uuid.Nil || u.SubmissionId == nil || *u.SubmissionId != sub.Id || u.Failure != nil {
		t.Fatalf("upload: %+v", u)
	}
	if n := e.blobCount(blobDir); n != 1 {
		t.Fatalf("%d stored files, want 1", n)
	}
	// Same external id: 200 with the existing upload, new bytes not stored — whichever
	// part comes first.
	dup := e.upload(c, sub.Id, nil, fileParts("scan-1", "other.png", "image/png", pngBytes)...)
	expect(t, nil, dup.StatusCode(), dup.Body, 200)
	reversed := e.upload(c, sub.Id, nil, part{name: "file", filename: "x.pdf", contentType: "application/pdf", body: pdfBytes}, part{name: "external_file_id", body: []byte("scan-1")}, part{name: "note", body: []byte("ignored")})
	expect(t, nil, reversed.StatusCode(), reversed.Body, 200)
	if dup.JSON200.Id != u.Id || reversed.JSON200.Id != u.Id || e.blobCount(blobDir) != 1 {
		t.Fatalf("duplicate upload stored bytes or made a new upload (%d files)", e.blobCount(blobDir))
	}

	// Into a slot: the slot goes processing and document_slot.updated is emitted.
	slotted := e.upload(c, sub.Id, &idSlot.Id, fileParts("id-front", "id.png", "image/png", pngBytes)...)
	expect(t, nil, slotted.StatusCode(), slotted.Body, 202)
	if slotted.JSON202.DocumentSlotId == nil || *slotted.JSON202.DocumentSlotId != idSlot.Id {
		t.Fatalf("slot upload: %+v", slotted.JSON202)
	}
	slotStatus := func(slot uuid.UUID) string {
		d, err := c.GetSubmissionWithResponse(ctx, sub.Id)
		expect(t, err, d.StatusCode(), d.Body, 200)
		for _, s := range d.JSON200.DocumentSlots {
			if s.Id == slot {
				return string(s.Status)
			}
		}
		return ""
	}
	if s := slotStatus(idSlot.Id); s != "processing" {
		t.Errorf("slot status %q, want processing", s)
	}
	evs, err := c.ListEventsWithResponse(ctx, &client.ListEventsParams{Type: ptr(client.EventType("document_slot.updated"))})
	expect(t, err, evs.StatusCode(), evs.Body, 200)
	if len(evs.JSON200.Data) != 1 {
		t.Fatalf("%d slot events", len(evs.JSON200.Data))
	}
	var data submission.SlotUpdatedData
	raw, _ := json.Marshal(evs.JSON200.Data[0].Data)
	if err := json.Unmarshal(raw, &data); err != nil || data.PreviousStatus != "missing" || data.DocumentSlot.Status != "processing" ||
		data.SubmissionID != sub.Id || data.ExternalSubmissionID != "u" || len(data.DocumentSlot.Uploads) != 1 {
		t.Errorf("slot event data: %s", raw)
	}
	// Retrying the upload that filled a single-file slot answers 200, not a full slot.
	retry := e.upload(c, sub.Id, &idSlot.Id, fileParts("id-front", "id.png", "image/png", pngBytes)...)
	expect(t, nil, retry.StatusCode(), retry.Body, 200)
	// Assigning an upload to the slot it is in changes nothing: a review status stays.
	if _, err := e.store.Pool().Exec(ctx, "UPDATE document_slots SET status = 'accepted' WHERE id = $1", idSlot.Id); err != nil {
		t.Fatal(err)
	}
	same, err := c.UpdateUploadWithResponse(ctx, sub.Id, slotted.JSON202.Id, client.UpdateUploadRequest{DocumentSlotId: &idSlot.Id})
	expect(t, err, same.StatusCode(), same.Body, 200)
	if s := slotStatus(idSlot.Id); s != "accepted" {
		t.Errorf("a no-op move replaced the review status with %q", s)
	}
	// While an evaluation is queued or running, uploads are neither moved nor deleted.
	if _, err := e.store.Pool().Exec(ctx, "UPDATE submissions SET status = 'evaluating' WHERE id = $1", sub.Id); err != nil {
		t.Fatal(err)
	}
	busyMove, err := c.UpdateUploadWithResponse(ctx, sub.Id, u.Id, client.UpdateUploadRequest{DocumentSlotId: &payslips.Id})
	expect(t, err, busyMove.StatusCode(), busyMove.Body, 409)
	wantError(t, busyMove.HTTPResponse, busyMove.Body, 409, client.ErrorCodeEvaluationInProgress)
	busyDel, err := c.DeleteUploadWithResponse(ctx, sub.Id, u.Id)
	expect(t, err, busyDel.StatusCode(), busyDel.Body, 409)
	if _, err := e.store.Pool().Exec(ctx, "UPDATE submissions SET status = 'collecting_documents' WHERE id = $1", sub.Id); err != nil {
		t.Fatal(err)
	}

	// A single-file slot refuses a second file.
	full := e.upload(c, sub.Id, &idSlot.Id, fileParts("id-back", "id2.png", "image/png", pngBytes)...)
	if d := wantError(t, full.HTTPResponse, full.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "document_slot_id" {
		t.Errorf("param %q", deref(d.Param))
	}
	unknownSlot := uuid.New()
	none := e.upload(c, sub.Id, &unknownSlot, fileParts("z", "z.pdf", "application/pdf", pdfBytes)...)
	wantError(t, none.HTTPResponse, none.Body, 404, client.ErrorCodeNotFound)

	// Refused at once, with nothing stored.
	before := e.blobCount(blobDir)
	big := bytes.Repeat([]byte("x"), 1<<20)
	for _, tc := range []struct {
		parts  []part
		status int
		code   client.ErrorCode
		param  string
	}{
		{fileParts("r1", "a.pdf", "application/pdf", pngBytes), 422, client.ErrorCodeInvalidField, "file"},
		{fileParts("r2", "a.pdf", "application/pdf", nil), 422, client.ErrorCodeInvalidField, "file"},
		{fileParts("r3", "a.txt", "text/plain", []byte("hello")), 422, client.ErrorCodeInvalidField, "file"},
		{fileParts("r4", "big.pdf", "application/pdf", append(append([]byte{}, pdfBytes...), big...)), 413, client.ErrorCodeFileTooLarge, ""},
		{[]part{{name: "file", filename: "a.pdf", contentType: "application/pdf", body: pdfBytes}}, 422, client.ErrorCodeInvalidField, "external_file_id"},
		{[]part{{name: "external_file_id", body: []byte("r6")}}, 422, client.ErrorCodeInvalidField, "file"},
		{fileParts("", "a.pdf", "application/pdf", pdfBytes), 422, client.ErrorCodeInvalidField, "external_file_id"},
		{fileParts(strings.Repeat("x", 256), "a.pdf", "application/pdf", pdfBytes), 422, client.ErrorCodeInvalidField, "external_file_id"},
	} {
		res := e.upload(c, sub.Id, nil, tc.parts...)
		if d := wantError(t, res.HTTPResponse, res.Body, tc.status, tc.code); deref(d.Param) != tc.param && tc.param != "" {
			t.Errorf("param %q, want %q", deref(d.Param), tc.param)
		}
	}
	if n := e.blobCount(blobDir); n != before {
		t.Errorf("refused uploads left %d stored files", n-before)
	}
	notMultipart, body := e.raw("POST", "/v1/submissions/"+sub.Id.String()+"/files", key, "application/json", strings.NewReader(`{}`))
	wantError(t, notMultipart, body, 400, client.ErrorCodeInvalidRequest)
	noBoundary, body := e.raw("POST", "/v1/submissions/"+sub.Id.String()+"/files", key, "multipart/form-data", strings.NewReader(`x`))
	wantError(t, noBoundary, body, 400, client.ErrorCodeInvalidRequest)

	// Move into a multi-file slot, then out again; list, get.
	moved, err := c.UpdateUploadWithResponse(ctx, sub.Id, u.Id, client.UpdateUploadRequest{DocumentSlotId: &payslips.Id})
	expect(t, err, moved.StatusCode(), moved.Body, 200)
	if moved.JSON200.DocumentSlotId == nil || *moved.JSON200.DocumentSlotId != payslips.Id || slotStatus(payslips.Id) != "processing" {
		t.Errorf("move: %+v", moved.JSON200)
	}
	intoFull, err := c.UpdateUploadWithResponse(ctx, sub.Id, u.Id, client.UpdateUploadRequest{DocumentSlotId: &idSlot.Id})
	expect(t, err, intoFull.StatusCode(), intoFull.Body, 422)
	out, err := c.UpdateUploadWithResponse(ctx, sub.Id, u.Id, client.UpdateUploadRequest{DocumentSlotId: nil})
	expect(t, err, out.StatusCode(), out.Body, 200)
	if out.JSON200.DocumentSlotId != nil || slotStatus(payslips.Id) != "missing" {
		t.Errorf("unassign: %+v", out.JSON200)
	}
	files, err := c.ListUploadsWithResponse(ctx, sub.Id, nil)
	expect(t, err, files.StatusCode(), files.Body, 200)
	if len(files.JSON200.Data) != 2 || files.JSON200.Data[0].Id != slotted.JSON202.Id {
		t.Errorf("list (newest first): %+v", files.JSON200.Data)
	}
	got, err := c.GetUploadWithResponse(ctx, sub.Id, u.Id)
	expect(t, err, got.StatusCode(), got.Body, 200)

	// Delete: the bytes' removal queued with it (ingest's blob-delete consumer removes
	// them), slot recomputed, the external id reusable.
	del, err := c.DeleteUploadWithResponse(ctx, sub.Id, slotted.JSON202.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	var queued int
	if err := e.store.Pool().QueryRow(ctx, "SELECT count(*) FROM outbox WHERE subject = 'doceval.jobs.blob-delete' AND convert_from(payload, 'UTF8')::jsonb->>'key' LIKE '%' || $1::text", slotted.JSON202.FileId.String()).Scan(&queued); err != nil {
		t.Fatal(err)
	}
	if slotStatus(idSlot.Id) != "missing" || queued != 1 {
		t.Errorf("after delete: slot %q, %d blob-delete jobs for its file", slotStatus(idSlot.Id), queued)
	}
	reused := e.upload(c, sub.Id, &idSlot.Id, fileParts("id-front", "id.png", "image/png", pngBytes)...)
	expect(t, nil, reused.StatusCode(), reused.Body, 202)
	gone, err := c.GetUploadWithResponse(ctx, sub.Id, slotted.JSON202.Id)
	expect(t, err, gone.StatusCode(), gone.Body, 404)
}

func (e *testEnv) blobDir() string {
	e.t.Helper()
	return e.blobRoot
}

// Concurrent uploads with one external id make one upload and keep one file.
func TestUploadConcurrentDuplicates(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "cu"})
	const n = 6
	var wg sync.WaitGroup
	statuses := make([]int, n)
	ids := make([]uuid.UUID, n)
	for i := range n {
		wg.Go(func() {
			ct, body := multipartBody(t, fileParts("same-file", "a.pdf", "application/pdf", pdfBytes)...)
			res, err := c.CreateUploadWithBodyWithResponse(context.Background(), sub.Id, nil, ct, body)
			if err != nil {
				t.Error(err)
				return
			}
			statuses[i] = res.StatusCode()
			if res.JSON202 != nil {
				ids[i] = res.JSON202.Id
			} else if res.JSON200 != nil {
				ids[i] = res.JSON200.Id
			}
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		if statuses[i] == 202 {
			created++
		}
		if ids[i] != ids[0] {
			t.Fatalf("different uploads %v", ids)
		}
	}
	if created != 1 || e.blobCount(e.blobDir()) != 1 {
		t.Fatalf("statuses %v, %d stored files; want one 202 and one file", statuses, e.blobCount(e.blobDir()))
	}
}

// The ingest outcome: the upload turns ready, its slot received, and file.ready carries
// the upload with its submission ids.
func TestFinishIngest(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "ing"})
	d, _ := c.GetSubmissionWithResponse(ctx, sub.Id)
	slot := d.JSON200.DocumentSlots[0]
	up := e.upload(c, sub.Id, &slot.Id, fileParts("f", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, up.StatusCode(), up.Body, 202)
	bad := e.upload(c, sub.Id, nil, fileParts("g", "b.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, bad.StatusCode(), bad.Body, 202)

	if err := e.store.FinishIngest(ctx, up.JSON202.Id, []document.Page{{Number: 1, Text: "Personalausweis", Chars: 15}}, map[string]string{"Pages": "1"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.store.FinishIngest(ctx, bad.JSON202.Id, nil, nil, &submission.UploadFailure{Code: "file_corrupt", Message: "not a PDF"}); err != nil {
		t.Fatal(err)
	}
	// A redelivered job changes nothing and emits nothing.
	if err := e.store.FinishIngest(ctx, up.JSON202.Id, nil, nil, &submission.UploadFailure{Code: "processing_error", Message: "late"}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetUploadWithResponse(ctx, sub.Id, up.JSON202.Id)
	expect(t, err, got.StatusCode(), got.Body, 200)
	failed, err := c.GetUploadWithResponse(ctx, sub.Id, bad.JSON202.Id)
	expect(t, err, failed.StatusCode(), failed.Body, 200)
	if got.JSON200.UploadStatus != "ready" || failed.JSON200.UploadStatus != "failed" || failed.JSON200.Failure == nil || failed.JSON200.Failure.Code != "file_corrupt" {
		t.Fatalf("after ingest: %+v / %+v", got.JSON200, failed.JSON200)
	}
	d, _ = c.GetSubmissionWithResponse(ctx, sub.Id)
	if d.JSON200.DocumentSlots[0].Status != "received" {
		t.Errorf("slot %q, want received", d.JSON200.DocumentSlots[0].Status)
	}
	for typ, want := range map[string]uuid.UUID{"file.ready": up.JSON202.Id, "file.failed": bad.JSON202.Id} {
		evs, err := c.ListEventsWithResponse(ctx, &client.ListEventsParams{Type: ptr(client.EventType(typ))})
		expect(t, err, evs.StatusCode(), evs.Body, 200)
		if len(evs.JSON200.Data) != 1 {
			t.Fatalf("%d %s events", len(evs.JSON200.Data), typ)
		}
		var data submission.FileEventData
		raw, _ := json.Marshal(evs.JSON200.Data[0].Data)
		if err := json.Unmarshal(raw, &data); err != nil || data.Upload.ID != want || data.Upload.SubmissionID != sub.Id || data.Upload.ExternalSubmissionID != "ing" {
			t.Errorf("%s data: %s", typ, raw)
		}
	}
}

// Another client's submissions do not exist for a client.
func TestSubmissionTenantIsolation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, aliceKey := e.newClient()
	_, bobKey := e.newClient()
	alice, bob := e.client(aliceKey), e.client(bobKey)
	sub := e.createSubmission(alice, client.CreateSubmissionRequest{ExternalSubmissionId: "shared-id"})
	up := e.upload(alice, sub.Id, nil, fileParts("f", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, up.StatusCode(), up.Body, 202)

	get, err := bob.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, get.StatusCode(), get.Body, 404)
	patch, err := bob.UpdateSubmissionWithResponse(ctx, sub.Id, client.UpdateSubmissionRequest{Metadata: client.Metadata{}})
	expect(t, err, patch.StatusCode(), patch.Body, 404)
	cancel, err := bob.CancelSubmissionWithResponse(ctx, sub.Id, nil)
	expect(t, err, cancel.StatusCode(), cancel.Body, 404)
	del, err := bob.DeleteSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, del.StatusCode(), del.Body, 404)
	file, err := bob.GetUploadWithResponse(ctx, sub.Id, up.JSON202.Id)
	expect(t, err, file.StatusCode(), file.Body, 404)
	upload := e.upload(bob, sub.Id, nil, fileParts("g", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, upload.StatusCode(), upload.Body, 404)
	// The same external id is Bob's own namespace.
	mine := e.createSubmission(bob, client.CreateSubmissionRequest{ExternalSubmissionId: "shared-id"})
	if mine.Id == sub.Id {
		t.Error("bob got alice's submission")
	}
}

// A new, moved or deleted upload sends a completed or failed submission back to
// collecting_documents (SubmissionStatus).
func TestUploadChangesReopenSubmission(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "reopen"})
	d, _ := c.GetSubmissionWithResponse(ctx, sub.Id)
	slot := d.JSON200.DocumentSlots[1].Id
	first := e.upload(c, sub.Id, nil, fileParts("a", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, first.StatusCode(), first.Body, 202)
	setStatus := func(status string) {
		if _, err := e.store.Pool().Exec(ctx, "UPDATE submissions SET status = $2 WHERE id = $1", sub.Id, status); err != nil {
			t.Fatal(err)
		}
	}
	status := func() string {
		got, err := c.GetSubmissionWithResponse(ctx, sub.Id)
		expect(t, err, got.StatusCode(), got.Body, 200)
		return string(got.JSON200.Status)
	}
	steps := []struct {
		name, from string
		change     func()
	}{
		{"new upload", "completed", func() {
			r := e.upload(c, sub.Id, nil, fileParts("b", "b.pdf", "application/pdf", pdfBytes)...)
			expect(t, nil, r.StatusCode(), r.Body, 202)
		}},
		{"new upload", "failed", func() {
			r := e.upload(c, sub.Id, nil, fileParts("c", "c.pdf", "application/pdf", pdfBytes)...)
			expect(t, nil, r.StatusCode(), r.Body, 202)
		}},
		{"moved upload", "completed", func() {
			r, err := c.UpdateUploadWithResponse(ctx, sub.Id, first.JSON202.Id, client.UpdateUploadRequest{DocumentSlotId: &slot})
			expect(t, err, r.StatusCode(), r.Body, 200)
		}},
		{"unassigned upload", "failed", func() {
			r, err := c.UpdateUploadWithResponse(ctx, sub.Id, first.JSON202.Id, client.UpdateUploadRequest{DocumentSlotId: nil})
			expect(t, err, r.StatusCode(), r.Body, 200)
		}},
		{"deleted upload", "completed", func() {
			r, err := c.DeleteUploadWithResponse(ctx, sub.Id, first.JSON202.Id)
			expect(t, err, r.StatusCode(), r.Body, 204)
		}},
	}
	for _, step := range steps {
		setStatus(step.from)
		step.change()
		if got := status(); got != "collecting_documents" {
			t.Errorf("%s on a %s submission: status %s, want collecting_documents", step.name, step.from, got)
		}
	}
	// An idempotent retry is not a new upload: the status stays.
	setStatus("completed")
	again := e.upload(c, sub.Id, nil, fileParts("b", "b.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, again.StatusCode(), again.Body, 200)
	if got := status(); got != "completed" {
		t.Errorf("a repeated upload reopened the submission: %s", got)
	}
}

// An upload whose COMMIT goes unanswered while the database goes out of reach keeps
// its stored bytes: the upload may exist (here it does), and the retry that finds it by
// its external_file_id must find its file too, or ingest would fail it.
func TestUploadKeepsItsBytesWhenItsCommitIsUncertain(t *testing.T) {
	ctx := context.Background()
	e, faults := newFaultyEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "uncertain"})
	faults.LoseAnswer(true, "INSERT INTO uploads", "commit")
	first := e.upload(c, sub.Id, nil, fileParts("doc-1", "a.pdf", "application/pdf", pdfBytes)...)
	if !faults.Fired() || first.StatusCode() != 503 {
		t.Fatalf("commit cut %v, answer %d %s; want the cut and 503", faults.Fired(), first.StatusCode(), first.Body)
	}
	faults.SetDown(false)
	again := e.upload(c, sub.Id, nil, fileParts("doc-1", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, again.StatusCode(), again.Body, 200) // the first one was committed
	u, err := e.store.UploadForIngest(ctx, again.JSON200.Id)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.blobs.Exists(ctx, u.BlobKey); err != nil || !ok {
		t.Fatalf("the committed upload's bytes: exist %v, %v", ok, err)
	}
	if n := e.blobCount(e.blobRoot); n != 1 {
		t.Fatalf("%d stored files, want 1 (the retry's copy is discarded)", n)
	}
}
