package sdk

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// seenRequest is what a fake API saw of one attempt.
type seenRequest struct {
	method, path, key, body string
}

// recorder is a fake API that records every attempt and answers through answer, which
// gets the attempt's number (1 for the first) among those with the same method and path.
type recorder struct {
	mu   sync.Mutex
	seen []seenRequest
}

func (r *recorder) handler(answer func(w http.ResponseWriter, req *http.Request, attempt int)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.seen = append(r.seen, seenRequest{req.Method, req.URL.Path, req.Header.Get(HeaderIdempotencyKey), string(b)})
		attempt := 0
		for _, s := range r.seen {
			if s.method == req.Method && s.path == req.URL.Path {
				attempt++
			}
		}
		r.mu.Unlock()
		answer(w, req, attempt)
	}
}

func (r *recorder) all() []seenRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seenRequest(nil), r.seen...)
}

// dropConnection ends the exchange without an answer, as a lost response would.
func dropConnection(w http.ResponseWriter) {
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		conn.Close()
	}
}

// succeed answers a write's success: 204 without a body for deletes (202 for a
// submission), else an empty JSON object, which decodes into any response type.
func succeed(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.Method == http.MethodDelete && strings.Count(req.URL.Path, "/") == 3 && strings.HasPrefix(req.URL.Path, "/v1/submissions/"):
		w.WriteHeader(http.StatusAccepted)
	case req.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

// writeCall is one write of the API through its wrapper.
type writeCall struct {
	name, method, path string
	call               func(context.Context, *Client) error
}

func discardResult[T any](_ *T, err error) error { return err }

var (
	anUpload   = uuid.MustParse("0190a1b2-0000-7000-8000-0000000000a1")
	aSlot      = uuid.MustParse("0190a1b2-0000-7000-8000-0000000000b1")
	anEndpoint = uuid.MustParse("0190a1b2-0000-7000-8000-0000000000c1")
	sub        = "/v1/submissions/" + testSubmissionID.String()
	endpoint   = "/v1/webhook_endpoints/" + anEndpoint.String()
)

// everyWrite lists every write operation of the API with its wrapper.
var everyWrite = []writeCall{
	{"createTemplate", "POST", "/v1/templates", func(ctx context.Context, c *Client) error {
		return discardResult(c.CreateTemplate(ctx, client.CreateTemplateRequest{DisplayName: "Loans"}))
	}},
	{"updateTemplate", "PATCH", "/v1/templates/tpl", func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateTemplate(ctx, "tpl", client.UpdateTemplateRequest{ExpectedRevision: 1}))
	}},
	{"deleteTemplate", "DELETE", "/v1/templates/tpl", func(ctx context.Context, c *Client) error {
		return c.DeleteTemplate(ctx, "tpl")
	}},
	{"duplicateTemplate", "POST", "/v1/templates/personal_loan/duplicate", func(ctx context.Context, c *Client) error {
		return discardResult(c.DuplicateTemplate(ctx, "personal_loan", client.DuplicateTemplateRequest{}))
	}},
	{"replaceTemplateDocumentRequirements", "PUT", "/v1/templates/tpl/document_requirements", func(ctx context.Context, c *Client) error {
		return discardResult(c.ReplaceTemplateDocumentRequirements(ctx, "tpl", client.ReplaceTemplateDocumentRequirementsRequest{ExpectedRevision: 1}))
	}},
	{"replaceTemplateCheckItems", "PUT", "/v1/templates/tpl/check_items", func(ctx context.Context, c *Client) error {
		return discardResult(c.ReplaceTemplateCheckItems(ctx, "tpl", client.ReplaceTemplateCheckItemsRequest{ExpectedRevision: 1}))
	}},
	{"replaceTemplateDataFieldItems", "PUT", "/v1/templates/tpl/data_field_items", func(ctx context.Context, c *Client) error {
		return discardResult(c.ReplaceTemplateDataFieldItems(ctx, "tpl", client.ReplaceTemplateDataFieldItemsRequest{ExpectedRevision: 1}))
	}},
	{"createSubmission", "POST", "/v1/submissions", func(ctx context.Context, c *Client) error {
		return discardResult(c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-1"}))
	}},
	{"updateSubmission", "PATCH", sub, func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateSubmission(ctx, testSubmissionID, client.UpdateSubmissionRequest{Metadata: client.Metadata{"a": 1}}))
	}},
	{"deleteSubmission", "DELETE", sub, func(ctx context.Context, c *Client) error {
		return c.DeleteSubmission(ctx, testSubmissionID)
	}},
	{"cancelSubmission", "POST", sub + "/cancel", func(ctx context.Context, c *Client) error {
		return discardResult(c.CancelSubmission(ctx, testSubmissionID))
	}},
	{"createUpload", "POST", sub + "/files", func(ctx context.Context, c *Client) error {
		return discardResult(c.UploadFile(ctx, testSubmissionID, UploadParams{
			ExternalFileID: "f-1", ContentType: "application/pdf", Body: bytes.NewReader([]byte("%PDF-1.7")),
		}))
	}},
	{"createSlotUpload", "POST", sub + "/document-slots/" + aSlot.String() + "/files", func(ctx context.Context, c *Client) error {
		return discardResult(c.UploadFile(ctx, testSubmissionID, UploadParams{
			ExternalFileID: "f-2", ContentType: "application/pdf", Body: bytes.NewReader([]byte("%PDF-1.7")), SlotID: &aSlot,
		}))
	}},
	{"updateUpload", "PATCH", sub + "/files/" + anUpload.String(), func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateUpload(ctx, testSubmissionID, anUpload, client.UpdateUploadRequest{DocumentSlotId: &aSlot}))
	}},
	{"deleteUpload", "DELETE", sub + "/files/" + anUpload.String(), func(ctx context.Context, c *Client) error {
		return c.DeleteUpload(ctx, testSubmissionID, anUpload)
	}},
	{"startEvaluation", "POST", sub + "/evaluations", func(ctx context.Context, c *Client) error {
		return discardResult(c.StartEvaluation(ctx, testSubmissionID))
	}},
	{"createCheck", "POST", "/v1/checks", func(ctx context.Context, c *Client) error {
		return discardResult(c.CreateCheck(ctx, client.CreateCheckRequest{Title: "t", Prompt: "p"}))
	}},
	{"updateCheck", "PATCH", "/v1/checks/chk", func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateCheck(ctx, "chk", client.UpdateCheckRequest{}))
	}},
	{"deleteCheck", "DELETE", "/v1/checks/chk", func(ctx context.Context, c *Client) error {
		return c.DeleteCheck(ctx, "chk")
	}},
	{"createDataField", "POST", "/v1/data_fields", func(ctx context.Context, c *Client) error {
		return discardResult(c.CreateDataField(ctx, client.CreateDataFieldRequest{DisplayName: "d", Prompt: "p"}))
	}},
	{"updateDataField", "PATCH", "/v1/data_fields/df", func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateDataField(ctx, "df", client.UpdateDataFieldRequest{}))
	}},
	{"deleteDataField", "DELETE", "/v1/data_fields/df", func(ctx context.Context, c *Client) error {
		return c.DeleteDataField(ctx, "df")
	}},
	{"createDocumentType", "POST", "/v1/document_types", func(ctx context.Context, c *Client) error {
		return discardResult(c.CreateDocumentType(ctx, client.CreateDocumentTypeRequest{DisplayName: "d"}))
	}},
	{"updateDocumentType", "PATCH", "/v1/document_types/dt", func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateDocumentType(ctx, "dt", client.UpdateDocumentTypeRequest{}))
	}},
	{"deleteDocumentType", "DELETE", "/v1/document_types/dt", func(ctx context.Context, c *Client) error {
		return c.DeleteDocumentType(ctx, "dt")
	}},
	{"redeliverEvent", "POST", "/v1/events/evt_1/redeliver", func(ctx context.Context, c *Client) error {
		return discardResult(c.RedeliverEvent(ctx, "evt_1", client.RedeliverEventRequest{}))
	}},
	{"triggerEvent", "POST", "/v1/events/trigger", func(ctx context.Context, c *Client) error {
		return discardResult(c.TriggerEvent(ctx, client.TriggerEventRequest{Type: client.EventTypeFileReady}))
	}},
	{"createWebhookEndpoint", "POST", "/v1/webhook_endpoints", func(ctx context.Context, c *Client) error {
		return discardResult(c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/hooks"}))
	}},
	{"updateWebhookEndpoint", "PATCH", endpoint, func(ctx context.Context, c *Client) error {
		return discardResult(c.UpdateWebhookEndpoint(ctx, anEndpoint, client.UpdateWebhookEndpointRequest{}))
	}},
	{"deleteWebhookEndpoint", "DELETE", endpoint, func(ctx context.Context, c *Client) error {
		return c.DeleteWebhookEndpoint(ctx, anEndpoint)
	}},
	{"rotateWebhookEndpointSecret", "POST", endpoint + "/secret/rotations", func(ctx context.Context, c *Client) error {
		return discardResult(c.RotateWebhookEndpointSecret(ctx, anEndpoint))
	}},
	{"testWebhookEndpoint", "POST", endpoint + "/test", func(ctx context.Context, c *Client) error {
		return discardResult(c.TestWebhookEndpoint(ctx, anEndpoint))
	}},
}

