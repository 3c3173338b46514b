package sdk

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"regexp"
)

// idempotentPatchPath matches the PATCH operations that set fields to the values sent,
// so that a repeat changes nothing more: updateTemplate (guarded by expected_revision as
// well), updateSubmission (metadata replaced as a whole), updateUpload (the slot given),
// updateCheck, updateDataField, updateDocumentType and updateWebhookEndpoint. It
// matches the end of the path so that a base URL with a path prefix works. A PATCH on
// any other path is sent once.
var idempotentPatchPath = regexp.MustCompile(`/v1/(templates|submissions|checks|data_fields|document_types|webhook_endpoints)/[^/]+$|/v1/submissions/[^/]+/files/[^/]+$`)

// maxReplayedJSON bounds a JSON body buffered to be sent again; it is the service's
// own JSON body limit (request_too_large above 1 MiB).
const maxReplayedJSON = 1 << 20

// sendPlan says how to send one request: first is sent first; next, nil when the
// request is not safe to repeat, builds the request of every further attempt.
type sendPlan struct {
	first *http.Request
	next  func() (*http.Request, error)
}

// planSend decides whether req may be repeated and how to replay its body.
//
//   - GET and HEAD are safe.
//   - POST is safe with an Idempotency-Key (the transport adds one to every POST): the
//     service answers a repeat with the first answer, or with 409
//     idempotency_key_in_use while the first is still being handled.
//   - PUT and DELETE are idempotent: a repeated replaceTemplate…Items meets the
//     revision the first one wrote; a repeated delete finds nothing left to delete.
//   - PATCH is safe on the paths of idempotentPatchPath.
//
// In every case the body must be producible again: from GetBody (the generated client's
// JSON bodies, seekable uploads) or, for a JSON body of at most maxReplayedJSON bytes,
// from a copy. Anything else is sent exactly once.
func planSend(req *http.Request) (sendPlan, error) {
	once := sendPlan{first: req}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete:
		return replayable(req)
	case http.MethodPost:
		if req.Header.Get(HeaderIdempotencyKey) == "" {
			return once, nil
		}
		return replayable(req)
	case http.MethodPatch:
		if !idempotentPatchPath.MatchString(req.URL.Path) {
			return once, nil
		}
		return replayable(req)
	}
	return once, nil
}

func replayable(req *http.Request) (sendPlan, error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return replayWithGetBody(req), nil
	}
	if mediaType, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mediaType == "application/json" {
		return bufferJSON(req)
	}
	return sendPlan{first: req}, nil // a stream that cannot be rewound
}

// replayWithGetBody sends req first and, for a retry, req with a body from GetBody.
func replayWithGetBody(req *http.Request) sendPlan {
	return sendPlan{first: req, next: func() (*http.Request, error) {
		if req.GetBody == nil {
			return withBody(req, nil), nil
		}
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		return withBody(req, body), nil
	}}
}

// bufferJSON reads a small JSON body that has no GetBody so it can be sent again.
func bufferJSON(req *http.Request) (sendPlan, error) {
	buffered, err := io.ReadAll(io.LimitReader(req.Body, maxReplayedJSON+1))
	if err != nil {
		req.Body.Close()
		return sendPlan{}, err
	}
	if len(buffered) > maxReplayedJSON {
		// Too large to replay (the service will refuse it anyway): send what was read
		// followed by the rest, once.
		rest := req.Body
		return sendPlan{first: withBody(req, readCloser{io.MultiReader(bytes.NewReader(buffered), rest), rest})}, nil
	}
	req.Body.Close()
	fresh := func() io.ReadCloser { return io.NopCloser(bytes.NewReader(buffered)) }
	return sendPlan{
		first: withBody(req, fresh()),
		next:  func() (*http.Request, error) { return withBody(req, fresh()), nil },
	}, nil
}

// withBody is a shallow copy of req with another body: a RoundTripper must not modify
// the request it was given.
func withBody(req *http.Request, body io.ReadCloser) *http.Request {
	r := new(http.Request)
	*r = *req
	r.Body = body
	if body == nil {
		r.Body = http.NoBody
		if req.Body == nil {
			r.Body = nil
		}
	}
	return r
}

type readCloser struct {
	io.Reader
	io.Closer
}
