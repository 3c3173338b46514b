package sdk

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// WaitUploadsOptions tunes WaitForUploads.
type WaitUploadsOptions struct {
	// Interval between polls; default DefaultWaitInterval. Keep it polite: file.ready
	// and file.failed webhooks are the intended path.
	Interval time.Duration
	// OnProgress, when set, is called with each awaited upload as first read and then
	// whenever its upload_status changed.
	OnProgress func(*client.Upload)
}

// WaitForUploads polls the submission's uploads until none of those named is
// processing any more and returns them in the order of uploadIDs. That is ready or
// failed today (failure says why); a status this SDK does not know ends the wait too,
// so check UploadStatus. No uploadIDs means every upload the submission has at the
// first poll. Each poll lists the submission's uploads (listUploads, one request per
// 100 uploads) rather than reading them one by one. An upload that is not listed (it
// was deleted, or the id is not one of this submission's) ends the wait with
// getUpload's error, 404 not_found. When ctx ends first it returns the uploads last
// read with ctx's error.
func (c *Client) WaitForUploads(ctx context.Context, submissionID uuid.UUID, uploadIDs []uuid.UUID, opts WaitUploadsOptions) ([]*client.Upload, error) {
	interval := opts.Interval
	if interval <= 0 {
		interval = DefaultWaitInterval
	}
	wanted, everyUpload := uploadIDs, len(uploadIDs) == 0
	last := map[uuid.UUID]*client.Upload{}
	collect := func() []*client.Upload {
		uploads := make([]*client.Upload, 0, len(wanted))
		for _, id := range wanted {
			if up, ok := last[id]; ok {
				uploads = append(uploads, up)
			}
		}
		return uploads
	}
	for {
		listed := map[uuid.UUID]*client.Upload{}
		var order []uuid.UUID
		for up, err := range c.ListUploads(ctx, submissionID, &client.ListUploadsParams{Limit: ptrTo(100)}) {
			if err != nil {
				return collect(), err
			}
			listed[up.Id] = up
			order = append(order, up.Id)
		}
		if everyUpload {
			wanted, everyUpload = order, false
		}
		pending := false
		for _, id := range wanted {
			up, ok := listed[id]
			if !ok {
				if _, err := c.GetUpload(ctx, submissionID, id); err != nil {
					return collect(), err
				}
				pending = true // created after the list was read: the next poll sees it
				continue
			}
			if before := last[id]; opts.OnProgress != nil && (before == nil || before.UploadStatus != up.UploadStatus) {
				opts.OnProgress(up)
			}
			last[id] = up
			if up.UploadStatus == client.UploadStatusProcessing {
				pending = true
			}
		}
		if !pending {
			return collect(), nil
		}
		if err := sleepContext(ctx, interval); err != nil {
			return collect(), err
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
