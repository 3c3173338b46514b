package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// Whatever JSON a client sends to the catalog and template writes, the answer is a
// success or a 4xx in the error envelope: never a 500, never a panic.
func FuzzCatalogWrites(f *testing.F) {
	st := store.New(dbtest.New(f))
	_, _, key, err := st.CreateClient(context.Background(), "fuzz", auth.AllPermissions)
	if err != nil {
		f.Fatal(err)
	}
	e, err := apiserver.New(apiserver.Deps{
		Store: st, Secrets: newSecrets(f), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.NewRegistry(),
		RateLimiter: httpx.NewRateLimiter(0, 1, nil),
	})
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(e)
	f.Cleanup(srv.Close)

	for _, seed := range []struct{ method, path, body string }{
		{"POST", "/v1/checks", `{"title": "Ä check", "prompt": "p", "category": "income", "product_types": ["personal_loan"]}`},
		{"POST", "/v1/data_fields", `{"display_name": "x", "prompt": "p", "value_format": "date"}`},
		{"POST", "/v1/document_types", `{"display_name": "!!!", "description": ""}`},
		{"POST", "/v1/templates", `{"display_name": "T", "document_requirements": [{"document_type_id": "id_card", "label": "L"}], "check_items": [{"check_id": "documents_readable"}, {"check_id": "documents_readable"}], "data_field_items": [{"data_field_id": "iban", "confidence_threshold": 0}]}`},
		{"PATCH", "/v1/templates/personal_loan", `{"expected_revision": 1, "is_default": true}`},
		{"PUT", "/v1/templates/personal_loan/check_items", `{"expected_revision": 1, "items": [{"check_id": "x"}]}`},
		{"PATCH", "/v1/data_fields/iban", `{"value_format": null}`},
		{"POST", "/v1/templates/personal_loan/duplicate", `{}`},
		{"POST", "/v1/templates/personal_loan/duplicate", ``},
	} {
		f.Add(seed.method, seed.path, seed.body)
	}
	f.Fuzz(func(t *testing.T, method, path, body string) {
		if !strings.HasPrefix(path, "/v1/") || strings.ContainsAny(path, " ?#\x00\r\n") {
			return
		}
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := srv.Client().Do(req)
		if err != nil {
			return // not a request the server could be sent
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, res.StatusCode, b)
		}
		if res.StatusCode >= 400 {
			var env struct {
				Error struct{ Code, RequestID string } `json:"error"`
			}
			if json.Unmarshal(b, &env) != nil || env.Error.Code == "" {
				t.Fatalf("%s %s %q: %d without the envelope: %s", method, path, body, res.StatusCode, b)
			}
		}
	})
}

// Whatever bytes arrive as a multipart upload, the answer is an upload or a 4xx in the
// error envelope, and a refused upload leaves no stored bytes behind.
func FuzzUpload(f *testing.F) {
	ctx := context.Background()
	st, dir, clientID, key, srv := fuzzAPI(f)
	sub, _, err := st.Tenant(clientID).CreateSubmission(ctx, submission.New{ExternalID: "fuzz", Metadata: []byte("{}"), Language: "en"})
	if err != nil {
		f.Fatal(err)
	}
	url := srv.URL + "/v1/submissions/" + sub.ID.String() + "/files"

	const boundary = "fuzzboundary"
	seed := func(parts ...string) string {
		return strings.Join(parts, "") + "--" + boundary + "--\r\n"
	}
	field := func(name, value string) string {
		return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n"
	}
	file := func(ct, body string) string {
		return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\nContent-Type: " + ct + "\r\n\r\n" + body + "\r\n"
	}
	f.Add(seed(field("external_file_id", "a"), file("application/pdf", "%PDF-1.4 x")))
	f.Add(seed(file("image/png", "\x89PNG\r\n\x1a\nxx"), field("external_file_id", "b")))
	f.Add(seed(field("external_file_id", "c"), file("application/pdf", "")))
	f.Add(seed(field("external_file_id", ""), file("text/plain", "hi")))
	f.Add("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF-")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, body string) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		switch {
		case res.StatusCode == 200 || res.StatusCode == 202:
		case res.StatusCode >= 400 && res.StatusCode < 500:
			var env struct {
				Error struct{ Code string } `json:"error"`
			}
			if json.Unmarshal(b, &env) != nil || env.Error.Code == "" {
				t.Fatalf("%q: %d without the envelope: %s", body, res.StatusCode, b)
			}
		default:
			t.Fatalf("%q: %d %s", body, res.StatusCode, b)
		}
		// Every stored file belongs to an upload.
		var uploads int
		if err := st.Pool().QueryRow(ctx, "SELECT count(*) FROM uploads").Scan(&uploads); err != nil {
			t.Fatal(err)
		}
		files := 0
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files++
			}
			return nil
		})
		if files != uploads {
			t.Fatalf("%q: %d stored files for %d uploads", body, files, uploads)
		}
	})
}

