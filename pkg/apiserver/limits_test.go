package apiserver_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/store"
)

func withDeps(f func(*apiserver.Deps)) envOption { return envOption(f) }

// The create-upload call past UploadsPerSubmission is refused with 422 invalid_request
// before a byte is stored; a retry of a known external id still answers 200, and
// deleting an upload makes room.
func TestUploadsPerSubmissionCap(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, withDeps(func(d *apiserver.Deps) { d.Limits = store.Limits{UploadsPerSubmission: 2} }))
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "capped"})
	first := e.upload(c, sub.Id, nil, fileParts("a", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, first.StatusCode(), first.Body, 202)
	slots, err := c.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, slots.StatusCode(), slots.Body, 200)
	slot := slots.JSON200.DocumentSlots[0].Id
	second := e.upload(c, sub.Id, &slot, fileParts("b", "b.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, second.StatusCode(), second.Body, 202)
	stored := e.blobCount(e.blobRoot)

	refused := func(res *client.CreateUploadResponse) {
		t.Helper()
		detail := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidRequest)
		if !strings.Contains(detail.Message, "already holds 2 uploads") {
			t.Errorf("message %q does not name the cap", detail.Message)
		}
	}
	refused(e.upload(c, sub.Id, nil, fileParts("c", "c.pdf", "application/pdf", pdfBytes)...))
	refused(e.upload(c, sub.Id, &slot, fileParts("c", "c.pdf", "application/pdf", pdfBytes)...))
	// The file before its id: stored, then refused when recorded, and removed.
	refused(e.upload(c, sub.Id, nil, part{name: "file", filename: "c.pdf", contentType: "application/pdf", body: pdfBytes}, part{name: "external_file_id", body: []byte("c")}))
	if n := e.blobCount(e.blobRoot); n != stored {
		t.Fatalf("%d stored files after the refusals, want %d", n, stored)
	}

	again := e.upload(c, sub.Id, nil, fileParts("a", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, again.StatusCode(), again.Body, 200)

	del, err := c.DeleteUploadWithResponse(ctx, sub.Id, first.JSON202.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	third := e.upload(c, sub.Id, nil, fileParts("c", "c.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, third.StatusCode(), third.Body, 202)
}

// An evaluation whose ready uploads hold more than PagesPerEvaluation pages is refused
// at its start with 422 invalid_request, and nothing is queued.
func TestPagesPerEvaluationCap(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, withDeps(func(d *apiserver.Deps) { d.Limits = store.Limits{PagesPerEvaluation: 3} }))
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "pages"})
	var uploads []uuid.UUID
	for _, id := range []string{"p1", "p2"} {
		up := e.upload(c, sub.Id, nil, fileParts(id, id+".pdf", "application/pdf", pdfBytes)...)
		expect(t, nil, up.StatusCode(), up.Body, 202)
		pages := []document.Page{{Number: 1, Text: "Seite eins", Chars: 10}, {Number: 2, Text: "Seite zwei", Chars: 10}}
		if err := e.store.FinishIngest(ctx, up.JSON202.Id, pages, nil, nil); err != nil {
			t.Fatal(err)
		}
		uploads = append(uploads, up.JSON202.Id)
	}

	res, err := c.StartEvaluationWithResponse(ctx, sub.Id, nil)
	if err != nil {
		t.Fatal(err)
	}
	detail := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidRequest)
	if !strings.Contains(detail.Message, "hold 4 pages") || !strings.Contains(detail.Message, "at most 3") {
		t.Errorf("message %q does not name the pages and the cap", detail.Message)
	}
	if status, latest := e.submissionStatus(c, sub.Id); status != "collecting_documents" || latest != nil {
		t.Fatalf("after the refusal: status %s, latest evaluation %v", status, latest)
	}

	del, err := c.DeleteUploadWithResponse(ctx, sub.Id, uploads[0])
	expect(t, err, del.StatusCode(), del.Body, 204)
	res, err = c.StartEvaluationWithResponse(ctx, sub.Id, nil)
	expect(t, err, res.StatusCode(), res.Body, 202)
}

// slowUpload starts an upload whose body the test sends by hand: the id part and the
// head of a PDF are written, the rest waits for finish (or never comes).
type slowUpload struct {
	w      *io.PipeWriter
	mw     *multipart.Writer
	file   io.Writer
	answer chan *client.CreateUploadResponse
}

