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
// Requests that do not authenticate count against their source's InvalidKeyLimiter
// (nil: none), which answers 429 rate_limited before the key is looked up.
func Authenticate(a Authenticator, limit *InvalidKeyLimiter) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			source := c.RealIP()
			token, ok := auth.BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
			if !ok || !auth.WellFormed(token) {
				if err := limit.Refuse(source, nil); err != nil {
					return err
				}
				limit.Failed(source)
				return errInvalidKey
			}
			hash := auth.HashKey(token)
			if err := limit.Refuse(source, hash); err != nil {
				return err
			}
			req := c.Request()
			cred, err := a.Authenticate(req.Context(), hash)
			switch {
			case errors.Is(err, store.ErrNotFound):
				limit.Failed(source)
				return errInvalidKey
			case err != nil:
				return err
			case cred.Disabled:
				limit.Failed(source)
				return apierr.New(http.StatusForbidden, apierr.APIClientDisabled, "this API client is disabled")
			}
			limit.Succeeded(hash)
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
