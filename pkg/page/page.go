// Package page implements the list rules (the spec's Limit and Cursor parameters): limit 1..100
// (default 50, larger values clamped), opaque keyset cursors, next_cursor null on the
// last page.
package page

import (
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/keyset"
)

const (
	// DefaultLimit is the page size when limit is omitted.
	DefaultLimit = 50
	// MaxLimit is the largest page; larger limits are clamped to it.
	MaxLimit = 100
)

// Limit applies the limit rules. Below 1 is refused (the contract validator refuses it
// first; this keeps the rule true for any caller).
func Limit(requested *int) (int, error) {
	switch {
	case requested == nil:
		return DefaultLimit, nil
	case *requested < 1:
		return 0, apierr.Field("limit", "limit must be an integer from 1 to 100")
	case *requested > MaxLimit:
		return MaxLimit, nil
	}
	return *requested, nil
}

// Cursor is the keyset position after which the next page starts (keyset.Position):
// lists are ordered newest first by (created_at, id).
type Cursor = keyset.Position

// Decode reads a cursor; nil or empty means the first page. A cursor that does not
// decode is 422 invalid_field with param cursor.
func Decode(s *string) (*Cursor, error) {
	if s == nil || *s == "" {
		return nil, nil
	}
	c, ok := keyset.Parse(*s)
	if !ok {
		return nil, apierr.Field("cursor", "cursor is not a value returned as next_cursor by this list")
	}
	return &c, nil
}

// Trim takes rows fetched with limit+1 and returns the page and its next cursor: nil
// when there is no further row.
func Trim[T any](rows []T, limit int, key func(T) Cursor) ([]T, *string) {
	if len(rows) <= limit {
		return rows, nil
	}
	rows = rows[:limit]
	next := key(rows[len(rows)-1]).Encode()
	return rows, &next
}
