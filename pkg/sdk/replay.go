package sdk

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
)

// Which writes are safe to repeat (section 7: "writes are idempotent on external ids").
// The patterns match the end of the path so that a base URL with a path prefix works.
var (
	createSubmissionPath = regexp.MustCompile(`/v1/submissions$`)
	uploadPath           = regexp.MustCompile(`/v1/submissions/[^/]+/(document-slots/[^/]+/)?files$`)
)

// maxReplayedJSON bounds the JSON body buffered to decide and replay a submission
// create; it is the service's own JSON body limit (request_too_large above 1 MiB).
const maxReplayedJSON = 1 << 20

// sendPlan says how to send one request: first is sent first; next, nil when the
// request is not safe to repeat, builds the request of every further attempt.
type sendPlan struct {
	first *http.Request
	next  func() (*http.Request, error)
}

// planSend decides whether req may be repeated and how to replay its body.
//
//   - GET and HEAD are always safe.
//   - POST /v1/submissions is safe when its JSON body carries a non-empty
//     external_submission_id: the service answers a repeat with the existing submission.
//   - POST .../files is safe when its body can be produced again (GetBody): the service
//     requires external_file_id and answers a repeat with the existing upload, and a
//     body without one is refused with 422 before anything is stored.
//   - Every other write is sent exactly once.
func planSend(req *http.Request) (sendPlan, error) {
	switch {
	case req.Method == http.MethodGet || req.Method == http.MethodHead:
		return replayWithGetBody(req), nil
	case req.Method != http.MethodPost:
		return sendPlan{first: req}, nil
	case uploadPath.MatchString(req.URL.Path):
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return sendPlan{first: req}, nil // a stream that cannot be rewound
		}
		return replayWithGetBody(req), nil
	case createSubmissionPath.MatchString(req.URL.Path):
		return planCreateSubmission(req)
	}
	return sendPlan{first: req}, nil
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

// planCreateSubmission buffers the small JSON body to look for the idempotency key and
// to send it again.
func planCreateSubmission(req *http.Request) (sendPlan, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return sendPlan{first: req}, nil
	}
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
	plan := sendPlan{first: withBody(req, fresh())}
	if hasExternalSubmissionID(buffered) {
		plan.next = func() (*http.Request, error) { return withBody(req, fresh()), nil }
	}
	return plan, nil
}

func hasExternalSubmissionID(body []byte) bool {
	var keyed struct {
		ExternalSubmissionID string `json:"external_submission_id"`
	}
	return json.Unmarshal(body, &keyed) == nil && keyed.ExternalSubmissionID != ""
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
