package sdk

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// UploadParams describes one file to upload.
type UploadParams struct {
	// ExternalFileID is the partner's id of the file, unique within the submission
	// (required): a repeat answers the existing upload and stores nothing.
	ExternalFileID string
	// Filename as the partner knows it; the service sanitizes it. Default "upload".
	Filename string
	// ContentType is one of the accepted types, application/pdf, image/jpeg, image/png,
	// application/msword and
	// application/vnd.openxmlformats-officedocument.wordprocessingml.document (required;
	// the service checks it against the file's bytes: 422 invalid_field, param file).
	ContentType string
	// Body is read once, in chunks, while it is sent; it is never held in memory as a
	// whole. When it is an io.ReadSeeker (an *os.File, a *bytes.Reader) the upload is
	// retried like other writes, seeking back to where Body was positioned when
	// UploadFile was called; any other reader is sent once.
	Body io.Reader
	// Size of Body in bytes, optional. With it, or with a seekable Body, the request
	// carries a Content-Length and Progress a total. It must be exact.
	Size int64
	// SlotID uploads into that document slot; nil uploads unassigned.
	SlotID *uuid.UUID
	// Progress, when set, is called as Body is read with the bytes sent so far and the
	// total (-1 when unknown). It runs on the goroutine that streams the body and
	// restarts from 0 when the upload is retried.
	Progress func(sent, total int64)
}

// UploadFile streams a file to the submission (createUpload) or to one of its slots
// (createSlotUpload, when SlotID is set) and returns the upload: upload_status
// "processing" for a new one (202), or the existing upload when ExternalFileID was
// already used (200). Memory stays bounded whatever the file size. WaitForUploads waits
// until processing ends.
func (c *Client) UploadFile(ctx context.Context, submissionID uuid.UUID, p UploadParams, opts ...RequestOption) (*client.Upload, error) {
	switch {
	case p.ExternalFileID == "":
		return nil, errors.New("doceval: UploadParams.ExternalFileID is required")
	case p.ContentType == "":
		return nil, errors.New("doceval: UploadParams.ContentType is required")
	case p.Body == nil:
		return nil, errors.New("doceval: UploadParams.Body is required")
	}
	stream, err := newUploadStream(p)
	if err != nil {
		return nil, err
	}
	defer stream.close()
	body, err := stream.open()
	if err != nil {
		return nil, err
	}
	rewindable := func(_ context.Context, req *http.Request) error {
		if stream.length >= 0 {
			req.ContentLength = stream.length
		}
		if stream.replayable() {
			req.GetBody = stream.open
		}
		return nil
	}
	return send[client.Upload](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		editors = append(editors, rewindable)
		if p.SlotID != nil {
			return c.api.CreateSlotUploadWithBody(ctx, submissionID, *p.SlotID, nil, stream.contentType, body, editors...)
		}
		return c.api.CreateUploadWithBody(ctx, submissionID, nil, stream.contentType, body, editors...)
	})
}

// GetUpload (getUpload) reads one upload of a submission, for example to see whether
// processing made it ready (upload_status leaves processing); WaitForUploads polls it.
func (c *Client) GetUpload(ctx context.Context, submissionID, uploadID uuid.UUID, opts ...RequestOption) (*client.Upload, error) {
	return send[client.Upload](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetUpload(ctx, submissionID, uploadID, editors...)
	})
}

// UpdateUpload (updateUpload) assigns the upload to the slot req.DocumentSlotId, or
// unassigns it when that is nil. 409 evaluation_in_progress while an evaluation is
// queued or running.
func (c *Client) UpdateUpload(ctx context.Context, submissionID, uploadID uuid.UUID, req client.UpdateUploadRequest, opts ...RequestOption) (*client.Upload, error) {
	return send[client.Upload](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateUpload(ctx, submissionID, uploadID, req, editors...)
	})
}

// DeleteUpload (deleteUpload) removes the upload; its external_file_id becomes reusable.
// When an attempt's answer was lost and the retry finds the upload gone (404), the call
// returns nil.
func (c *Client) DeleteUpload(ctx context.Context, submissionID, uploadID uuid.UUID, opts ...RequestOption) error {
	return sendDelete(ctx, opts, goneNotFound, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteUpload(ctx, submissionID, uploadID, editors...)
	})
}