// Every write is retried after a lost answer and after a 503, and every POST sends one
// random key, the same on every attempt; other methods send none.
func TestEveryWriteIsRetriedWithOneKey(t *testing.T) {
	t.Parallel()
	failures := map[string]func(w http.ResponseWriter){
		"lost answer": dropConnection,
		"503":         func(w http.ResponseWriter) { writeError(w, http.StatusServiceUnavailable, "service_unavailable", "") },
		"409 idempotency_key_in_use": func(w http.ResponseWriter) {
			writeError(w, http.StatusConflict, "idempotency_key_in_use", "")
		},
	}
	for _, wc := range everyWrite {
		for failure, fail := range failures {
			if failure == "409 idempotency_key_in_use" && wc.method != http.MethodPost {
				continue
			}
			t.Run(wc.name+" after "+failure, func(t *testing.T) {
				t.Parallel()
				rec := &recorder{}
				c, _ := newTestClient(t, rec.handler(func(w http.ResponseWriter, req *http.Request, attempt int) {
					if attempt == 1 {
						fail(w)
						return
					}
					succeed(w, req)
				}))
				if err := wc.call(context.Background(), c); err != nil {
					t.Fatal(err)
				}
				seen := rec.all()
				if len(seen) != 2 {
					t.Fatalf("%d attempts, want 2: %+v", len(seen), seen)
				}
				for _, s := range seen {
					if s.method != wc.method || s.path != wc.path {
						t.Errorf("sent %s %s, want %s %s", s.method, s.path, wc.method, wc.path)
					}
				}
				if seen[0].body != seen[1].body {
					t.Errorf("bodies differ:\n%q\n%q", seen[0].body, seen[1].body)
				}
				if wc.method != http.MethodPost {
					if seen[0].key != "" {
						t.Errorf("%s sent Idempotency-Key %q", wc.method, seen[0].key)
					}
					return
				}
				key, err := uuid.Parse(seen[0].key)
				if err != nil || key.Version() != 4 || seen[1].key != seen[0].key {
					t.Errorf("keys %q, %q: want one random UUID on both attempts", seen[0].key, seen[1].key)
				}
			})
		}
	}
}

