package partnercli_test

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// listen verifies what the service signs, prints it and forwards body and signature
// unchanged; a tampered delivery gets 400 and a warning and is not forwarded.
func TestListenVerifiesAndForwards(t *testing.T) {
	t.Parallel()
	var (
		mu        sync.Mutex
		forwarded []*http.Request
		bodies    [][]byte
	)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		forwarded, bodies = append(forwarded, r), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(app.Close)

	// Both secrets of a rotation, as a repeated flag; --secret alone means --direct.
	url, stdout, stderr := startListen(t, []string{"listen", "--forward-to", app.URL, "--secret", "whsec_new", "--secret", "whsec_old"}, nil)

	body := []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000001","type":"evaluation.completed","created_at":"2026-11-23T10:00:00Z",` +
		`"api_client_id":"0190a1b2-0000-7000-8000-000000000002","data":{"evaluation":{"id":"0190a1b2-0000-7000-8000-000000000003",` +
		`"external_submission_id":"case-9","status":"completed","progress_percent":100,"stage_label":"Done","kind":"full","input_file_ids":[],` +
		`"result":{"summary":{"outcome":"passed","recommendation":"proceed","risk_band":"low"},"checks":[],"fields":[],"documents":[]}}}}`)
	signature := webhook.Sign(body, time.Now(), "whsec_new")
	if status := post(t, url, body, signature); status != http.StatusNoContent {
		t.Fatalf("verified delivery answered %d, want the forwarded-to app's 204; stderr %s", status, stderr.String())
	}
	line := stdout.String()
	for _, want := range []string{"evaluation.completed", "evt_0190a1b2-0000-7000-8000-000000000001", "case-9", "completed 100%", "outcome passed"} {
		if !strings.Contains(line, want) {
			t.Errorf("printed line lacks %q: %q", want, line)
		}
	}
	mu.Lock()
	if len(forwarded) != 1 || !bytes.Equal(bodies[0], body) || forwarded[0].Header.Get(webhook.SignatureHeader) != signature {
		t.Errorf("forwarded %d requests, body equal %v", len(forwarded), len(bodies) == 1 && bytes.Equal(bodies[0], body))
	}
	mu.Unlock()

	// Signed by the dispatcher's own code with the old secret only: also verified.
	if status := post(t, url, body, dispatch.Sign(body, time.Now(), []byte("whsec_old"))); status != http.StatusNoContent {
		t.Errorf("delivery signed by the dispatcher with the old secret answered %d", status)
	}

	// Signed by the dispatcher with the Standard Webhooks headers alone: verified, and
	// forwarded with them.
	standard := http.Header{}
	standard.Set(webhook.IDHeader, "evt_0190a1b2-0000-7000-8000-000000000001")
	standard.Set(webhook.TimestampHeader, strconv.FormatInt(time.Now().Unix(), 10))
	standard.Set(webhook.StandardSignatureHeader, dispatch.SignStandard(standard.Get(webhook.IDHeader), body, time.Now(), []byte("whsec_old")))
	if status := postHeaders(t, url, body, standard); status != http.StatusNoContent {
		t.Errorf("delivery with Standard Webhooks headers only answered %d", status)
	}
	mu.Lock()
	if len(forwarded) != 3 || forwarded[2].Header.Get(webhook.StandardSignatureHeader) != standard.Get(webhook.StandardSignatureHeader) ||
		forwarded[2].Header.Get(webhook.IDHeader) != standard.Get(webhook.IDHeader) || forwarded[2].Header.Get(webhook.TimestampHeader) != standard.Get(webhook.TimestampHeader) {
		t.Errorf("the Standard Webhooks headers were not forwarded as received (%d forwards)", len(forwarded))
	}
	mu.Unlock()
	standard.Set(webhook.IDHeader, "evt_0190a1b2-0000-7000-8000-000000000009")
	if status := postHeaders(t, url, body, standard); status != http.StatusBadRequest {
		t.Errorf("Standard Webhooks headers for another event id answered %d, want 400", status)
	}

	tampered := bytes.Replace(body, []byte("passed"), []byte("failed"), 1)
	if status := post(t, url, tampered, signature); status != http.StatusBadRequest {
		t.Errorf("tampered delivery answered %d, want 400", status)
	}
	if status := post(t, url, body, ""); status != http.StatusBadRequest {
		t.Errorf("unsigned delivery answered %d, want 400", status)
	}
	if !strings.Contains(stderr.String(), "warning: rejected unverifiable delivery") {
		t.Errorf("no warning printed: %s", stderr.String())
	}
	mu.Lock()
	if len(forwarded) != 3 {
		t.Errorf("%d requests forwarded, want only the 3 verified", len(forwarded))
	}
	mu.Unlock()
}

func post(t *testing.T, url string, body []byte, signature string) int {
	t.Helper()
	h := http.Header{}
	if signature != "" {
		h.Set(webhook.SignatureHeader, signature)
	}
	return postHeaders(t, url, body, h)
}

func postHeaders(t *testing.T, url string, body []byte, h http.Header) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(req.Header, h)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// Secrets come from DOCEVAL_WEBHOOK_SECRET when no flag is given; without
// --forward-to a verified delivery answers 200, and --json prints the body as is.
func TestListenSecretsFromEnvironment(t *testing.T) {
	t.Parallel()
	env := func(k string) string { return map[string]string{"DOCEVAL_WEBHOOK_SECRET": "whsec_a, whsec_b"}[k] }
	url, stdout, stderr := startListen(t, []string{"listen", "--direct", "--json"}, env)
	body := []byte(`{"id":"evt_1","type":"file.ready","created_at":"2026-11-23T10:00:00Z","api_client_id":"0190a1b2-0000-7000-8000-000000000002","data":{}}`)
	if status := post(t, url, body, webhook.Sign(body, time.Now(), "whsec_b")); status != http.StatusOK {
		t.Fatalf("answered %d: %s", status, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != string(body) {
		t.Errorf("--json printed %q", got)
	}
}

// startListen runs `doceval listen --direct` with args until the test ends (it must
// then exit 0) and returns the URL it listens on and its output.
func startListen(t *testing.T, args []string, env func(string) string) (url string, stdout, stderr *syncBuffer) {
	t.Helper()
	l := startCLI(t, env, args...)
	t.Cleanup(func() { l.stop(t) })
	listening := regexp.MustCompile(`Listening on (http://\S+)`)
	waitFor(t, "listen to start", func() bool {
		m := listening.FindStringSubmatch(l.stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	return url, l.stdout, l.stderr
}
