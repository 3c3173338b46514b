package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/store"
)

// envelope is the error body (the spec's Error schema): { error: { code, message, param?, request_id } }.
type envelope struct {
	Error envelopeError `json:"error"`
}

type envelopeError struct {
	Code      apierr.Code `json:"code"`
	Message   string      `json:"message"`
	Param     string      `json:"param,omitempty"`
	RequestID string      `json:"request_id"`
}

// ErrorHandler is the one place every error becomes the error envelope: the edge's own
// errors (*apierr.Error), the domain's refusals (apierr.FromDomain), Echo's own
// 404/405/413, validator errors (already *apierr.Error), body-size errors and anything
// unexpected, which is logged and answered as 500 internal_error without detail.
func ErrorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		e := toAPIError(err)
		ctx := c.Request().Context()
		if e.Status >= 500 {
			log.ErrorContext(ctx, "request failed", "error", err, "method", c.Request().Method, "path", c.Path())
		}
		WriteError(c, e)
	}
}

// WriteError writes e as the error envelope.
func WriteError(c echo.Context, e *apierr.Error) {
	if e.RetryAfter > 0 {
		secs := int(math.Ceil(e.RetryAfter.Seconds()))
		c.Response().Header().Set("retry-after", strconv.Itoa(max(secs, 1)))
	}
	body := envelope{Error: envelopeError{
		Code: e.Code, Message: e.Message, Param: e.Param,
		RequestID: RequestIDFromContext(c.Request().Context()),
	}}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(e.Status)
		return
	}
	_ = c.JSON(e.Status, body)
}

func toAPIError(err error) *apierr.Error {
	if e, ok := apierr.As(err); ok {
		return e
	}
	if e, ok := apierr.FromDomain(err); ok {
		return e
	}
	if errors.Is(err, store.ErrNotFound) {
		// Missing, or another client's: the answer is the same.
		return apierr.NotFoundf("no such resource")
	}
	if errors.Is(err, http.ErrNotMultipart) || errors.Is(err, http.ErrMissingBoundary) {
		return apierr.BadRequest("uploads are multipart/form-data with a boundary: send external_file_id and file parts")
	}
	var maxBytes *http.MaxBytesError
	if errors.As(err, &maxBytes) {
		return apierr.New(http.StatusRequestEntityTooLarge, apierr.RequestTooLarge,
			fmt.Sprintf("the request body exceeds %d bytes", maxBytes.Limit))
	}
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typeErr) {
		return apierr.BadRequest("the request body is not valid JSON for this endpoint")
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return apierr.NotFoundf("no such resource or endpoint")
		case http.StatusMethodNotAllowed:
			return apierr.New(http.StatusMethodNotAllowed, apierr.MethodNotAllowed, "method not allowed on this endpoint")
		case http.StatusRequestEntityTooLarge:
			return apierr.New(http.StatusRequestEntityTooLarge, apierr.RequestTooLarge, "the request body is too large")
		case http.StatusUnsupportedMediaType, http.StatusBadRequest:
			return apierr.BadRequest(fmt.Sprint(he.Message))
		case http.StatusUnauthorized:
			return apierr.New(http.StatusUnauthorized, apierr.InvalidAPIKey, "missing, malformed or revoked API key")
		}
		if he.Code >= 400 && he.Code < 500 {
			return apierr.BadRequest(fmt.Sprint(he.Message))
		}
	}
	if store.Unavailable(err) || errors.Is(err, context.Canceled) {
		// The database is out of reach, or the request was given up (the client left,
		// or the server is stopping): retryable either way, never a 500.
		return apierr.Unavailable()
	}
	return apierr.Internal()
}
