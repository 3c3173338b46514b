package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// magic is the leading bytes each accepted content type must start with (createUpload).
var magic = map[string][][]byte{
	"application/pdf":    {[]byte("%PDF-")},
	"image/jpeg":         {{0xFF, 0xD8, 0xFF}},
	"image/png":          {[]byte("\x89PNG\r\n\x1a\n")},
	"application/msword": {{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}},
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": {[]byte("PK\x03\x04")},
}

// sniffLen is how many leading bytes are checked against the declared type.
const sniffLen = 16

// SanitizeFilename keeps the last path element of a client's filename without control
// characters, at most 255 bytes of valid UTF-8.
func SanitizeFilename(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == ".." {
		return "upload"
	}
	return name
}

// storedFile is a file part streamed to blob storage.
type storedFile struct {
	fileID      uuid.UUID
	key         string
	filename    string
	contentType string
	size        int64
	sha256      []byte
}

// batchWriters batch the multipart reader's reads, a few KiB each, into 1 MiB writes to
// the storage; they are reused across uploads rather than left to the collector.
var batchWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 1<<20) }}

// storeFile streams a file part to blob storage while hashing it. It refuses, before
// or while storing and with nothing left behind: an unaccepted declared type, bytes
// that do not match it, an empty file, and a file over the size limit.
func (s *Server) storeFile(ctx context.Context, client, submissionID uuid.UUID, part *multipart.Part) (*storedFile, error) {
	declared, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
	signatures, ok := magic[declared]
	if !ok {
		return nil, apierr.Field("file", fmt.Sprintf("content type %q is not accepted; send application/pdf, image/jpeg, image/png, application/msword or application/vnd.openxmlformats-officedocument.wordprocessingml.document", declared))
	}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, bodyError(err)
	}
	head = head[:n]
	if n == 0 {
		return nil, apierr.Field("file", "the file is empty")
	}
	matches := false
	for _, sig := range signatures {
		matches = matches || bytes.HasPrefix(head, sig)
	}
	if !matches {
		return nil, apierr.Field("file", fmt.Sprintf("the file's bytes are not %s as declared", declared))
	}

	f := &storedFile{fileID: uuid.Must(uuid.NewV7()), filename: SanitizeFilename(part.FileName()), contentType: declared}
	f.key = blobkey.UploadFile(client, submissionID, f.fileID)
	writeCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.blobs.Writer(writeCtx, f.key, declared)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	out := batchWriters.Get().(*bufio.Writer)
	out.Reset(storageWriter{io.MultiWriter(w, h)})
	defer func() {
		out.Reset(nil)
		batchWriters.Put(out)
	}()
	written, err := io.Copy(out, io.LimitReader(io.MultiReader(bytes.NewReader(head), part), s.maxUpload+1))
	if err == nil {
		err = out.Flush()
	}
	if err == nil && written > s.maxUpload {
		err = apierr.New(http.StatusRequestEntityTooLarge, apierr.FileTooLarge, fmt.Sprintf("the file exceeds %d bytes", s.maxUpload))
	}
	if err != nil {
		cancel() // discards the partial object
		_ = w.Close()
		return nil, bodyError(err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("store %s: %w", f.key, err)
	}
	f.size, f.sha256 = written, h.Sum(nil)
	return f, nil
}

// bodyError maps a failure while reading an upload: the body limit is 413, an API
// error passes through, a failure of the storage passes through (500, logged), and
// anything else went wrong reading the client's multipart stream: 400.
func bodyError(err error) error {
	var maxBytes *http.MaxBytesError
	var stored storageError
	switch {
	case errors.As(err, &maxBytes):
		return apierr.New(http.StatusRequestEntityTooLarge, apierr.FileTooLarge, "the upload exceeds the size limit")
	case errors.As(err, new(*apierr.Error)), errors.As(err, &stored), errors.Is(err, context.Canceled):
		return err
	}
	return apierr.BadRequest("the multipart body is malformed or truncated")
}

// storageError marks a failure writing to the blob store (not the client's fault).
type storageError struct{ error }

func (e storageError) Unwrap() error { return e.error }

// storageWriter tags its writer's errors as storageError.
type storageWriter struct{ w io.Writer }

func (s storageWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = storageError{err}
	}
	return n, err
}

