package httpx

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
)

// Authenticator resolves a key hash to a credential (store.Store implements it).
type Authenticator interface {
	Authenticate(ctx context.Context, keyHash []byte) (store.Credential, error)
}

var errInvalidKey = apierr.New(http.StatusUnauthorized, apierr.InvalidAPIKey,
	"missing, malformed or revoked API key; send Authorization: Bearer <API_KEY>")

// Authenticate requires a valid bearer key (bearerAuth): 401 invalid_api_key for a
// missing, malformed or revoked key, 403 api_client_disabled for a disabled client. The
// principal is put in the request context for permission checks and tenant scoping.
func Authenticate(a Authenticator) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			token, ok := auth.BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
			if !ok || !auth.WellFormed(token) {
				return errInvalidKey
			}
			req := c.Request()
			cred, err := a.Authenticate(req.Context(), auth.HashKey(token))
			switch {
			case errors.Is(err, store.ErrNotFound):
				return errInvalidKey
			case err != nil:
				return err
			case cred.Disabled:
				return apierr.New(http.StatusForbidden, apierr.APIClientDisabled, "this API client is disabled")
			}
			c.SetRequest(req.WithContext(auth.WithPrincipal(req.Context(), cred.Principal)))
			return next(c)
		}
	}
}

// Principal returns the authenticated client of a request context. Handlers run only
// behind Authenticate, so its absence is a wiring error and answers 500.
func Principal(ctx context.Context) (auth.Principal, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return auth.Principal{}, errors.New("no authenticated principal in request context")
	}
	return p, nil
}
