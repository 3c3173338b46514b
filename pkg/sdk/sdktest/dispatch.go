package sdktest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// apiError is an answer in the error envelope.
type apiError struct {
	status  int
	code    string
	message string
	param   string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func newError(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

func invalidField(param, message string) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, code: "invalid_field", message: message, param: param}
}

func notFound(what string) *apiError {
	return newError(http.StatusNotFound, "not_found", "no "+what+" with this id")
}

// call is one request as a handler sees it.
type call struct {
	r      *http.Request
	params map[string]string
	body   []byte
}

// uuidParam is the path parameter name as a UUID; another value is 422 invalid_field,
// as the service's request validation answers.
func (c *call) uuidParam(name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.params[name])
	if err != nil {
		return uuid.Nil, invalidField(name, name+" must be a UUID")
	}
	return id, nil
}

// decode reads the JSON body into v: another content type, a missing or malformed body
// or trailing data is 400 invalid_request. An empty body is accepted when optional.
func (c *call) decode(v any, optional bool) error {
	if optional && len(bytes.TrimSpace(c.body)) == 0 {
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type")); mt != "application/json" {
		return newError(http.StatusBadRequest, "invalid_request", "the body must be application/json")
	}
	dec := json.NewDecoder(bytes.NewReader(c.body))
	if err := dec.Decode(v); err != nil {
		return newError(http.StatusBadRequest, "invalid_request", "the body is not valid JSON: "+err.Error())
	}
	if dec.More() {
		return newError(http.StatusBadRequest, "invalid_request", "data after the JSON body")
	}
	return nil
}

// Limits of request bodies: the service's JSON limit and its default upload limit.
const (
	maxJSONBody   = 1 << 20
	maxUploadBody = 100 << 20
)

// serve is the one entry point: route, authenticate, play scripted outcomes, apply
// Idempotency-Key, run the handler, answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	requestID := "req_" + randomHex(12)
	w.Header().Set("x-request-id", requestID)
	rt, params, pathKnown := match(r.Method, r.URL.Path)
	switch {
	case rt == nil && pathKnown:
		writeError(w, requestID, newError(http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+r.URL.Path))
		return
	case rt == nil:
		writeError(w, requestID, newError(http.StatusNotFound, "not_found", "no such resource"))
		return
	case !authorized(r):
		writeError(w, requestID, newError(http.StatusUnauthorized, "invalid_api_key", "a valid API key is required"))
		return
	}

	s.mu.Lock()
	s.calls[rt.operation]++
	var scripted *scriptedError
	if queued := s.scripted[rt.operation]; len(queued) > 0 {
		scripted, s.scripted[rt.operation] = &queued[0], queued[1:]
	}
	lose := s.losing[rt.operation] > 0 && scripted == nil
	if lose {
		s.losing[rt.operation]--
	}
	s.mu.Unlock()
	if scripted != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		if scripted.status == http.StatusTooManyRequests || scripted.status == http.StatusServiceUnavailable {
			w.Header().Set("retry-after", "0")
		}
		writeError(w, requestID, newError(scripted.status, scripted.code, "scripted by sdktest"))
		return
	}

	body, err := readBody(r, rt.operation)
	if err != nil {
		writeError(w, requestID, err)
		return
	}
	c := &call{r: r, params: params, body: body}
	key := r.Header.Get("Idempotency-Key")
	if r.Method != http.MethodPost {
		key = ""
	}
	var fingerprint [32]byte
	if key != "" {
		fingerprint = fingerprintOf(r, body)
		if kept, err := s.claimKey(key, fingerprint); err != nil || kept != nil {
			if err != nil {
				writeError(w, requestID, err)
				return
			}
			w.Header().Set("Idempotent-Replayed", "true")
			if kept.err != nil { // the envelope's request_id is this request's, as every answer's
				writeError(w, requestID, kept.err)
				return
			}
			writeBody(w, kept.status, kept.body)
			return
		}
	}

	if !rt.locksItself {
		s.mu.Lock()
	}
	status, v, err := rt.handle(s, c)
	if !rt.locksItself {
		s.mu.Unlock()
	}
	var (
		answer []byte
		failed *apiError
	)
	if err != nil {
		if !errors.As(err, &failed) {
			failed = newError(http.StatusInternalServerError, "internal_error", err.Error())
		}
		status, answer = failed.status, envelope(failed, requestID)
	} else if v != nil {
		answer, _ = json.Marshal(v)
	}
	if key != "" {
		s.finishKey(key, &keptAnswer{fingerprint: fingerprint, status: status, body: answer, err: failed})
	}
	if lose {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	writeBody(w, status, answer)
}

