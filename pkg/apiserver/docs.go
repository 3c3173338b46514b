package apiserver

import (
	"encoding/json"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/swaggest/swgui/v5emb"

	"github.com/doceval/doceval/openapi"
)

// mountDocs serves the contract: /openapi.yaml as written, /openapi.json, and an API
// reference at /docs rendered by Swagger UI, whose assets are embedded in the binary
// (swaggest/swgui), so the page works without network access. None of them needs a key:
// the contract is public.
func mountDocs(e *echo.Echo, doc *openapi3.T) error {
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	e.GET("/openapi.yaml", func(c echo.Context) error { return c.Blob(http.StatusOK, "application/yaml", openapi.YAML) })
	e.GET("/openapi.json", func(c echo.Context) error { return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, js) })
	ui := echo.WrapHandler(v5emb.New("doceval API", "/openapi.json", "/docs/"))
	e.GET("/docs", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/docs/") })
	e.GET("/docs/*", ui)
	return nil
}
