// Package auth holds API keys, permissions and the authenticated principal.
package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Permission names one right of an API client (the spec's x-doceval-permission of each operation).
// Reads of a family need its :read permission; every write needs :write.
type Permission string

// All permissions a client can hold. A new client holds all of them unless told otherwise.
var AllPermissions = []Permission{
	"templates:read", "templates:write",
	"catalog:read", "catalog:write",
	"submissions:read", "submissions:write",
	"files:read", "files:write",
	"evaluations:read", "evaluations:write",
	"events:read", "events:write",
	"webhooks:read", "webhooks:write",
}

// IsKnown reports whether p is one of AllPermissions.
func (p Permission) IsKnown() bool { return slices.Contains(AllPermissions, p) }

// ParsePermissions reads the operator's form: "all", or a comma-separated list.
func ParsePermissions(s string) ([]Permission, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return slices.Clone(AllPermissions), nil
	}
	var out []Permission
	for _, part := range strings.Split(s, ",") {
		p := Permission(strings.TrimSpace(part))
		if !p.IsKnown() {
			return nil, fmt.Errorf("unknown permission %q (known: %s)", p, strings.Join(Strings(AllPermissions), " "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Strings converts permissions to their names.
func Strings(ps []Permission) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// FromStrings converts stored names back; unknown names are kept (they grant nothing).
func FromStrings(ss []string) []Permission {
	out := make([]Permission, len(ss))
	for i, s := range ss {
		out[i] = Permission(s)
	}
	return out
}
