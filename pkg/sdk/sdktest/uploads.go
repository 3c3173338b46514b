package sdktest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"slices"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// magicBytes are how the accepted content types begin; the service, too, refuses a
// file whose bytes do not match its declared type.
var magicBytes = map[string][]byte{
	"application/pdf":    []byte("%PDF-"),
	"image/jpeg":         {0xff, 0xd8, 0xff},
	"image/png":          {0x89, 'P', 'N', 'G'},
	"application/msword": {0xd0, 0xcf, 0x11, 0xe0},
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": []byte("PK\x03\x04"),
}

// createUpload serves createUpload and createSlotUpload.
func (s *Server) createUpload(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	var into *slot
	if _, ok := c.params["slot_id"]; ok {
		slotID, err := c.uuidParam("slot_id")
		if err != nil {
			return 0, nil, err
		}
		i := slices.IndexFunc(sub.slots, func(sl *slot) bool { return sl.id == slotID })
		if i < 0 {
			return 0, nil, notFound("document slot")
		}
		into = sub.slots[i]
	}
	form, err := readUploadForm(c)
	if err != nil {
		return 0, nil, err
	}
	for _, up := range sub.uploads {
		if up.ExternalFileId == form.externalFileID {
			return http.StatusOK, *up, nil
		}
	}
	if sub.Status == client.SubmissionStatusCanceled {
		return 0, nil, newError(http.StatusConflict, "submission_canceled", "the submission is canceled")
	}
	if into != nil && !into.multiple && slices.ContainsFunc(sub.uploads, func(up *client.Upload) bool {
		return up.DocumentSlotId != nil && *up.DocumentSlotId == into.id
	}) {
		return 0, nil, invalidField("document_slot_id", "the slot holds one upload and has it")
	}
	up := &client.Upload{
		Id: uuid.New(), FileId: uuid.New(), SubmissionId: &sub.Id, ExternalFileId: form.externalFileID,
		Filename: form.filename, ContentType: form.contentType, UploadStatus: client.UploadStatusProcessing, CreatedAt: now(),
	}
	if into != nil {
		up.DocumentSlotId = &into.id
	}
	sub.uploads = append(sub.uploads, up)
	if sub.Status == client.SubmissionStatusCompleted || sub.Status == client.SubmissionStatusFailed {
		sub.Status = client.SubmissionStatusCollectingDocuments
	}
	sub.UpdatedAt = now()
	answer := *up
	if !s.manual.uploads {
		s.finishUpload(sub, up, nil)
	}
	return http.StatusAccepted, answer, nil
}

type uploadForm struct {
	externalFileID, filename, contentType string
}

// readUploadForm reads the multipart body as the service does: the text part
// external_file_id and the file part file; other parts are ignored.
func readUploadForm(c *call) (uploadForm, error) {
	var form uploadForm
	mt, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return form, newError(http.StatusBadRequest, "invalid_request", "the body must be multipart/form-data")
	}
	mr := multipart.NewReader(bytes.NewReader(c.body), params["boundary"])
	var file []byte
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, newError(http.StatusBadRequest, "invalid_request", "malformed multipart body: "+err.Error())
		}
		b, err := io.ReadAll(part)
		if err != nil {
			return form, newError(http.StatusBadRequest, "invalid_request", "malformed multipart body: "+err.Error())
		}
		switch part.FormName() {
		case "external_file_id":
			form.externalFileID = string(b)
		case "file":
			file, form.filename, form.contentType = b, path.Base(part.FileName()), part.Header.Get("Content-Type")
		}
	}
	if n := len(form.externalFileID); n < 1 || n > 255 {
		return form, invalidField("external_file_id", "external_file_id must be 1 to 255 characters")
	}
	magic, accepted := magicBytes[form.contentType]
	switch {
	case len(file) == 0:
		return form, invalidField("file", "the file part is missing or empty")
	case !accepted:
		return form, invalidField("file", fmt.Sprintf("content type %q is not accepted", form.contentType))
	case !bytes.HasPrefix(file, magic):
		return form, invalidField("file", "the bytes are not "+form.contentType)
	}
	if form.filename == "." || form.filename == "/" {
		form.filename = "upload"
	}
	return form, nil
}

func (s *Server) findUpload(sub *submission, c *call) (*client.Upload, error) {
	id, err := c.uuidParam("upload_id")
	if err != nil {
		return nil, err
	}
	for _, up := range sub.uploads {
		if up.Id == id {
			return up, nil
		}
	}
	return nil, notFound("upload")
}

func (s *Server) getUpload(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	up, err := s.findUpload(sub, c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, *up, nil
}

func (s *Server) listUploads(c *call) (int, any, error) {
	sub, err := s.findSubmission(c)
	if err != nil {
		return 0, nil, err
	}
	var newestFirst []client.Upload
	for _, up := range slices.Backward(sub.uploads) {
		newestFirst = append(newestFirst, *up)
	}
	page, err := paginate(c, newestFirst)
	return http.StatusOK, page, err
}

// finishUpload ends processing: ready when failure is nil, else failed, with the
// file.ready or file.failed event.
func (s *Server) finishUpload(sub *submission, up *client.Upload, failure *client.UploadFailure) {
	up.UploadStatus, up.Failure = client.UploadStatusReady, failure
	typ := client.EventTypeFileReady
	if failure != nil {
		up.UploadStatus, typ = client.UploadStatusFailed, client.EventTypeFileFailed
	}
	inEvent := *up
	inEvent.ExternalSubmissionId = &sub.ExternalSubmissionId
	s.emitLocked(typ, map[string]any{"upload": inEvent})
}

// ReadyUpload makes a processing upload ready, with its file.ready event (for
// WithManualUploads).
func (s *Server) ReadyUpload(uploadID uuid.UUID) error {
	return s.settleUpload(uploadID, nil)
}

// FailUpload makes a processing upload failed with code (such as "file_corrupt") and
// message, with its file.failed event (for WithManualUploads).
func (s *Server) FailUpload(uploadID uuid.UUID, code client.UploadFailureCode, message string) error {
	return s.settleUpload(uploadID, &client.UploadFailure{Code: code, Message: message})
}

func (s *Server) settleUpload(uploadID uuid.UUID, failure *client.UploadFailure) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.submissions {
		for _, up := range sub.uploads {
			if up.Id != uploadID {
				continue
			}
			if up.UploadStatus != client.UploadStatusProcessing {
				return fmt.Errorf("sdktest: upload %s is %s, not processing", uploadID, up.UploadStatus)
			}
			s.finishUpload(sub, up, failure)
			return nil
		}
	}
	return fmt.Errorf("sdktest: no upload %s", uploadID)
}
