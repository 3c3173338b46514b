package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/swaggest/swgui/v5emb"
	"go.yaml.in/yaml/v3"

	"github.com/doceval/doceval/openapi"
)

// mountDocs serves the contract: /openapi.yaml as written, /openapi.json, and an API
// reference at /docs rendered by Swagger UI, whose assets are embedded in the binary
// (swaggest/swgui), so the page works without network access. None of them needs a key:
// the contract is public. With a public URL (DOCEVAL_PUBLIC_URL) both documents name it
// as their one server, so generated clients and the reference page call this deployment;
// without one they keep the spec's templated server.
func mountDocs(e *echo.Echo, doc *openapi3.T, publicURL string) error {
	spec := openapi.YAML
	if publicURL != "" {
		var err error
		if spec, err = withServer(spec, publicURL); err != nil {
			return err
		}
		served := *doc
		served.Servers = openapi3.Servers{{URL: publicURL, Description: publicServerDescription}}
		doc = &served
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	e.GET("/openapi.yaml", func(c echo.Context) error { return c.Blob(http.StatusOK, "application/yaml", spec) })
	e.GET("/openapi.json", func(c echo.Context) error { return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, js) })
	ui := echo.WrapHandler(v5emb.New("doceval API", "/openapi.json", "/docs/"))
	e.GET("/docs", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/docs/") })
	e.GET("/docs/*", ui)
	return nil
}

const publicServerDescription = "This deployment (DOCEVAL_PUBLIC_URL)."

// CheckPublicURL refuses a DOCEVAL_PUBLIC_URL that is not an absolute http(s) URL
// without query or fragment: the documents would send clients somewhere else.
func CheckPublicURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is not an http(s) base URL such as https://api.example.com", s)
	}
	return nil
}

// withServer is spec with its top-level servers list replaced by one entry for
// publicURL; every other line stays as written (the servers block's lines are found
// with go.yaml.in/yaml/v3's node positions and spliced).
func withServer(spec []byte, publicURL string) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(spec, &root); err != nil {
		return nil, err
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("openapi.yaml: not a mapping")
	}
	top := root.Content[0].Content
	start, end := -1, -1 // the servers key's line and the next top-level key's, 1-based
	for i := 0; i+1 < len(top); i += 2 {
		if start >= 0 {
			end = top[i].Line
			break
		}
		if top[i].Value == "servers" {
			start = top[i].Line
		}
	}
	if start < 0 || end < 0 {
		return nil, errors.New("openapi.yaml: no top-level servers followed by another key")
	}
	block, err := yaml.Marshal(map[string]any{
		"servers": []map[string]string{{"url": publicURL, "description": publicServerDescription}},
	})
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(spec), "\n")
	var out bytes.Buffer
	out.WriteString(strings.Join(lines[:start-1], ""))
	out.Write(block)
	out.WriteString(strings.Join(lines[end-1:], ""))
	return out.Bytes(), nil
}
