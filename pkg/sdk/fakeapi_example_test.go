package sdk_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
)

// fakeAPI stands in for the service in the examples: routes maps "METHOD /path" to
// a handler; anything else answers 404 not_found in the API's error envelope.
func fakeAPI(routes map[string]http.HandlerFunc) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.Method+" "+r.URL.Path]; ok {
			h(w, r)
			return
		}
		answer(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"code": "not_found", "message": "no such resource", "request_id": "req_example404",
		}})
	}))
}

func answer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_example")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// readUpload reads an upload request the way the service does, part by part.
func readUpload(r *http.Request) (externalFileID string, fileBytes int64) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", 0
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			return externalFileID, fileBytes
		}
		switch part.FormName() {
		case "external_file_id":
			b, _ := io.ReadAll(part)
			externalFileID = string(b)
		case "file":
			fileBytes, _ = io.Copy(io.Discard, part)
		}
	}
}

const (
	exampleSubmission = "0190a1b2-0000-7000-8000-000000000001"
	exampleEvaluation = "0190a1b2-0000-7000-8000-000000000002"
)