// Whatever body and content type reach whatever operation, on resources that exist and
// ones that do not, the answer is a success or a 4xx in the error envelope: never a
// 5xx, never a panic. Operations are picked by index from the embedded spec, so a new
// operation is fuzzed without a change here.
func FuzzOperations(f *testing.F) {
	st, _, clientID, key, srv := fuzzAPI(f)
	ids := fuzzResources(f, st, clientID)
	httpClient := &http.Client{Timeout: 10 * time.Second}

	doc, err := api.GetSpec()
	if err != nil {
		f.Fatal(err)
	}
	type operation struct{ method, path string }
	var ops []operation
	for _, path := range doc.Paths.InMatchingOrder() {
		for method := range doc.Paths.Value(path).Operations() {
			ops = append(ops, operation{method, path})
		}
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	for i := range ops {
		f.Add(uint8(i), "application/json", `{}`)
		f.Add(uint8(i), "application/json", `{"display_name": "x", "items": [], "external_submission_id": "e"} x`)
		f.Add(uint8(i), "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"external_file_id\"\r\n\r\nx\r\n--b--\r\n")
		f.Add(uint8(i), "text/plain", "hello")
		f.Add(uint8(i), "", "")
	}
	f.Fuzz(func(t *testing.T, pick uint8, contentType, body string) {
		op := ops[int(pick)%len(ops)]
		path := op.path
		for name, id := range ids {
			path = strings.ReplaceAll(path, "{"+name+"}", id)
		}
		req, err := http.NewRequest(op.method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		res, err := httpClient.Do(req)
		if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
			t.Fatalf("%s %s (%q) %q: no answer within %s", op.method, path, contentType, body, httpClient.Timeout)
		}
		if err != nil {
			return // not a request the server could be sent
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 500 {
			t.Fatalf("%s %s (%q) %q: %d %s", op.method, path, contentType, body, res.StatusCode, b)
		}
		if res.StatusCode >= 400 && op.method != http.MethodHead {
			var env struct {
				Error struct{ Code string } `json:"error"`
			}
			if json.Unmarshal(b, &env) != nil || env.Error.Code == "" {
				t.Fatalf("%s %s (%q) %q: %d without the envelope: %s", op.method, path, contentType, body, res.StatusCode, b)
			}
		}
	})
}

// fuzzAPI serves the real handlers over a fresh database and a blob directory (uploads
// capped at 64 KiB) to one API client holding every permission.
func fuzzAPI(f *testing.F) (st *store.Store, blobDir string, clientID uuid.UUID, key string, srv *httptest.Server) {
	ctx := context.Background()
	st = store.New(dbtest.New(f))
	blobDir = f.TempDir()
	blobs, err := blob.Open(ctx, blob.FileURL(blobDir))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { blobs.Close() })
	c, _, key, err := st.CreateClient(ctx, "fuzz", auth.AllPermissions)
	if err != nil {
		f.Fatal(err)
	}
	secret, _ := secretbox.ParseKey(secretbox.NewKey())
	box, err := secretbox.New(secret)
	if err != nil {
		f.Fatal(err)
	}
	e, err := apiserver.New(apiserver.Deps{
		Store: st, Blobs: blobs, Secrets: box, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Registry: prometheus.NewRegistry(), RateLimiter: httpx.NewRateLimiter(0, 1, nil), MaxUploadBytes: 64 << 10,
	})
	if err != nil {
		f.Fatal(err)
	}
	srv = httptest.NewServer(e)
	f.Cleanup(srv.Close)
	return st, blobDir, c.ID, key, srv
}

// fuzzResources makes one of each resource a path can name and returns their ids by
// path parameter name.
func fuzzResources(f *testing.F, st *store.Store, clientID uuid.UUID) map[string]string {
	ctx := context.Background()
	tenant := st.Tenant(clientID)
	sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: "fuzz", Metadata: []byte("{}"), Language: "en"})
	if err != nil {
		f.Fatal(err)
	}
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: sub.ID, ExternalFileID: "f", FileID: uuid.New(), Filename: "f.pdf",
		ContentType: "application/pdf", Size: 1, SHA256: []byte{1}, BlobKey: "k/f",
	})
	if err != nil {
		f.Fatal(err)
	}
	if err := st.FinishIngest(ctx, u.ID, []document.Page{{Number: 1, Text: "Kontoauszug", Chars: 11}}, nil, nil); err != nil {
		f.Fatal(err)
	}
	ev, err := tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		f.Fatal(err)
	}
	var slot uuid.UUID
	if err := st.Pool().QueryRow(ctx, "SELECT id FROM document_slots WHERE submission_id = $1 LIMIT 1", sub.ID).Scan(&slot); err != nil {
		f.Fatal(err)
	}
	var eventID string
	if err := st.InTx(ctx, func(tx *store.Tx) error {
		env, err := tx.Emit(ctx, events.Draft{APIClientID: clientID, Type: events.FileReady, Data: map[string]any{}})
		eventID = env.ID
		return err
	}); err != nil {
		f.Fatal(err)
	}
	return map[string]string{
		"submission_id": sub.ID.String(), "upload_id": u.ID.String(), "slot_id": slot.String(),
		"evaluation_id": ev.ID.String(), "event_id": eventID, "endpoint_id": uuid.NewString(),
		"template_id": "personal_loan", "check_id": "name_consistency", "data_field_id": "iban",
		"document_type_id": "payslip",
	}
}
