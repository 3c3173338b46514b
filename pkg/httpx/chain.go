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

// LimitBody caps request bodies: JSON (and anything not multipart) at jsonMax bytes,
// multipart uploads at multipartMax. Reading past the cap fails with
// *http.MaxBytesError, which answers 413; the upload handler checks the file's own
// limit first, so an upload over it is 413 file_too_large.
func LimitBody(jsonMax, multipartMax int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Body != nil {
				limit := jsonMax
				if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); mt == echo.MIMEMultipartForm {
					limit = multipartMax
				}
				req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			}
			return next(c)
		}
	}
}
