package sdk

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
)

// receivedUpload is what the fake API read from one upload request.
type receivedUpload struct {
	path          string
	contentLength int64 // as declared; -1 when chunked
	bodyBytes     int64 // as read
	parts         []string
	externalID    string
	filename      string
	fileType      string
	fileBytes     int64
	file          []byte // kept only when keepFile
}

// uploadSink is a fake upload endpoint that streams the multipart body (never holding
// it whole), records what it read, and answers with answer(n) for the n-th request.
type uploadSink struct {
	keepFile bool
	answer   func(n int) int
	mu       sync.Mutex
	got      []receivedUpload
}

func (s *uploadSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	counted := &countingReader{r: r.Body}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "")
		return
	}
	rec := receivedUpload{path: r.URL.Path, contentLength: r.ContentLength}
	mr := multipart.NewReader(counted, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request", "")
			return
		}
		rec.parts = append(rec.parts, part.FormName())
		switch part.FormName() {
		case "external_file_id":
			b, _ := io.ReadAll(part)
			rec.externalID = string(b)
		case "file":
			rec.filename, rec.fileType = part.FileName(), part.Header.Get("Content-Type")
			var sink io.Writer = io.Discard
			var kept bytes.Buffer
			if s.keepFile {
				sink = &kept
			}
			rec.fileBytes, _ = io.Copy(sink, part)
			rec.file = kept.Bytes()
		}
	}
	rec.bodyBytes = counted.n
	s.mu.Lock()
	s.got = append(s.got, rec)
	n := len(s.got)
	s.mu.Unlock()
	status := http.StatusAccepted
	if s.answer != nil {
		status = s.answer(n)
	}
	if status >= 400 {
		writeError(w, status, "internal_error", "")
		return
	}
	writeJSON(w, status, map[string]any{
		"id": uuid.New(), "external_file_id": rec.externalID, "upload_status": "processing", "file_id": uuid.New(),
		"document_slot_id": nil, "filename": rec.filename, "content_type": rec.fileType, "failure": nil,
		"created_at": "2026-01-02T03:04:05Z",
	})
}

func (s *uploadSink) requests() []receivedUpload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]receivedUpload(nil), s.got...)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// generatedFile is a large file that exists nowhere in memory: it only counts.
type generatedFile struct{ sent, size int64 }

func (g *generatedFile) Read(p []byte) (int, error) {
	if g.sent >= g.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), g.size-g.sent))
	if g.sent == 0 {
		copy(p[:n], "%PDF-1.7\n")
	}
	g.sent += int64(n)
	return n, nil
}