func (e *testEnv) startSlowUpload(c *client.ClientWithResponses, sub uuid.UUID, externalID string) *slowUpload {
	e.t.Helper()
	pr, pw := io.Pipe()
	u := &slowUpload{w: pw, mw: multipart.NewWriter(pw), answer: make(chan *client.CreateUploadResponse, 1)}
	go func() {
		res, err := c.CreateUploadWithBodyWithResponse(context.Background(), sub, nil, u.mw.FormDataContentType(), pr)
		if err != nil {
			res = &client.CreateUploadResponse{Body: []byte(err.Error()), HTTPResponse: &http.Response{StatusCode: -1}}
		}
		pr.CloseWithError(io.ErrClosedPipe)
		u.answer <- res
	}()
	id, _ := u.mw.CreateFormField("external_file_id")
	fmt.Fprint(id, externalID)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="slow.pdf"`)
	h.Set("Content-Type", "application/pdf")
	u.file, _ = u.mw.CreatePart(h)
	if _, err := u.file.Write(append(pdfBytes, make([]byte, 64<<10)...)); err != nil {
		e.t.Fatal(err)
	}
	return u
}

func (u *slowUpload) finish() *client.CreateUploadResponse {
	u.file.Write([]byte("%%EOF\n"))
	u.mw.Close()
	u.w.Close()
	return <-u.answer
}

// objects counts every file in the bucket, objects being written included.
func objects(root string) int {
	n := 0
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// One client's uploads beyond MaxConcurrentUploads on the replica are answered 429
// rate_limited with retry-after while the others stream; another client is not held
// up, and an ended upload frees its slot.
func TestConcurrentUploadsPerClient(t *testing.T) {
	e := newEnv(t, withDeps(func(d *apiserver.Deps) { d.MaxConcurrentUploads = 1 }))
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "busy"})
	_, otherKey := e.newClient()
	other := e.client(otherKey)
	otherSub := e.createSubmission(other, client.CreateSubmissionRequest{ExternalSubmissionId: "busy"})

	slow := e.startSlowUpload(c, sub.Id, "slow")
	eventually(t, "the slow upload to reach the bucket", func() bool { return objects(e.blobRoot) > 0 })

	busy := e.upload(c, sub.Id, nil, fileParts("quick", "q.pdf", "application/pdf", pdfBytes)...)
	detail := wantError(t, busy.HTTPResponse, busy.Body, 429, client.ErrorCodeRateLimited)
	if busy.HTTPResponse.Header.Get("retry-after") == "" || !strings.Contains(detail.Message, "1 uploads at once") {
		t.Errorf("429 without retry-after or a message naming the bound: %v %q", busy.HTTPResponse.Header, detail.Message)
	}
	fine := e.upload(other, otherSub.Id, nil, fileParts("quick", "q.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, fine.StatusCode(), fine.Body, 202)

	done := slow.finish()
	expect(t, nil, done.StatusCode(), done.Body, 202)
	after := e.upload(c, sub.Id, nil, fileParts("quick", "q.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, after.StatusCode(), after.Body, 202)
}

// An upload whose bytes stop arriving for UploadIdle is cut off with 400
// invalid_request, its partial bytes are not kept, and its slot is free again; one
// that keeps sending, however slowly overall, is not cut off.
func TestStalledUploadIsCutOff(t *testing.T) {
	const idle = 400 * time.Millisecond
	e := newEnv(t, withDeps(func(d *apiserver.Deps) { d.UploadIdle, d.MaxConcurrentUploads = idle, 1 }))
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "stall"})

	trickle := e.startSlowUpload(c, sub.Id, "trickle")
	for range 6 { // 6 × idle/2 = 1.5 idle in all, never idle long
		time.Sleep(idle / 2)
		if _, err := trickle.file.Write(make([]byte, 1024)); err != nil {
			t.Fatalf("the trickling upload was cut off: %v", err)
		}
	}
	ok := trickle.finish()
	expect(t, nil, ok.StatusCode(), ok.Body, 202)

	start := time.Now()
	stalled := e.startSlowUpload(c, sub.Id, "stalled")
	var res *client.CreateUploadResponse
	select {
	case res = <-stalled.answer:
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled upload was not cut off in 10 s")
	}
	if took := time.Since(start); took < idle*15/16 {
		t.Errorf("cut off after %s, before the idle time %s", took, idle)
	}
	detail := wantError(t, res.HTTPResponse, res.Body, 400, client.ErrorCodeInvalidRequest)
	if !strings.Contains(detail.Message, "no bytes of the request body arrived for 400ms") {
		t.Errorf("message %q", detail.Message)
	}
	stalled.w.Close()
	eventually(t, "the partial bytes to go", func() bool { return objects(e.blobRoot) == 1 })

	next := e.upload(c, sub.Id, nil, fileParts("next", "n.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, next.StatusCode(), next.Body, 202)
}

// Beyond MaxFeedWaits waiting reads of one client, a listEventFeed read with wait is
// answered at once (a normal page, empty here); another client still waits, and a
// read waits again once the first has ended.
func TestFeedWaitsPerClient(t *testing.T) {
	e := newEnv(t, withDeps(func(d *apiserver.Deps) { d.MaxFeedWaits = 1 }))
	_, key := e.newClient()
	c := e.client(key)
	_, otherKey := e.newClient()
	_, cur := feed(t, c, client.ListEventFeedParams{})

	waiting, stop := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { // holds the client's one waiting read, reading again when answered
		defer close(ended)
		for waiting.Err() == nil {
			c.ListEventFeedWithResponse(waiting, &client.ListEventFeedParams{Cursor: &cur, Wait: ptr(30)})
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// The holder may not wait when a probe arrives: then the probe waits (and is given up
	// after 2 s) and is tried again once the holder has had time to take the slot.
	answeredAtOnce := false
	for range 10 {
		time.Sleep(300 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		res, err := c.ListEventFeedWithResponse(ctx, &client.ListEventFeedParams{Cursor: &cur, Wait: ptr(30)})
		cancel()
		if err == nil {
			expect(t, nil, res.StatusCode(), res.Body, 200)
			if len(res.JSON200.Data) != 0 || res.JSON200.NextCursor == "" {
				t.Fatalf("answered at once: %s", res.Body)
			}
			answeredAtOnce = true
			break
		}
	}
	if !answeredAtOnce {
		t.Fatal("a read beyond the client's waiting reads was never answered at once")
	}

	start := time.Now()
	feed(t, e.client(otherKey), client.ListEventFeedParams{Wait: ptr(1)})
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("another client's read answered after %s, without waiting", took)
	}

	stop()
	<-ended
	eventually(t, "a read of the first client to wait again", func() bool {
		start := time.Now()
		feed(t, c, client.ListEventFeedParams{Cursor: &cur, Wait: ptr(1)})
		return time.Since(start) >= 900*time.Millisecond
	})
}
