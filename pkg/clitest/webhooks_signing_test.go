package partnercli_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/doceval/doceval/pkg/sdk/webhook"
	"github.com/doceval/doceval/services/doceval/partnercli"
)

var (
	signingBody   = `{"id":"evt_0190a1b2-0000-7000-8000-000000000005","type":"file.ready","created_at":"2026-11-23T10:00:00Z","api_client_id":"0190a1b2-0000-7000-8000-000000000002","data":{}}`
	signingSecret = "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff, 0x01}, 11)[:32])
	rotatedSecret = "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x11}, 32))
)

// headerLines reads `webhooks sign`'s "Name: value" lines.
func headerLines(t *testing.T, out string) http.Header {
	t.Helper()
	h := http.Header{}
	for line := range strings.Lines(strings.TrimSpace(out)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			t.Fatalf("line %q is not Name: value", line)
		}
		h.Set(name, value)
	}
	return h
}

// `webhooks sign` prints both schemes' headers for the body; the Standard Webhooks
// reference library and the SDK verify them with each secret, webhook-id is the body's
// event id (or --id) and --timestamp sets the time; --json gives the same as an object.
func TestWebhooksSign(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(file, []byte(signingBody), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(nil, "", "webhooks", "sign", "--secret", signingSecret, "--secret", rotatedSecret, "--body", "@"+file)
	if r.code != partnercli.ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	h := headerLines(t, r.stdout)
	if len(h) != 4 || h.Get(webhook.IDHeader) != "evt_0190a1b2-0000-7000-8000-000000000005" {
		t.Fatalf("headers %v", h)
	}
	if age := time.Since(time.Unix(mustInt(t, h.Get(webhook.TimestampHeader)), 0)); age < 0 || age > time.Minute {
		t.Errorf("webhook-timestamp %s is not now", h.Get(webhook.TimestampHeader))
	}
	for _, secret := range []string{signingSecret, rotatedSecret} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify([]byte(signingBody), h); err != nil {
			t.Errorf("the reference library refuses the signature with %s: %v", secret, err)
		}
		if err := webhook.Verify(h.Get(webhook.SignatureHeader), []byte(signingBody), []string{secret}, 0, time.Now()); err != nil {
			t.Errorf("X-Service-Signature with %s: %v", secret, err)
		}
	}

	// From stdin, with the id and time given, as JSON.
	r = runCLI(nil, signingBody, "webhooks", "sign", "--secret", signingSecret, "--body", "-", "--id", "msg_1", "--timestamp", "1767322800", "--json")
	var got map[string]string
	if r.code != partnercli.ExitOK || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("--json: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	at := time.Unix(1767322800, 0)
	want := map[string]string{
		webhook.SignatureHeader:         webhook.Sign([]byte(signingBody), at, signingSecret),
		webhook.IDHeader:                "msg_1",
		webhook.TimestampHeader:         "1767322800",
		webhook.StandardSignatureHeader: webhook.SignStandard("msg_1", []byte(signingBody), at, signingSecret),
	}
	for name, value := range want {
		if got[name] != value {
			t.Errorf("%s: %q, want %q", name, got[name], value)
		}
	}

	// A body that is not an event needs --id; no secret and no body are usage errors.
	env := func(k string) string { return map[string]string{"DOCEVAL_WEBHOOK_SECRET": signingSecret}[k] }
	for _, tc := range []struct {
		env  partnercli.Env
		args []string
		want string
	}{
		{env, []string{"--body", `{"hello":1}`}, "--id"},
		{nil, []string{"--body", signingBody}, "DOCEVAL_WEBHOOK_SECRET"},
		{env, nil, "--body is required"},
	} {
		r := runCLI(tc.env, "", append([]string{"webhooks", "sign"}, tc.args...)...)
		if r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("sign %v: exit %d, stderr %q, want a usage error naming %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := runCLI(env, "", "webhooks", "sign", "--body", `{"hello":1}`, "--id", "msg_2"); r.code != partnercli.ExitOK || !strings.Contains(r.stdout, "webhook-id: msg_2") {
		t.Errorf("secret from the environment, --id: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
}

// `webhooks verify` exits 0 when either scheme verifies and 1, with the reason, when
// neither does: a tampered body, a wrong secret, a stale timestamp (unless --tolerance
// allows it); it says how each scheme fared.
func TestWebhooksVerify(t *testing.T) {
	t.Parallel()
	now := time.Now()
	signed := http.Header{}
	webhook.SignRequest(signed, "evt_0190a1b2-0000-7000-8000-000000000005", []byte(signingBody), now, rotatedSecret, signingSecret)
	flags := func(h http.Header, names ...string) []string {
		var args []string
		for _, name := range names {
			args = append(args, "-H", name+": "+h.Get(name))
		}
		return args
	}
	standard := flags(signed, webhook.IDHeader, webhook.TimestampHeader, webhook.StandardSignatureHeader)
	legacy := flags(signed, webhook.SignatureHeader)
	stale := http.Header{}
	webhook.SignRequest(stale, "evt_0190a1b2-0000-7000-8000-000000000005", []byte(signingBody), now.Add(-time.Hour), signingSecret)
	cases := []struct {
		name    string
		args    []string
		body    string
		code    int
		reports []string
	}{
		{"both schemes", append(append([]string{}, standard...), legacy...), signingBody, partnercli.ExitOK, []string{"X-Service-Signature:  valid", "Standard Webhooks:    valid"}},
		{"Standard Webhooks only", standard, signingBody, partnercli.ExitOK, []string{"X-Service-Signature:  absent", "Standard Webhooks:    valid"}},
		{"X-Service-Signature only", legacy, signingBody, partnercli.ExitOK, []string{"X-Service-Signature:  valid", "Standard Webhooks:    absent"}},
		{"tampered body", standard, strings.Replace(signingBody, "file.ready", "file.faile", 1), partnercli.ExitError, []string{"Standard Webhooks:    signature does not match the body", "does not verify"}},
		{"another webhook-id", append(append([]string{}, standard...), "-H", "webhook-id: evt_other"), signingBody, partnercli.ExitError, []string{"does not match"}},
		{"stale", flags(stale, webhook.IDHeader, webhook.TimestampHeader, webhook.StandardSignatureHeader), signingBody, partnercli.ExitError, []string{"outside the tolerance"}},
		{"stale, within --tolerance", append(flags(stale, webhook.IDHeader, webhook.TimestampHeader, webhook.StandardSignatureHeader), "--tolerance", "2h"), signingBody, partnercli.ExitOK, []string{"Standard Webhooks:    valid"}},
	}
	for _, tc := range cases {
		r := runCLI(nil, tc.body, append([]string{"webhooks", "verify", "--secret", signingSecret, "--body", "-"}, tc.args...)...)
		if r.code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, r.code, tc.code, r.stdout, r.stderr)
		}
		for _, want := range tc.reports {
			if !strings.Contains(r.stdout+r.stderr, want) {
				t.Errorf("%s: output lacks %q:\n%s%s", tc.name, want, r.stdout, r.stderr)
			}
		}
	}

	// The headers as `webhooks sign` printed them, from a file; a wrong secret fails; --json.
	dir := t.TempDir()
	headers, body := filepath.Join(dir, "headers.txt"), filepath.Join(dir, "event.json")
	var lines strings.Builder
	lines.WriteString("POST /webhooks HTTP/1.1\n") // a request line is skipped
	for name := range signed {
		lines.WriteString(name + ": " + signed.Get(name) + "\n")
	}
	if os.WriteFile(headers, []byte(lines.String()), 0o600) != nil || os.WriteFile(body, []byte(signingBody), 0o600) != nil {
		t.Fatal("write files")
	}
	r := runCLI(nil, "", "webhooks", "verify", "--secret", signingSecret, "--body", "@"+body, "--headers", "@"+headers, "--json")
	var res struct {
		Verified         bool   `json:"verified"`
		ServiceSignature string `json:"x_service_signature"`
		StandardWebhooks string `json:"standard_webhooks"`
	}
	if r.code != partnercli.ExitOK || json.Unmarshal([]byte(r.stdout), &res) != nil || !res.Verified || res.ServiceSignature != "valid" || res.StandardWebhooks != "valid" {
		t.Errorf("--headers @FILE --json: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	other := "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x22}, 32))
	r = runCLI(nil, "", "webhooks", "verify", "--secret", other, "--body", "@"+body, "--headers", "@"+headers, "--json")
	if r.code != partnercli.ExitError || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Verified || !strings.Contains(r.stderr, "does not match") {
		t.Errorf("wrong secret: exit %d %q %s", r.code, r.stdout, r.stderr)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--body", signingBody}, "no headers"},
		{[]string{"--body", signingBody, "-H", "webhook-id"}, "Name: value"},
		{[]string{"--body", "-", "--headers", "-"}, "stdin"},
		{[]string{"--body", signingBody, "--headers", "webhook-id: x"}, "@FILE"},
		{[]string{"-H", "webhook-id: x"}, "--body is required"},
	} {
		r := runCLI(nil, "", append([]string{"webhooks", "verify", "--secret", signingSecret}, tc.args...)...)
		if r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("verify %v: exit %d, stderr %q, want a usage error naming %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := runCLI(nil, signingBody, append([]string{"webhooks", "verify", "--body", "-"}, legacy...)...); r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, "DOCEVAL_WEBHOOK_SECRET") {
		t.Errorf("no secret: exit %d %s", r.code, r.stderr)
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
