package apiserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
)

// maxStoredResponse bounds a response kept for replay; a larger one is not kept (the
// key is released), which no POST of the API comes near.
const maxStoredResponse = 4 << 20

// idempotency makes every POST carrying an Idempotency-Key (IdempotencyKey parameter)
// safe to repeat: the first response per key and API client is kept for 24 hours and
// replayed with Idempotent-Replayed: true to a repeat with the same method, path and
// body; another request with the key is 422 idempotency_key_reused, and a repeat while
// the first still runs is 409 idempotency_key_in_use. Answers that did nothing (5xx,
// 429) are not kept: the key is released so a retry runs again.
//
// A JSON request runs in one transaction with the key's claim and its kept answer
// (store.IdempotentTx), sent once that commits: a lost COMMIT answer leaves either
// nothing done or the answer kept, which the retry replays. A request whose work fails
// inside that transaction, or keeps nothing, is rolled back whole and run again as an
// upload runs, in steps: the claim, the handler's own transactions, the kept answer.
//
// A kept body rests sealed with the key ring (secrets, as webhook signing secrets are):
// the answers of createWebhookEndpoint and rotateWebhookSecret carry signing_secret. A
// replay opens it and answers the same bytes.
//
// The body is fingerprinted as it streams to the handler (uploads are not buffered);
// a multipart body's boundary is left out, since a client re-encoding the same parts
// for a retry picks a new one.
func idempotency(st *store.Store, secrets *secretbox.Box, log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			key := r.Header.Get("Idempotency-Key")
			if r.Method != http.MethodPost || key == "" {
				return next(c)
			}
			if !validIdempotencyKey(key) {
				return apierr.New(http.StatusBadRequest, apierr.InvalidRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters")
			}
			p, err := httpx.Principal(r.Context())
			if err != nil {
				return err
			}
			k := keyed{st: st, secrets: secrets, log: log, next: next, client: p.ClientID, key: key}
			if jsonBody(r) {
				return k.inRequestTx(c)
			}
			return k.inSteps(c)
		}
	}
}

// keyed is one request with an Idempotency-Key.
type keyed struct {
	st      *store.Store
	secrets *secretbox.Box
	log     *slog.Logger
	next    echo.HandlerFunc
	client  uuid.UUID
	key     string
}

