package apiserver_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/store"
)

// bodyRecorder sits under the SDK and keeps every POST answer's exact bytes and its
// Idempotent-Replayed header.
type bodyRecorder struct {
	next http.RoundTripper

	mu       sync.Mutex
	bodies   [][]byte
	replayed []string
}

func (b *bodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := b.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bodies = append(b.bodies, body)
	b.replayed = append(b.replayed, res.Header.Get(sdk.HeaderIdempotentReplayed))
	return res, nil
}

// last returns the latest POST answer and whether it was a replay.
func (b *bodyRecorder) last() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bodies[len(b.bodies)-1], b.replayed[len(b.replayed)-1] == "true"
}

// idempotencyTableAsText reads every column of every idempotency_keys row as text: a
// bytea column through encode(..., 'escape'), which leaves printable ASCII as it is
// (its plain text form is hex, which would hide a secret from a search). The columns
// come from the catalog, so one added later is read too.
func idempotencyTableAsText(t *testing.T, st *store.Store) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := st.Pool().Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'idempotency_keys' ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		expr := `coalesce(` + name + `::text, '')`
		if typ == "bytea" {
			expr = `coalesce(encode(` + name + `, 'escape'), '')`
		}
		exprs = append(exprs, expr)
	}
	if err := rows.Err(); err != nil || len(exprs) < 8 {
		t.Fatalf("columns of idempotency_keys: %v %v", exprs, err)
	}
	rows, err = st.Pool().Query(ctx, `SELECT `+strings.Join(exprs, ` || ' | ' || `)+` FROM idempotency_keys`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The answers of createWebhookEndpoint and rotateWebhookSecret carry signing_secret:
// kept for Idempotency-Key replay, they rest sealed (no whsec_ in any column of the
// table), and a replay still answers the very bytes of the first answer.
func TestIdempotentWebhookSecretsRestSealed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	rec := &bodyRecorder{next: e.http.Transport}
	c, err := sdk.New(e.srv.URL, key, sdk.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}

	create := func() *client.WebhookEndpointWithSecret {
		ep, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/doceval"}, sdk.WithIdempotencyKey("create-endpoint-1"))
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	ep := create()
	created, _ := rec.last()
	rotate := func() *client.SecretRotation {
		r, err := c.RotateWebhookEndpointSecret(ctx, ep.Id, sdk.WithIdempotencyKey("rotate-endpoint-1"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	rot := rotate()
	rotated, _ := rec.last()
	if !strings.HasPrefix(ep.SigningSecret, "whsec_") || !strings.HasPrefix(rot.SigningSecret, "whsec_") || ep.SigningSecret == rot.SigningSecret {
		t.Fatalf("secrets %q, %q: want two whsec_ secrets", ep.SigningSecret, rot.SigningSecret)
	}
	if !bytes.Contains(created, []byte(ep.SigningSecret)) || !bytes.Contains(rotated, []byte(rot.SigningSecret)) {
		t.Fatal("the answers do not carry the secrets: the test would prove nothing")
	}

	rows := idempotencyTableAsText(t, e.store)
	if len(rows) != 2 {
		t.Fatalf("%d kept responses, want 2 (create and rotate)", len(rows))
	}
	for _, row := range rows {
		if strings.Contains(row, "whsec_") {
			t.Errorf("a signing secret rests in clear in idempotency_keys: %s", row)
		}
	}

	if again := create(); again.Id != ep.Id || again.SigningSecret != ep.SigningSecret {
		t.Errorf("replayed create: %+v, want endpoint %s with its first secret", again, ep.Id)
	}
	if body, replayed := rec.last(); !replayed || !bytes.Equal(body, created) {
		t.Errorf("replayed create (Idempotent-Replayed %v):\n%s\nwant the first answer's bytes:\n%s", replayed, body, created)
	}
	if again := rotate(); again.SigningSecret != rot.SigningSecret {
		t.Errorf("replayed rotation gave secret %q, want %q", again.SigningSecret, rot.SigningSecret)
	}
	if body, replayed := rec.last(); !replayed || !bytes.Equal(body, rotated) {
		t.Errorf("replayed rotation (Idempotent-Replayed %v):\n%s\nwant the first answer's bytes:\n%s", replayed, body, rotated)
	}
}

// A response kept in clear before responses were sealed (a row written by an earlier
// version) still replays until it expires or secrets reencrypt seals it.
func TestIdempotentReplayOfResponseKeptInClear(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	clientID, key := e.newClient()
	rec := &bodyRecorder{next: e.http.Transport}
	c, err := sdk.New(e.srv.URL, key, sdk.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	create := func() *client.WebhookEndpointWithSecret {
		ep, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/legacy"}, sdk.WithIdempotencyKey("legacy-1"))
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	ep := create()
	first, _ := rec.last()
	// As an earlier version kept it: the body in response_body, nothing sealed.
	if _, err := e.store.Pool().Exec(ctx, `UPDATE idempotency_keys SET response_body = $3, response_sealed = NULL
		WHERE api_client_id = $1 AND key = $2`, clientID, "legacy-1", first); err != nil {
		t.Fatal(err)
	}
	if again := create(); again.SigningSecret != ep.SigningSecret {
		t.Errorf("replay of a response kept in clear: secret %q, want %q", again.SigningSecret, ep.SigningSecret)
	}
	if body, replayed := rec.last(); !replayed || !bytes.Equal(body, first) {
		t.Errorf("replay of a response kept in clear (Idempotent-Replayed %v): %s", replayed, body)
	}
}