// receiveUpload reads the multipart body: external_file_id and file, other parts
// ignored, while holding one of the client's upload slots on this replica (429
// rate_limited when it holds them all). An external id already used in the submission answers with its upload
// (created false) and stores nothing.
func (s *Server) receiveUpload(ctx context.Context, submissionID uuid.UUID, slot *uuid.UUID, mr *multipart.Reader) (submission.Upload, bool, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return submission.Upload{}, false, err
	}
	release, ok := s.uploads.Take(t.ClientID())
	if !ok {
		e := apierr.New(http.StatusTooManyRequests, apierr.RateLimited, fmt.Sprintf("this API client already sends %d uploads at once to this server, the most it may; retry when one ends", s.uploads.Max()))
		e.RetryAfter = time.Second
		return submission.Upload{}, false, e
	}
	defer release()
	if err := t.UploadTarget(ctx, submissionID, slot); err != nil {
		return submission.Upload{}, false, err
	}
	var (
		externalID string
		file       *storedFile
	)
	discard := func() {
		if file != nil {
			_ = s.blobs.Delete(context.WithoutCancel(ctx), file.key)
		}
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			discard()
			return submission.Upload{}, false, bodyError(err)
		}
		switch part.FormName() {
		case "external_file_id":
			b, err := io.ReadAll(io.LimitReader(part, 1024))
			if err != nil {
				discard()
				return submission.Upload{}, false, bodyError(err)
			}
			externalID = string(b)
			if n := utf8.RuneCountInString(externalID); n < 1 || n > 255 || !utf8.ValidString(externalID) || strings.ContainsRune(externalID, 0) {
				discard()
				return submission.Upload{}, false, apierr.Field("external_file_id", "external_file_id must be 1 to 255 characters of text")
			}
			if file == nil { // id first (as curl -F sends it): a known id stores nothing
				if u, found, err := t.ExistingUpload(ctx, submissionID, externalID); err != nil || found {
					return u, false, err
				}
			}
		case "file":
			if file != nil {
				discard()
				return submission.Upload{}, false, apierr.Field("file", "send one file part per request")
			}
			if file, err = s.storeFile(ctx, t.ClientID(), submissionID, part); err != nil {
				return submission.Upload{}, false, err
			}
		default:
			// Unknown parts are ignored (open for additions), but still read within the body limit.
			if _, err := io.Copy(io.Discard, part); err != nil {
				discard()
				return submission.Upload{}, false, bodyError(err)
			}
		}
	}
	switch {
	case externalID == "":
		discard()
		return submission.Upload{}, false, apierr.Field("external_file_id", "the external_file_id part is required")
	case file == nil:
		return submission.Upload{}, false, apierr.Field("file", "the file part is required")
	}
	u, created, err := t.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: submissionID, SlotID: slot, ExternalFileID: externalID, FileID: file.fileID,
		Filename: file.filename, ContentType: file.contentType, Size: file.size, SHA256: file.sha256, BlobKey: file.key,
	})
	switch {
	case store.CommitUncertain(err):
		// The upload may exist and name these bytes (a retry will find it by its
		// external id): keep them. If it does not, the submission's purge removes them.
		s.log.WarnContext(ctx, "upload commit outcome unknown; stored bytes kept", "blob_key", file.key, "error", err)
	case err != nil || !created:
		discard() // refused, or a concurrent duplicate won: its bytes are the ones kept
	}
	return u, created, err
}

// CreateUpload uploads a file to a submission, unassigned (createUpload).
func (s *Server) CreateUpload(ctx context.Context, req api.CreateUploadRequestObject) (api.CreateUploadResponseObject, error) {
	u, created, err := s.receiveUpload(ctx, req.SubmissionId, nil, req.Body)
	if err != nil {
		return nil, err
	}
	body, err := uploadToAPI(u)
	if err != nil {
		return nil, err
	}
	if !created {
		return api.CreateUpload200JSONResponse{Body: body}, nil
	}
	return api.CreateUpload202JSONResponse{Body: body}, nil
}

// CreateSlotUpload uploads a file into a document slot.
func (s *Server) CreateSlotUpload(ctx context.Context, req api.CreateSlotUploadRequestObject) (api.CreateSlotUploadResponseObject, error) {
	u, created, err := s.receiveUpload(ctx, req.SubmissionId, &req.SlotId, req.Body)
	if err != nil {
		return nil, err
	}
	body, err := uploadToAPI(u)
	if err != nil {
		return nil, err
	}
	if !created {
		return api.CreateSlotUpload200JSONResponse{Body: body}, nil
	}
	return api.CreateSlotUpload202JSONResponse{Body: body}, nil
}

// ListUploads lists a submission's uploads newest first.
func (s *Server) ListUploads(ctx context.Context, req api.ListUploadsRequestObject) (api.ListUploadsResponseObject, error) {
	t, limit, after, err := s.listStart(ctx, (*int)(req.Params.Limit), (*string)(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	rows, err := t.Uploads(ctx, req.SubmissionId, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := page.Trim(rows, limit, store.UploadCursor)
	data, err := uploadsToAPI(rows)
	if err != nil {
		return nil, err
	}
	return api.ListUploads200JSONResponse{Body: api.UploadList{Data: data, NextCursor: next}}, nil
}

// GetUpload reads one upload.
func (s *Server) GetUpload(ctx context.Context, req api.GetUploadRequestObject) (api.GetUploadResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	u, err := t.Upload(ctx, req.SubmissionId, req.UploadId)
	if err != nil {
		return nil, err
	}
	body, err := uploadToAPI(u)
	if err != nil {
		return nil, err
	}
	return api.GetUpload200JSONResponse{Body: body}, nil
}

// UpdateUpload moves an upload to a slot, or unassigns it.
func (s *Server) UpdateUpload(ctx context.Context, req api.UpdateUploadRequestObject) (api.UpdateUploadResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	u, err := t.MoveUpload(ctx, req.SubmissionId, req.UploadId, req.Body.DocumentSlotId)
	if err != nil {
		return nil, err
	}
	body, err := uploadToAPI(u)
	if err != nil {
		return nil, err
	}
	return api.UpdateUpload200JSONResponse{Body: body}, nil
}

// DeleteUpload removes an upload; its stored bytes are removed by a job the same
// transaction enqueues, retried until done.
func (s *Server) DeleteUpload(ctx context.Context, req api.DeleteUploadRequestObject) (api.DeleteUploadResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.DeleteUpload(ctx, req.SubmissionId, req.UploadId); err != nil {
		return nil, err
	}
	return api.DeleteUpload204Response{}, nil
}