func TestUploadStreamsLargeFileWithBoundedMemory(t *testing.T) {
	t.Parallel()
	const size = 256 << 20
	sink := &uploadSink{}
	c, _ := newTestClient(t, sink.ServeHTTP)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var (
		peakHeap  uint64
		calls     int
		lastSent  int64
		monotonic = true
		nextCheck int64
	)
	up, err := c.UploadFile(context.Background(), testSubmissionID, UploadParams{
		ExternalFileID: "big-1", Filename: "big.pdf", ContentType: "application/pdf",
		Body: &generatedFile{size: size}, Size: size,
		Progress: func(sent, total int64) {
			calls++
			monotonic = monotonic && sent > lastSent && total == size
			lastSent = sent
			if sent >= nextCheck { // sampling: ReadMemStats stops the world
				nextCheck += 16 << 20
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peakHeap = max(peakHeap, m.HeapInuse)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.ExternalFileId != "big-1" || up.UploadStatus != "processing" {
		t.Errorf("upload %+v", up)
	}
	got := sink.requests()
	if len(got) != 1 || got[0].fileBytes != size || got[0].contentLength != got[0].bodyBytes {
		t.Fatalf("received %+v", got)
	}
	if lastSent != size || !monotonic || calls < 2 {
		t.Errorf("progress: %d calls, last %d, monotonic %v", calls, lastSent, monotonic)
	}
	growth := int64(peakHeap) - int64(before.HeapInuse)
	t.Logf("heap in use grew by at most %d KiB while streaming %d MiB", growth>>10, size>>20)
	if growth > 32<<20 {
		t.Errorf("heap grew by %d MiB for a %d MiB upload: the body is being buffered", growth>>20, size>>20)
	}
}

func TestUploadSendsExternalIDFirstAndTheDeclaredType(t *testing.T) {
	t.Parallel()
	sink := &uploadSink{keepFile: true}
	c, _ := newTestClient(t, sink.ServeHTTP)
	content := "%PDF-1.4 tiny"
	_, err := c.UploadFile(context.Background(), testSubmissionID, UploadParams{
		ExternalFileID: "f-1", Filename: `quote"d\name.pdf`, ContentType: "application/pdf", Body: strings.NewReader(content),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := sink.requests()[0]
	if strings.Join(got.parts, ",") != "external_file_id,file" || got.externalID != "f-1" || got.fileType != "application/pdf" ||
		string(got.file) != content || got.filename != `quote"d\name.pdf` {
		t.Errorf("received %+v", got)
	}
	// A strings.Reader seeks, so its size is known without Size.
	if got.contentLength != got.bodyBytes {
		t.Errorf("content length %d, body %d", got.contentLength, got.bodyBytes)
	}
}

func TestUploadOfUnknownSizeIsChunked(t *testing.T) {
	t.Parallel()
	sink := &uploadSink{}
	c, _ := newTestClient(t, sink.ServeHTTP)
	var lastTotal int64
	_, err := c.UploadFile(context.Background(), testSubmissionID, UploadParams{
		ExternalFileID: "f-2", ContentType: "application/pdf", Body: io.MultiReader(strings.NewReader("%PDF-1.4")),
		Progress: func(_, total int64) { lastTotal = total },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := sink.requests()[0]; got.contentLength != -1 || got.fileBytes != 8 || got.filename != "upload" || lastTotal != -1 {
		t.Errorf("received %+v, progress total %d", got, lastTotal)
	}
}

func TestUploadIntoSlot(t *testing.T) {
	t.Parallel()
	sink := &uploadSink{}
	c, _ := newTestClient(t, sink.ServeHTTP)
	slot := uuid.MustParse("0190a1b2-0000-7000-8000-0000000000aa")
	if _, err := c.UploadFile(context.Background(), testSubmissionID, UploadParams{
		ExternalFileID: "f-3", ContentType: "application/pdf", Body: strings.NewReader("%PDF-"), SlotID: &slot,
	}); err != nil {
		t.Fatal(err)
	}
	want := "/v1/submissions/" + testSubmissionID.String() + "/document-slots/" + slot.String() + "/files"
	if got := sink.requests()[0].path; got != want {
		t.Errorf("path %s, want %s", got, want)
	}
}

// A seekable body is sent again from where it started, whole, after a retryable answer.
func TestUploadRetriesSeekableBodyFromItsStart(t *testing.T) {
	t.Parallel()
	sink := &uploadSink{keepFile: true, answer: func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusAccepted
	}}
	c, waits := newTestClient(t, sink.ServeHTTP)
	content := bytes.Repeat([]byte("0123456789"), 50_000)
	body := bytes.NewReader(append([]byte("skipped"), content...))
	body.Seek(int64(len("skipped")), io.SeekStart)
	var restarts, last int64
	_, err := c.UploadFile(context.Background(), testSubmissionID, UploadParams{
		ExternalFileID: "f-4", ContentType: "application/pdf", Body: body,
		Progress: func(sent, total int64) {
			if sent < last {
				restarts++
			}
			last = sent
			if total != int64(len(content)) {
				t.Errorf("total %d", total)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := sink.requests()
	if len(got) != 2 || len(waits.all()) != 1 || restarts != 1 || last != int64(len(content)) {
		t.Fatalf("%d requests, waits %v, progress restarted %d times and ended at %d", len(got), waits.all(), restarts, last)
	}
	for i, r := range got {
		if !bytes.Equal(r.file, content) || r.contentLength != r.bodyBytes {
			t.Errorf("attempt %d: %d file bytes, content length %d of %d", i+1, len(r.file), r.contentLength, r.bodyBytes)
		}
	}
}

func TestUploadRequiresItsParams(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) })
	for _, p := range []UploadParams{
		{ContentType: "application/pdf", Body: strings.NewReader("x")},
		{ExternalFileID: "f", Body: strings.NewReader("x")},
		{ExternalFileID: "f", ContentType: "application/pdf"},
	} {
		if _, err := c.UploadFile(context.Background(), testSubmissionID, p); err == nil {
			t.Errorf("accepted %+v", p)
		}
	}
	if calls.Load() != 0 {
		t.Errorf("%d requests sent", calls.Load())
	}
}

// Closing the stream stops its writer even when nobody reads the rest of the body.
func TestUploadStreamCloseStopsTheWriter(t *testing.T) {
	t.Parallel()
	s, err := newUploadStream(UploadParams{ExternalFileID: "f", ContentType: "application/pdf", Body: &generatedFile{size: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := s.open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(body, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	s.close() // returns only once the goroutine has ended
	if _, err := body.Read(make([]byte, 1)); err == nil {
		t.Error("body still readable after close")
	}
	if _, err := s.open(); err == nil {
		t.Error("a one-shot body was opened twice")
	}
}
