package sdk

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
	"sync"
)

// uploadStream produces the multipart body of an upload through an io.Pipe: a
// goroutine writes the parts while the HTTP transport reads them, so only a copy
// buffer is ever in memory. A seekable file can be produced again for a retry.
type uploadStream struct {
	params      UploadParams
	boundary    string
	contentType string
	seeker      io.ReadSeeker // nil: Body can be read only once
	start       int64         // where a seekable Body starts
	size        int64         // of Body; -1 unknown
	length      int64         // of the whole multipart body; -1 unknown

	mu      sync.Mutex
	opened  bool
	current *streamRun
}

// streamRun is one goroutine writing one copy of the body.
type streamRun struct {
	reader *io.PipeReader
	done   chan struct{}
}

// copyBufferSize is the one chunk of the file held in memory at a time.
const copyBufferSize = 64 << 10

var errStreamClosed = errors.New("doceval: upload body no longer read")

func newUploadStream(p UploadParams) (*uploadStream, error) {
	if p.Filename == "" {
		p.Filename = "upload"
	}
	framing := multipart.NewWriter(io.Discard)
	s := &uploadStream{params: p, boundary: framing.Boundary(), contentType: framing.FormDataContentType(), size: -1, length: -1}
	if seeker, ok := p.Body.(io.ReadSeeker); ok {
		s.measure(seeker)
	}
	if p.Size > 0 {
		s.size = p.Size
	}
	if s.size >= 0 {
		overhead, err := s.framingLength()
		if err != nil {
			return nil, err
		}
		s.length = overhead + s.size
	}
	return s, nil
}

// measure remembers where a seekable Body starts and how long it is. A reader that
// claims to seek but cannot (a pipe behind an *os.File) is treated as a plain stream.
func (s *uploadStream) measure(seeker io.ReadSeeker) {
	start, err := seeker.Seek(0, io.SeekCurrent)
	if err != nil {
		return
	}
	end, err := seeker.Seek(0, io.SeekEnd)
	if err != nil {
		return
	}
	if _, err := seeker.Seek(start, io.SeekStart); err != nil {
		return
	}
	s.seeker, s.start, s.size = seeker, start, end-start
}

func (s *uploadStream) replayable() bool { return s.seeker != nil }

// open starts writing a fresh copy of the body and returns its reading end. It is the
// request's GetBody: before a retry it stops the previous copy, so two goroutines never
// read Body at once, and seeks back to the start.
func (s *uploadStream) open() (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
	if s.opened && s.seeker == nil {
		return nil, errors.New("doceval: the upload body cannot be read twice")
	}
	if s.seeker != nil {
		if _, err := s.seeker.Seek(s.start, io.SeekStart); err != nil {
			return nil, fmt.Errorf("doceval: rewind upload body: %w", err)
		}
	}
	s.opened = true
	pr, pw := io.Pipe()
	run := &streamRun{reader: pr, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		body := &progressReader{r: s.params.Body, total: s.size, report: s.params.Progress}
		pw.CloseWithError(s.write(pw, body)) // nil closes with io.EOF for the reader
	}()
	s.current = run
	return pr, nil
}

// close stops the goroutine of the last copy, whatever state the request ended in.
func (s *uploadStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *uploadStream) stopLocked() {
	if s.current == nil {
		return
	}
	s.current.reader.CloseWithError(errStreamClosed) // unblocks a pending pipe write
	<-s.current.done
	s.current = nil
}

// write produces the whole multipart body: external_file_id first, so the service can
// answer a repeated id without reading the file, then the file part.
func (s *uploadStream) write(w io.Writer, file io.Reader) error {
	mw := multipart.NewWriter(w)
	if err := mw.SetBoundary(s.boundary); err != nil {
		return err
	}
	if err := mw.WriteField("external_file_id", s.params.ExternalFileID); err != nil {
		return err
	}
	header := textproto.MIMEHeader{}
	header.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="%s"`, quoteEscaper.Replace(s.params.Filename)))
	header.Set("Content-Type", s.params.ContentType)
	part, err := mw.CreatePart(header)
	if err != nil {
		return err
	}
	if _, err := io.CopyBuffer(part, file, make([]byte, copyBufferSize)); err != nil {
		return err
	}
	return mw.Close()
}

// framingLength is the size of everything but the file: the framing does not depend on
// the file's bytes, so it is the length of the body of an empty file.
func (s *uploadStream) framingLength() (int64, error) {
	var n countingWriter
	err := s.write(&n, strings.NewReader(""))
	return int64(n), err
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "", "\n", "")

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// progressReader reports how much of the file has been read. It hides the reader's
// WriterTo so io.CopyBuffer really copies in bounded chunks.
type progressReader struct {
	r      io.Reader
	sent   int64
	total  int64
	report func(sent, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.sent += int64(n)
		if p.report != nil {
			p.report(p.sent, p.total)
		}
	}
	return n, err
}