// jsonBody reports whether r's body is JSON or absent: small enough (the contract
// middleware bounds it) to be held and run again.
func jsonBody(r *http.Request) bool {
	ct := r.Header.Get(echo.HeaderContentType)
	if ct == "" {
		return r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == echo.MIMEApplicationJSON
}

// inRequestTx runs the request in store.IdempotentTx, holding its answer until the
// transaction commits; set aside, it runs inSteps.
func (k keyed) inRequestTx(c echo.Context) error {
	r := c.Request()
	fp := newFingerprint(r)
	body, err := fp.readAll(r.Body)
	if err != nil {
		return err
	}
	hash := fp.sum()
	res := c.Response()
	sent, headers := res.Writer, res.Header().Clone()
	held := &heldResponse{header: sent.Header()}
	restore := func() {
		c.SetRequest(r)
		res.Writer = sent
	}
	forget := func() { // nothing was answered yet: what the handler set is forgotten
		res.Committed, res.Status, res.Size = false, http.StatusOK, 0
		maps.DeleteFunc(res.Header(), func(string, []string) bool { return true })
		maps.Copy(res.Header(), headers)
	}
	defer func() {
		if p := recover(); p != nil { // the transaction rolled back; the answer is httpx.Recover's
			restore()
			forget()
			panic(p)
		}
	}()
	outcome, rec, err := k.st.IdempotentTx(r.Context(), k.client, k.key, uuid.New(), func(ctx context.Context) (*store.KeptAnswer, bool) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.SetRequest(r.WithContext(ctx))
		res.Writer = held
		if err := k.next(c); err != nil {
			c.Error(err) // the error response is part of what is kept
		}
		switch {
		case !keepResponse(res.Status):
			return nil, false // nothing done: rolled back, the answer stands
		case held.body.Len() > maxStoredResponse:
			return nil, true // done, but too large to keep: run in steps, which releases the key
		}
		return &store.KeptAnswer{RequestHash: hash, Response: store.StoredResponse{
			Status: res.Status, ContentType: res.Header().Get(echo.HeaderContentType),
			SealedBody: k.secrets.Seal(held.body.Bytes(), store.IdempotencyOwner(k.client, k.key)),
		}}, false
	})
	restore()
	if err == nil && (outcome == store.KeptInTx || outcome == store.NotKept) {
		sent.WriteHeader(res.Status)
		_, err := sent.Write(held.body.Bytes())
		return err
	}
	forget()
	switch {
	case err != nil:
		return err
	case outcome == store.KeyInUse:
		return errKeyInUse
	case outcome == store.KeyTaken:
		return k.replay(c, rec, hash)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return k.inSteps(c)
}

var errKeyInUse = apierr.Conflict(apierr.IdempotencyKeyInUse, "a request with this Idempotency-Key is still being handled; retry in a moment")

// inSteps claims the key, runs the request in the handler's own transactions, then keeps
// its answer.
func (k keyed) inSteps(c echo.Context) error {
	r := c.Request()
	owner := uuid.New()
	release := func(ctx context.Context) error { return k.st.ReleaseIdempotencyKey(ctx, k.client, k.key, owner) }
	claimed, rec, err := k.st.ClaimIdempotencyKey(r.Context(), k.client, k.key, owner)
	if err != nil {
		if store.Unavailable(err) {
			// The claim may have been written and its answer lost: a key left
			// running would turn this request's retries away until it went stale.
			settle(context.WithoutCancel(r.Context()), k.log, "release idempotency key", release)
		}
		return err
	}
	fp := newFingerprint(r)
	if !claimed {
		if rec.Running {
			return errKeyInUse
		}
		if err := fp.drain(r.Body); err != nil {
			return err
		}
		return k.replay(c, rec, fp.sum())
	}

	r.Body = fp.tee(r.Body)
	w := &recorder{ResponseWriter: c.Response().Writer}
	c.Response().Writer = w
	if err := k.next(c); err != nil {
		c.Error(err) // the error response is part of what is kept
	}
	ctx := context.WithoutCancel(r.Context())
	status := c.Response().Status
	if err := fp.drain(r.Body); err != nil || !keepResponse(status) || w.overflow {
		settle(ctx, k.log, "release idempotency key", release)
		return nil
	}
	resp := store.StoredResponse{
		Status: status, ContentType: c.Response().Header().Get(echo.HeaderContentType),
		SealedBody: k.secrets.Seal(w.body.Bytes(), store.IdempotencyOwner(k.client, k.key)),
	}
	hash := fp.sum()
	settle(ctx, k.log, "keep idempotent response", func(ctx context.Context) error {
		return k.st.FinishIdempotencyKey(ctx, k.client, k.key, owner, hash, resp)
	})
	return nil
}

// replay answers a key that holds a finished request: its kept response when hash is
// that request's fingerprint, 422 idempotency_key_reused otherwise (409
// idempotency_key_in_use while it still runs).
func (k keyed) replay(c echo.Context, rec store.KeyRecord, hash []byte) error {
	if rec.Running {
		return errKeyInUse
	}
	if !bytes.Equal(hash, rec.RequestHash) {
		e := apierr.New(http.StatusUnprocessableEntity, apierr.IdempotencyKeyReused,
			"this Idempotency-Key was used with another method, path or body; use a new key for a new request")
		e.Param = "Idempotency-Key"
		return e
	}
	body, err := keptBody(k.secrets, rec.Response, store.IdempotencyOwner(k.client, k.key))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Idempotent-Replayed", "true")
	if rec.Response.Status >= 400 {
		body = withRequestID(body, httpx.RequestIDFromContext(c.Request().Context()))
	}
	return c.Blob(rec.Response.Status, rec.Response.ContentType, body)
}

// heldResponse holds a response until its transaction commits; its headers are the
// response's own.
type heldResponse struct {
	header http.Header
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header         { return h.header }
func (h *heldResponse) Write(p []byte) (int, error) { return h.body.Write(p) }
func (h *heldResponse) WriteHeader(int)             {} // echo.Response keeps the status

// Flush does nothing: the answer goes out whole after the commit (echo's Flush panics
// on a writer that cannot).
func (h *heldResponse) Flush() {}

// keptBody is the body of a kept response in clear: opened when sealed, as stored when
// it was kept before bodies were sealed. A body no key of the ring opens is a
// configuration fault (DOCEVAL_SECRET_KEY lost a key still in use), answered 500.
func keptBody(secrets *secretbox.Box, resp store.StoredResponse, owner []byte) ([]byte, error) {
	if resp.SealedBody == nil {
		return resp.Body, nil
	}
	body, err := secrets.Open(resp.SealedBody, owner)
	if err != nil {
		return nil, fmt.Errorf("open the response kept for an Idempotency-Key: %w", err)
	}
	return body, nil
}

// withRequestID gives a replayed error envelope this request's id, which its
// x-request-id header carries: error.request_id always names the request answered.
func withRequestID(body []byte, id string) []byte {
	var env map[string]map[string]any
	if id == "" || json.Unmarshal(body, &env) != nil || env["error"] == nil {
		return body
	}
	env["error"]["request_id"] = id
	out, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return out
}

// settleFor bounds how long a key's release or kept response is retried after the
// database was out of reach when the request ended (a retry of the request meanwhile
// gets 409 idempotency_key_in_use, which clients retry).
const settleFor = 3 * time.Minute

// settle runs write now and, when the database cannot take it, again in the background
// until it can (within settleFor): a key left running would hold its retries off until
// it goes stale.
func settle(ctx context.Context, log *slog.Logger, what string, write func(context.Context) error) {
	write = boundedWrite(write)
	err := write(ctx)
	if err == nil {
		return
	}
	if !store.Unavailable(err) {
		log.Error(what, "error", err)
		return
	}
	go func() {
		deadline := time.Now().Add(settleFor)
		for pause := 250 * time.Millisecond; time.Now().Before(deadline); pause = min(2*pause, 5*time.Second) {
			time.Sleep(pause)
			if err = write(ctx); err == nil || !store.Unavailable(err) {
				break
			}
		}
		if err != nil {
			log.Error(what, "error", err)
		}
	}()
}

// settleWriteTimeout bounds each of settle's writes: ctx has no deadline of its own.
const settleWriteTimeout = 10 * time.Second

func boundedWrite(write func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, settleWriteTimeout)
		defer cancel()
		return write(ctx)
	}
}

