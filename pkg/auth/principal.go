package auth

import (
	"context"
	"slices"

	"github.com/google/uuid"
)

// Principal is the authenticated API client of a request.
type Principal struct {
	ClientID    uuid.UUID
	KeyID       uuid.UUID
	Permissions []Permission
}

// Can reports whether the principal holds permission p.
func (p Principal) Can(perm Permission) bool { return slices.Contains(p.Permissions, perm) }

type principalKey struct{}

// WithPrincipal stores the principal in ctx.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal of an authenticated request. Handlers run only
// after authentication, so a missing principal is a wiring bug.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
