package apiserver_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The contract and its reference page are served without a key and without network:
// every asset the page loads comes from the binary.
func TestDocs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	get := func(path string) (int, string, string) {
		t.Helper()
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b)
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
