package apiserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/dispatch"
)

// nodeVerifier runs testdata/standardwebhooks-verify.js: the Standard Webhooks reference
// library for Node (npm standardwebhooks, installed pinned under .tools/node by make
// tools) verifying a delivery as a partner's receiver would.
type nodeVerifier struct {
	node, modules string
}

// newNodeVerifier finds node and the library. Outside CI a machine without them skips
// the test; under CI (CI=true) their absence fails it, so the check cannot pass unseen.
func newNodeVerifier(t *testing.T) nodeVerifier {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; make tools installs it", what)
		}
		t.Skipf("%s is missing (make tools installs it); the check is skipped outside CI", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	modules, err := filepath.Abs(filepath.Join("..", "..", ".tools", "node", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "standardwebhooks", "package.json")); err != nil {
		missing("the npm package standardwebhooks under .tools/node")
	}
	return nodeVerifier{node: node, modules: modules}
}

// verify returns the verified event's id, or the library's reason for refusing.
func (v nodeVerifier) verify(t *testing.T, secret string, d receivedDelivery) (id string, refused string) {
	t.Helper()
	headers := map[string]string{}
	for name := range d.header {
		headers[strings.ToLower(name)] = d.header.Get(name)
	}
	in, err := json.Marshal(map[string]any{"secret": secret, "headers": headers, "body": base64.StdEncoding.EncodeToString(d.body)})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(v.node, filepath.Join("testdata", "standardwebhooks-verify.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+v.modules)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res struct {
		Verified bool   `json:"verified"`
		ID       string `json:"id"`
		Error    string `json:"error"`
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		t.Fatalf("node: %v, output %q, stderr %s", err, out, stderr.String())
	}
	if res.Verified != (err == nil) {
		t.Fatalf("node said %+v but exited with %v", res, err)
	}
	if !res.Verified {
		return "", res.Error
	}
	return res.ID, ""
}

type receivedDelivery struct {
	body   []byte
	header http.Header
}

// deliveryRecorder is a partner's endpoint that records what it is sent and answers 200.
type deliveryRecorder struct {
	mu  sync.Mutex
	got []receivedDelivery
}

func (r *deliveryRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, receivedDelivery{body: b, header: req.Header.Clone()})
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (r *deliveryRecorder) deliveries() []receivedDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedDelivery(nil), r.got...)
}

// Real deliveries by the dispatcher (testWebhookEndpoint's event, then its redelivery
// during a secret rotation) verify with the Standard Webhooks reference library of
// another language, Node's, given signing_secret exactly as createWebhookEndpoint and
// rotateWebhookEndpointSecret return it; webhook-id is the event id, the same on the
// redelivery. The library refuses a tampered body, another webhook-id and a wrong
// secret, so the check can fail.
func TestDeliveriesVerifyWithNodeStandardWebhooks(t *testing.T) {
	node := newNodeVerifier(t)
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	rec := &deliveryRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	d := &dispatch.Dispatcher{Store: e.store, Secrets: e.secrets, Log: slog.New(slog.DiscardHandler), Timeout: 5 * time.Second, AllowPrivate: true}
	runDispatcher := func(want int) receivedDelivery {
		t.Helper()
		if _, err := d.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		got := rec.deliveries()
		if len(got) != want {
			t.Fatalf("%d deliveries received, want %d", len(got), want)
		}
		return got[want-1]
	}

	ep, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: srv.URL + "/hook"})
	expect(t, err, ep.StatusCode(), ep.Body, 201)
	first := ep.JSON201.SigningSecret
	test, err := c.TestWebhookEndpointWithResponse(ctx, ep.JSON201.Id, nil)
	expect(t, err, test.StatusCode(), test.Body, 202)
	eventID := string(test.JSON202.Id)

	delivered := runDispatcher(1)
	if got := delivered.header.Get(dispatch.IDHeader); got != eventID {
		t.Errorf("webhook-id %q, want the event id %s", got, eventID)
	}
	if id, refused := node.verify(t, first, delivered); refused != "" || id != eventID {
		t.Fatalf("Node's standardwebhooks refused the delivery (%s) or read another event (%q)", refused, id)
	}
	// Still the same JSON, other bytes: verification is over the raw body.
	tampered := receivedDelivery{body: bytes.Replace(delivered.body, []byte(`"data":`), []byte(`"data" :`), 1), header: delivered.header}
	if bytes.Equal(tampered.body, delivered.body) {
		t.Fatalf("no data in %s", delivered.body)
	}
	if _, refused := node.verify(t, first, tampered); refused == "" {
		t.Error("Node's standardwebhooks accepted a tampered body")
	}
	otherID := receivedDelivery{body: delivered.body, header: delivered.header.Clone()}
	otherID.header.Set(dispatch.IDHeader, "evt_0190a1b2-0000-7000-8000-000000000000")
	if _, refused := node.verify(t, first, otherID); refused == "" {
		t.Error("Node's standardwebhooks accepted another webhook-id")
	}
	if _, refused := node.verify(t, "whsec_"+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)), delivered); refused == "" {
		t.Error("Node's standardwebhooks accepted a wrong secret")
	}

	// During a rotation the redelivery carries a signature per secret: either verifies.
	rot, err := c.RotateWebhookEndpointSecretWithResponse(ctx, ep.JSON201.Id, nil)
	expect(t, err, rot.StatusCode(), rot.Body, 201)
	second := rot.JSON201.SigningSecret
	redeliver, err := c.RedeliverEventWithResponse(ctx, eventID, nil, client.RedeliverEventRequest{EndpointId: &ep.JSON201.Id})
	expect(t, err, redeliver.StatusCode(), redeliver.Body, 200)
	again := runDispatcher(2)
	if got := again.header.Get(dispatch.IDHeader); got != eventID {
		t.Errorf("webhook-id of the redelivery %q, want the event id %s again", got, eventID)
	}
	for name, secret := range map[string]string{"new": second, "previous": first} {
		if id, refused := node.verify(t, secret, again); refused != "" || id != eventID {
			t.Errorf("the redelivery with the %s secret: refused (%s) or another event (%q)", name, refused, id)
		}
	}
}
