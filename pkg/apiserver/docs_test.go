package apiserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/doceval/doceval/openapi"
	"github.com/doceval/doceval/pkg/apiserver"
)

// The contract and its reference page are served without a key and without network:
// every asset the page loads comes from the binary.
func TestDocs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	get := func(path string) (int, string, string) {
		t.Helper()
		status, typ, body := fetch(t, e.srv.URL+path)
		return status, typ, string(body)
	}
	status, typ, yaml := get("/openapi.yaml")
	if status != 200 || !strings.HasPrefix(typ, "application/yaml") || !strings.HasPrefix(yaml, "openapi: ") {
		t.Fatalf("/openapi.yaml: %d %s %.40q", status, typ, yaml)
	}
	if _, err := openapi3.NewLoader().LoadFromData([]byte(yaml)); err != nil {
		t.Errorf("/openapi.yaml does not load: %v", err)
	}
	status, _, js := get("/openapi.json")
	if status != 200 || !strings.Contains(js, `"/v1/submissions/{submission_id}/evaluations"`) {
		t.Errorf("/openapi.json: %d %.80q", status, js)
	}
	status, _, page := get("/docs/")
	if status != 200 || !strings.Contains(page, "swagger-ui") || !strings.Contains(page, "/openapi.json") {
		t.Fatalf("/docs/: %d %.200q", status, page)
	}
	// Every script and stylesheet of the page is local and served.
	assets := regexp.MustCompile(`(?:src|href)="([^"]+\.(?:js|css))"`).FindAllStringSubmatch(page, -1)
	if len(assets) == 0 {
		t.Fatal("the page loads no assets")
	}
	for _, a := range assets {
		ref := a[1]
		if strings.HasPrefix(ref, "http") || strings.HasPrefix(ref, "//") {
			t.Errorf("asset from the network: %s", ref)
			continue
		}
		if !strings.HasPrefix(ref, "/") {
			ref = "/docs/" + ref
		}
		if status, _, body := get(ref); status != 200 || len(body) == 0 {
			t.Errorf("asset %s: %d", ref, status)
		}
	}
}

// With DOCEVAL_PUBLIC_URL the served contract names that URL as its one server and is
// otherwise the spec as written; without it, the spec is served byte for byte.
func TestDocsNameThePublicURL(t *testing.T) {
	t.Parallel()
	const public = "https://api.partner-bank.test"
	read := func(e *testEnv, path string) []byte {
		t.Helper()
		status, _, body := fetch(t, e.srv.URL+path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		return body
	}
	load := func(b []byte) *openapi3.T {
		t.Helper()
		doc, err := openapi3.NewLoader().LoadFromData(b)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	plain := newEnv(t)
	if got := read(plain, "/openapi.yaml"); !bytes.Equal(got, openapi.YAML) {
		t.Error("without a public URL /openapi.yaml is not the spec as written")
	}
	if s := load(openapi.YAML).Servers; len(s) != 1 || strings.Contains(s[0].URL, "127.0.0.1") || s[0].Variables["base_url"] == nil {
		t.Errorf("the spec's server should be templated, not a dev address: %+v", s)
	}
	// /openapi.json as well: the router's copy of the spec drops the servers, not the
	// document served.
	if s := load(read(plain, "/openapi.json")).Servers; len(s) != 1 || s[0].URL != load(openapi.YAML).Servers[0].URL {
		t.Errorf("without a public URL /openapi.json servers %+v, want the spec's templated one", s)
	}

	e := newEnv(t, func(d *apiserver.Deps) { d.PublicURL = public })
	served := load(read(e, "/openapi.yaml"))
	if len(served.Servers) != 1 || served.Servers[0].URL != public {
		t.Fatalf("/openapi.yaml servers %+v, want %s", served.Servers, public)
	}
	var js struct {
		Servers []struct{ URL string } `json:"servers"`
	}
	if err := json.Unmarshal(read(e, "/openapi.json"), &js); err != nil || len(js.Servers) != 1 || js.Servers[0].URL != public {
		t.Fatalf("/openapi.json servers %+v %v, want %s", js.Servers, err, public)
	}
	// Nothing but the servers differs from the spec.
	written := load(openapi.YAML)
	served.Servers, written.Servers = nil, nil
	a, _ := json.Marshal(served)
	b, _ := json.Marshal(written)
	if !bytes.Equal(a, b) {
		t.Error("the served /openapi.yaml differs from the spec beyond its servers")
	}
}

func TestCheckPublicURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "https://api.example.com", "http://127.0.0.1:8080", "https://example.com/doceval"} {
		if err := apiserver.CheckPublicURL(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"api.example.com", "ftp://example.com", "https://", "https://example.com/?a=1", "https://u:p@example.com", "://x"} {
		if err := apiserver.CheckPublicURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fetch GETs url without a key: its status, content type and body.
func fetch(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), b
}