func readBody(r *http.Request, operation string) ([]byte, error) {
	limit, tooLarge := int64(maxJSONBody), newError(http.StatusRequestEntityTooLarge, "request_too_large", "the JSON body is over 1 MiB")
	if operation == "createUpload" || operation == "createSlotUpload" {
		limit, tooLarge = maxUploadBody, newError(http.StatusRequestEntityTooLarge, "file_too_large", "the upload is over 100 MiB")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, newError(http.StatusBadRequest, "invalid_request", "reading the body: "+err.Error())
	}
	if int64(len(body)) > limit {
		return nil, tooLarge
	}
	return body, nil
}

// keptAnswer is the answer kept for an Idempotency-Key; running while the first request
// with the key is handled. An error is kept as such, to be answered with the request
// id of the request it is replayed to.
type keptAnswer struct {
	fingerprint [32]byte
	running     bool
	status      int
	body        []byte
	err         *apiError
}

// claimKey returns the answer kept for key, or nil after claiming it for this request.
func (s *Server) claimKey(key string, fingerprint [32]byte) (*keptAnswer, error) {
	if len(key) > 255 || strings.IndexFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
		return nil, newError(http.StatusBadRequest, "invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept, ok := s.keys[key]
	switch {
	case !ok:
		s.keys[key] = &keptAnswer{fingerprint: fingerprint, running: true}
		return nil, nil
	case kept.running:
		return nil, newError(http.StatusConflict, "idempotency_key_in_use", "a request with this Idempotency-Key is still being handled; retry in a moment")
	case kept.fingerprint != fingerprint:
		e := newError(http.StatusUnprocessableEntity, "idempotency_key_reused", "this Idempotency-Key was used with another method, path or body")
		e.param = "Idempotency-Key"
		return nil, e
	}
	return kept, nil
}

// finishKey keeps the answer, or releases the key when the answer says nothing was done
// (5xx, 429, 401, 403), as the service does.
func (s *Server) finishKey(key string, answer *keptAnswer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status := answer.status; status >= 500 || status == http.StatusTooManyRequests || status == http.StatusUnauthorized || status == http.StatusForbidden {
		delete(s.keys, key)
		return
	}
	s.keys[key] = answer
}

// fingerprintOf hashes method, path, query and body, leaving a multipart boundary out:
// a client encoding the same parts again may pick another one.
func fingerprintOf(r *http.Request, body []byte) [32]byte {
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && strings.HasPrefix(mt, "multipart/") && params["boundary"] != "" {
		body = bytes.ReplaceAll(body, []byte(params["boundary"]), nil)
	}
	return sha256.Sum256(fmt.Appendf(nil, "%s %s?%s\n%s", r.Method, r.URL.Path, r.URL.RawQuery, body))
}

func envelope(e *apiError, requestID string) []byte {
	detail := map[string]any{"code": e.code, "message": e.message, "request_id": requestID}
	if e.param != "" {
		detail["param"] = e.param
	}
	b, _ := json.Marshal(map[string]any{"error": detail})
	return b
}

func writeError(w http.ResponseWriter, requestID string, err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = newError(http.StatusInternalServerError, "internal_error", err.Error())
	}
	writeBody(w, e.status, envelope(e, requestID))
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	if body != nil {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
