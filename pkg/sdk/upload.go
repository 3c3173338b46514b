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
	// ExternalFileID is the idempotency key within the submission (required): a repeat
	// answers the existing upload and stores nothing.
	ExternalFileID string
	// Filename as the partner knows it; the service sanitizes it. Default "upload".
	Filename string
	// ContentType is one of the accepted types (section 8), for example
	// "application/pdf" (required; the service checks it against the file's bytes).
	ContentType string
	// Body is read once, in chunks, while it is sent; it is never held in memory as a
	// whole. When it is an io.ReadSeeker (an *os.File, a *bytes.Reader) the upload is
	// retried like other idempotent writes, seeking back to where Body was positioned
	// when UploadFile was called; any other reader is sent once.
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

// UploadFile streams a file to the submission (or to one of its slots) and returns the
// upload: upload_status "processing" for a new one (202), or the existing upload when
// ExternalFileID was already used (200). Memory stays bounded whatever the file size.
func (c *Client) UploadFile(ctx context.Context, submissionID uuid.UUID, p UploadParams) (*client.Upload, error) {
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
	describe := func(_ context.Context, req *http.Request) error {
		if stream.length >= 0 {
			req.ContentLength = stream.length
		}
		if stream.replayable() {
			req.GetBody = stream.open
		}
		return nil
	}
	if p.SlotID != nil {
		return receive[client.Upload](c.api.CreateSlotUploadWithBody(ctx, submissionID, *p.SlotID, nil, stream.contentType, body, describe))
	}
	return receive[client.Upload](c.api.CreateUploadWithBody(ctx, submissionID, nil, stream.contentType, body, describe))
}

// GetUpload reads one upload of a submission, for example to wait until ingest made it
// ready (upload_status leaves processing).
func (c *Client) GetUpload(ctx context.Context, submissionID, uploadID uuid.UUID) (*client.Upload, error) {
	return receive[client.Upload](c.api.GetUpload(ctx, submissionID, uploadID))
}
