// Package httpx holds the API's cross-cutting HTTP behaviour: request ids, the error
// envelope, authentication, permissions, rate limiting, request validation against the
// embedded OpenAPI document, pagination and metrics.
package httpx

import (
	"context"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// HeaderRequestID is sent on every response and equals error.request_id.
const HeaderRequestID = "x-request-id"

type requestIDKey struct{}

// acceptedRequestID is what an incoming x-request-id must look like to be kept, so a
// caller's own correlation id flows through; anything else is replaced.
var acceptedRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{8,128}$`)

// RequestIDFromContext returns the request id of the request ctx belongs to.
func RequestIDFromContext(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// RequestID gives every request an id, stores it in the request context and sets it on
// the response just before the status line is written, so no handler, generated
// response writer or error path can send a response without it or with another value.
func RequestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(HeaderRequestID)
			if !acceptedRequestID.MatchString(id) {
				id = "req_" + strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")
			}
			req := c.Request()
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestIDKey{}, id)))
			res := c.Response()
			res.Header().Set(HeaderRequestID, id)
			res.Before(func() { res.Header().Set(HeaderRequestID, id) })
			return next(c)
		}
	}
}
