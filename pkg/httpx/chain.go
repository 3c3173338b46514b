package httpx

import (
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Under applies middleware only to requests whose path starts with prefix, so the API's
// authentication and contract cover every /v1 path (known or not) and nothing else
// (/healthz, /readyz, /metrics).
func Under(prefix string, mws ...echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		chained := next
		for i := len(mws) - 1; i >= 0; i-- {
			chained = mws[i](chained)
		}
		return func(c echo.Context) error {
			if strings.HasPrefix(c.Request().URL.Path, prefix) {
				return chained(c)
			}
			return next(c)
		}
	}
}

// LimitJSONBody caps non-multipart request bodies at max bytes; reading past it fails
// with *http.MaxBytesError, which the error handler answers with 413. Multipart uploads
// are bounded by their own handler's limit.
func LimitJSONBody(max int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); mt != echo.MIMEMultipartForm && req.Body != nil {
				req.Body = http.MaxBytesReader(c.Response(), req.Body, max)
			}
			return next(c)
		}
	}
}
