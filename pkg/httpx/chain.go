package httpx

import (
	"bufio"
	"io"
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

// bufferedBody reads an upload through a large buffer.
type bufferedBody struct {
	*bufio.Reader
	io.Closer
}
