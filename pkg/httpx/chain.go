package httpx

import (
	"bufio"
	"io"
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
				if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); mt == echo.MIMEMultipartForm {
					// The multipart parser reads 4 KiB at a time; a large buffer in front
					// of the connection turns that into few, large socket reads.
					limited := http.MaxBytesReader(c.Response(), req.Body, multipartMax)
					req.Body = bufferedBody{Reader: bufio.NewReaderSize(limited, 256<<10), Closer: limited}
				} else {
					req.Body = http.MaxBytesReader(c.Response(), req.Body, jsonMax)
				}
			}
			return next(c)
		}
	}
}

type bufferedBody struct {
	*bufio.Reader
	io.Closer
}
