package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// testEnv is the API on a real, freshly migrated database behind an httptest server.
// Every response that passes through its HTTP client is checked against the OpenAPI
// document (status, headers, body schema) and for the x-request-id rule.
type testEnv struct {
	t        *testing.T
	store    *store.Store
	blobs    *blob.Store
	blobRoot string
	secrets  *secretbox.Box
	srv      *httptest.Server
	http     *http.Client
}

type envOption func(*apiserver.Deps)

func withRateLimiter(l *httpx.RateLimiter) envOption {
	return func(d *apiserver.Deps) { d.RateLimiter = l }
}

func withInvalidKeyLimiter(l *httpx.InvalidKeyLimiter, proxies ...netip.Prefix) envOption {
	return func(d *apiserver.Deps) { d.InvalidKeyLimiter, d.TrustedProxies = l, proxies }
}

// withHandlers replaces the handlers, given the real ones to wrap.
func withHandlers(wrap func(real api.StrictServerInterface) api.StrictServerInterface) envOption {
	return func(d *apiserver.Deps) { d.Handlers = wrap(apiserver.NewServer(*d)) }
}

// The server connects as the api's database role (migration 00018), so a query the api
// is not granted fails its test; the test's own fixtures and checks use the owner.
func newEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	pool, url := dbtest.NewWithURL(t)
	return newEnvOn(t, store.New(pool), store.New(dbtest.RolePool(t, url, "api")), opts...)
}

// newFaultyEnv is newEnv with the server on connections the returned Faults break.
func newFaultyEnv(t *testing.T, opts ...envOption) (*testEnv, *dbtest.Faults) {
	t.Helper()
	owner, url := dbtest.NewWithURL(t)
	pool, faults := dbtest.FaultyPool(t, dbtest.RoleURL(t, url, "api"))
	return newEnvOn(t, store.New(owner), store.New(pool), opts...), faults
}

// newSecrets is a key ring of one fresh key.
func newSecrets(t testing.TB) *secretbox.Box {
	t.Helper()
	key, err := secretbox.ParseKey(secretbox.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	box, err := secretbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// newEnvOn serves the API on served; st is the test's own store.
func newEnvOn(t *testing.T, st, served *store.Store, opts ...envOption) *testEnv {
	t.Helper()
	blobRoot := t.TempDir()
	blobs, err := blob.Open(context.Background(), blob.FileURL(blobRoot))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	box := newSecrets(t)
	deps := apiserver.Deps{
		Secrets: box, Store: served, Blobs: blobs, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.NewRegistry(),
		RateLimiter:    httpx.NewRateLimiter(0, 1, nil), // off unless a test turns it on
		MaxUploadBytes: 1 << 20,
	}
	for _, o := range opts {
		o(&deps)
	}
	e, err := apiserver.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &testEnv{t: t, secrets: box, store: st, blobs: blobs, blobRoot: blobRoot, srv: srv, http: &http.Client{Transport: newContractCheck(t)}}
}

// newClient creates an API client holding perms (all when none given) and returns its
// id and key.
func (e *testEnv) newClient(perms ...auth.Permission) (uuid.UUID, string) {
	e.t.Helper()
	if len(perms) == 0 {
		perms = auth.AllPermissions
	}
	c, _, key, err := e.store.CreateClient(context.Background(), "test", perms)
	if err != nil {
		e.t.Fatal(err)
	}
	return c.ID, key
}

// client is the generated client sending key as the bearer token ("" sends none).
func (e *testEnv) client(key string) *client.ClientWithResponses {
	e.t.Helper()
	c, err := client.NewClientWithResponses(e.srv.URL, client.WithHTTPClient(e.http),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			if key != "" {
				r.Header.Set("Authorization", "Bearer "+key)
			}
			return nil
		}))
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// raw sends a request the generated client cannot express (unknown paths, wrong
// methods, broken bodies) through the same checked transport.
func (e *testEnv) raw(method, path, key, contentType string, body io.Reader) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res, b
}

// emit writes n events for a client through the one emitting function.
func (e *testEnv) emit(clientID uuid.UUID, n int, typ events.Type) []string {
	e.t.Helper()
	var ids []string
	err := e.store.InTx(context.Background(), func(tx *store.Tx) error {
		for i := range n {
			env, err := tx.Emit(context.Background(), events.Draft{
				APIClientID: clientID, Type: typ, Data: map[string]any{"n": i},
			})
			if err != nil {
				return err
			}
			ids = append(ids, env.ID)
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return ids
}

// wantError asserts status and code of an error response, that the body is the
// envelope, and that error.request_id equals the x-request-id header.
func wantError(t *testing.T, res *http.Response, body []byte, status int, code client.ErrorCode) client.ErrorDetail {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", res.StatusCode, status, body)
	}
	var env client.ErrorResponse
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("body is not the error envelope: %v: %s", err, body)
	}
	if env.Error.Code != code {
		t.Errorf("code %q, want %q (message %q)", env.Error.Code, code, env.Error.Message)
	}
	if env.Error.Message == "" {
		t.Error("empty message")
	}
	return env.Error
}

// contractCheck is an http.RoundTripper that validates every response of the API
// against the embedded OpenAPI document and checks x-request-id on every response.
type contractCheck struct {
	t      *testing.T
	router routers.Router
}

func newContractCheck(t *testing.T) *contractCheck {
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &contractCheck{t: t, router: router}
}

func (c *contractCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))

	what := req.Method + " " + req.URL.RequestURI()
	id := res.Header.Get(httpx.HeaderRequestID)
	if id == "" {
		c.t.Errorf("%s: response without x-request-id", what)
	}
	if res.StatusCode >= 400 {
		var env struct {
			Error struct {
				Code      string `json:"code"`
				RequestID string `json:"request_id"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Error.Code == "" {
			c.t.Errorf("%s: %d without the error envelope: %s", what, res.StatusCode, body)
		} else if env.Error.RequestID != id {
			c.t.Errorf("%s: error.request_id %q != x-request-id %q", what, env.Error.RequestID, id)
		}
	}

	route, params, err := c.router.FindRoute(req)
	if err != nil {
		return res, nil // unknown path or method: only the envelope applies
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{
				openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
			},
		},
	}
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		c.t.Errorf("%s: response %d does not match the OpenAPI document: %v\nbody: %s", what, res.StatusCode, err, truncate(body))
	}
	return res, nil
}

func truncate(b []byte) string {
	s := string(b)
	if len(s) > 500 {
		return s[:500] + "…"
	}
	return strings.TrimSpace(s)
}
