package sdk

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// uploadPolls is a fake submission whose uploads move through the statuses given for
// each poll of the upload list (the last poll's statuses stay).
type uploadPolls struct {
	mu     sync.Mutex
	ids    []uuid.UUID
	polls  [][]string // per poll, one status per id
	lists  int
	others int // requests other than the list
}

func (u *uploadPolls) handler(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !strings.HasSuffix(r.URL.Path, "/files") {
		u.others++
		writeError(w, http.StatusNotFound, "not_found", "")
		return
	}
	statuses := u.polls[min(u.lists, len(u.polls)-1)]
	u.lists++
	var data []map[string]any
	for i, id := range u.ids {
		data = append(data, map[string]any{
			"id": id, "external_file_id": fmt.Sprint("f-", i), "upload_status": statuses[i], "file_id": uuid.New(),
			"filename": "f.pdf", "content_type": "application/pdf", "created_at": "2026-01-02T03:04:05Z",
			"document_slot_id": nil, "failure": nil,
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "next_cursor": nil})
}

func TestWaitForUploadsUntilReadyOrFailed(t *testing.T) {
	t.Parallel()
	a, b, other := uuid.New(), uuid.New(), uuid.New()
	fake := &uploadPolls{ids: []uuid.UUID{other, b, a}, polls: [][]string{
		{"processing", "processing", "processing"},
		{"processing", "ready", "processing"},
		{"processing", "ready", "failed"},
	}}
	c, _ := newTestClient(t, fake.handler)
	var progress []string
	uploads, err := c.WaitForUploads(context.Background(), testSubmissionID, []uuid.UUID{a, b}, WaitUploadsOptions{
		Interval:   time.Millisecond,
		OnProgress: func(u *client.Upload) { progress = append(progress, u.ExternalFileId+"="+string(u.UploadStatus)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(uploads) != 2 || uploads[0].Id != a || uploads[0].UploadStatus != "failed" || uploads[1].Id != b || uploads[1].UploadStatus != "ready" {
		t.Errorf("uploads %+v", uploads)
	}
	// The third upload, still processing, is not waited for.
	if fake.lists != 3 {
		t.Errorf("%d polls, want 3", fake.lists)
	}
	want := "[f-2=processing f-1=processing f-1=ready f-2=failed]"
	if got := fmtSlice(progress); got != want {
		t.Errorf("progress %s, want %s", got, want)
	}
}

func TestWaitForUploadsWithoutIDsWaitsForAll(t *testing.T) {
	t.Parallel()
	a, b := uuid.New(), uuid.New()
	fake := &uploadPolls{ids: []uuid.UUID{a, b}, polls: [][]string{
		{"ready", "processing"},
		{"ready", "virus_scan_pending"}, // unknown to this version: not waited on
	}}
	c, _ := newTestClient(t, fake.handler)
	uploads, err := c.WaitForUploads(context.Background(), testSubmissionID, nil, WaitUploadsOptions{Interval: time.Millisecond})
	if err != nil || len(uploads) != 2 || uploads[1].UploadStatus != "virus_scan_pending" || fake.lists != 2 {
		t.Errorf("uploads %+v err %v after %d polls", uploads, err, fake.lists)
	}
}

// An id the submission does not list is getUpload's 404, not an endless wait.
func TestWaitForUploadsUnknownID(t *testing.T) {
	t.Parallel()
	fake := &uploadPolls{ids: []uuid.UUID{uuid.New()}, polls: [][]string{{"processing"}}}
	c, _ := newTestClient(t, fake.handler)
	_, err := c.WaitForUploads(context.Background(), testSubmissionID, []uuid.UUID{uuid.New()}, WaitUploadsOptions{Interval: time.Millisecond})
	if !IsNotFound(err) || fake.others != 1 {
		t.Errorf("err %v", err)
	}
}

func TestWaitForUploadsStopsWithContext(t *testing.T) {
	t.Parallel()
	a := uuid.New()
	fake := &uploadPolls{ids: []uuid.UUID{a}, polls: [][]string{{"processing"}}}
	c, _ := newTestClient(t, fake.handler)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	uploads, err := c.WaitForUploads(ctx, testSubmissionID, []uuid.UUID{a}, WaitUploadsOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || len(uploads) != 1 || uploads[0].UploadStatus != "processing" {
		t.Errorf("uploads %+v err %v", uploads, err)
	}
}