// Two calls of the same write are two logical calls: two keys.
func TestEveryCallMakesItsOwnKey(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	c, _ := newTestClient(t, rec.handler(func(w http.ResponseWriter, req *http.Request, _ int) { succeed(w, req) }))
	for range 2 {
		if _, err := c.StartEvaluation(context.Background(), testSubmissionID); err != nil {
			t.Fatal(err)
		}
	}
	seen := rec.all()
	if len(seen) != 2 || seen[0].key == "" || seen[0].key == seen[1].key {
		t.Errorf("keys %+v", seen)
	}
}

// The caller's key, given as an option or through the generated client's params or
// headers, is sent instead of a random one, on every attempt.
func TestCallersIdempotencyKeyWins(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	c, _ := newTestClient(t, rec.handler(func(w http.ResponseWriter, req *http.Request, attempt int) {
		if attempt%2 == 1 {
			writeError(w, http.StatusInternalServerError, "internal_error", "")
			return
		}
		succeed(w, req)
	}))
	ctx := context.Background()
	if _, err := c.CreateCheck(ctx, client.CreateCheckRequest{Title: "t", Prompt: "p"}, WithIdempotencyKey("order-42")); err != nil {
		t.Fatal(err)
	}
	key := "order-43"
	res, err := c.API().CreateCheck(ctx, &client.CreateCheckParams{IdempotencyKey: &key}, client.CreateCheckRequest{Title: "t", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// A GET takes no key: the option is ignored there.
	if _, err := c.GetCheck(ctx, "chk", WithIdempotencyKey("ignored")); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range rec.all() {
		keys = append(keys, s.key)
	}
	if got := strings.Join(keys, ","); got != "order-42,order-42,order-43,order-43,," {
		t.Errorf("keys %s", got)
	}
}

// An answer lost while deleting: the retry finds the resource gone, which is what the
// first attempt did, so the call succeeds. Without a lost answer, gone is an error.
func TestDeleteAfterALostAnswerSucceedsWhenTheRetryFindsItGone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		status       int
		code         string
		call         func(context.Context, *Client) error
		lostAndGone  bool
		wantCodeOnce string
	}{
		{"upload", 404, "not_found", func(ctx context.Context, c *Client) error { return c.DeleteUpload(ctx, testSubmissionID, anUpload) }, true, "not_found"},
		{"webhook endpoint", 404, "not_found", func(ctx context.Context, c *Client) error { return c.DeleteWebhookEndpoint(ctx, anEndpoint) }, true, "not_found"},
		{"submission", 409, "partner_data_purge_in_progress", func(ctx context.Context, c *Client) error { return c.DeleteSubmission(ctx, testSubmissionID) }, true, "partner_data_purge_in_progress"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			c, _ := newTestClient(t, rec.handler(func(w http.ResponseWriter, _ *http.Request, attempt int) {
				if attempt == 1 {
					dropConnection(w)
					return
				}
				writeError(w, tc.status, tc.code, "")
			}))
			if err := tc.call(context.Background(), c); err != nil {
				t.Errorf("after a lost answer: %v", err)
			}
			// The first answer arrives: it is the caller's error.
			c2, _ := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) { writeError(w, tc.status, tc.code, "") })
			if err := tc.call(context.Background(), c2); Code(err) != tc.wantCodeOnce {
				t.Errorf("without a lost answer: %v", err)
			}
		})
	}
}

// Every operation of the generated client has a typed wrapper on Client; the two
// upload operations share UploadFile.
func TestEveryOperationHasAWrapper(t *testing.T) {
	t.Parallel()
	sharedBy := map[string]string{"CreateUpload": "UploadFile", "CreateSlotUpload": "UploadFile"}
	ops := reflect.TypeFor[client.ClientInterface]()
	sdk := reflect.TypeFor[*Client]()
	operations := map[string]bool{} // XxxWithBody and Xxx are one operation
	for i := range ops.NumMethod() {
		operations[strings.TrimSuffix(ops.Method(i).Name, "WithBody")] = true
	}
	for name := range operations {
		wrapper := name
		if shared, ok := sharedBy[name]; ok {
			wrapper = shared
		}
		m, ok := sdk.MethodByName(wrapper)
		if !ok {
			t.Errorf("no Client.%s for operation %s", wrapper, name)
			continue
		}
		if last := m.Type.In(m.Type.NumIn() - 1); !m.Type.IsVariadic() || last.Elem() != reflect.TypeFor[RequestOption]() {
			t.Errorf("Client.%s takes no ...RequestOption", wrapper)
		}
	}
	if len(operations) != 50 {
		t.Errorf("%d operations, want 50", len(operations))
	}
}