// keepResponse says whether a response is the key's for good: not when nothing was done
// and a retry should run again (5xx, 429) or the caller was not let in (401, 403).
func keepResponse(status int) bool {
	switch {
	case status >= 500, status == http.StatusTooManyRequests, status == http.StatusUnauthorized, status == http.StatusForbidden:
		return false
	}
	return status != 0
}

func validIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// fingerprint hashes what makes two requests the same: method, path, query and body,
// with a multipart body's boundary replaced by a fixed marker.
type fingerprint struct {
	h        hash.Hash
	boundary []byte
	carry    []byte // the tail of the body that may start a boundary
	scratch  []byte // carry and the bytes written, reused from write to write
	done     bool
}

func newFingerprint(r *http.Request) *fingerprint {
	f := &fingerprint{h: sha256.New()}
	f.h.Write([]byte(r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + "\n"))
	if mt, params, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); err == nil && strings.HasPrefix(mt, "multipart/") && params["boundary"] != "" {
		f.boundary = []byte(params["boundary"])
	}
	return f
}

// write feeds body bytes, replacing each boundary occurrence with a marker; a boundary
// split across writes is caught through the carried tail.
func (f *fingerprint) write(p []byte) {
	if len(f.boundary) == 0 {
		f.h.Write(p)
		return
	}
	f.scratch = append(append(f.scratch[:0], f.carry...), p...)
	buf := f.scratch
	for {
		i := bytes.Index(buf, f.boundary)
		if i < 0 {
			break
		}
		f.h.Write(buf[:i])
		f.h.Write([]byte{0})
		buf = buf[i+len(f.boundary):]
	}
	keep := min(len(buf), len(f.boundary)-1)
	f.h.Write(buf[:len(buf)-keep])
	f.carry = append(f.carry[:0], buf[len(buf)-keep:]...)
}

func (f *fingerprint) sum() []byte {
	if !f.done {
		f.h.Write(f.carry)
		f.carry, f.done = nil, true
	}
	return f.h.Sum(nil)
}

// tee returns body reading through the fingerprint.
func (f *fingerprint) tee(body io.ReadCloser) io.ReadCloser {
	return &teeBody{ReadCloser: body, f: f}
}

type teeBody struct {
	io.ReadCloser
	f *fingerprint
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.f.write(p[:n])
	return n, err
}

// readAll reads body whole, fingerprinting it.
func (f *fingerprint) readAll(body io.ReadCloser) ([]byte, error) {
	var b bytes.Buffer
	if body != nil && body != http.NoBody {
		if _, err := io.Copy(&b, body); err != nil {
			return nil, readError(err)
		}
	}
	f.write(b.Bytes())
	return b.Bytes(), nil
}

// drain reads what is left of body into the fingerprint (through the tee when body is
// one). The contract middleware bounds how much that can be.
func (f *fingerprint) drain(body io.ReadCloser) error {
	if body == nil || body == http.NoBody {
		return nil
	}
	var err error
	if t, ok := body.(*teeBody); ok {
		_, err = io.Copy(io.Discard, t)
	} else {
		_, err = io.Copy(writerFunc(func(p []byte) (int, error) { f.write(p); return len(p), nil }), body)
	}
	return readError(err)
}

// readError is the answer to a body that could not be read: 413 request_too_large past
// the contract's bound.
func readError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return apierr.New(http.StatusRequestEntityTooLarge, apierr.RequestTooLarge, "the request body is too large")
	}
	return err
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// recorder keeps a copy of the response body (up to maxStoredResponse).
type recorder struct {
	http.ResponseWriter
	body     bytes.Buffer
	overflow bool
}

func (w *recorder) Write(p []byte) (int, error) {
	if !w.overflow {
		if w.body.Len()+len(p) > maxStoredResponse {
			w.overflow = true
			w.body.Reset()
		} else {
			w.body.Write(p)
		}
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes through, for handlers that stream.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
