package sdktest

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// list is the answer of a list operation.
type list[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

// paginate cuts one page out of items by the request's limit and cursor, with the
// service's rules: limit default 50, clamped to 100, below 1 or not a number is 422
// invalid_field (param limit); a cursor that does not decode is 422 (param cursor). The
// fake's cursors are positions in the list, opaque like the service's.
func paginate[T any](c *call, items []T) (list[T], error) {
	limit, err := limitParam(c)
	if err != nil {
		return list[T]{}, err
	}
	start := 0
	if cursor := c.r.URL.Query().Get("cursor"); cursor != "" {
		if start, err = decodePosition(cursor); err != nil || start > len(items) {
			return list[T]{}, invalidField("cursor", "the cursor does not decode")
		}
	}
	end := min(start+limit, len(items))
	page := list[T]{Data: append([]T{}, items[start:end]...)}
	if end < len(items) {
		next := encodePosition(end)
		page.NextCursor = &next
	}
	return page, nil
}

func limitParam(c *call) (int, error) {
	v := c.r.URL.Query().Get("limit")
	if v == "" {
		return 50, nil
	}
	limit, err := strconv.Atoi(v)
	if err != nil || limit < 1 {
		return 0, invalidField("limit", "limit must be an integer of at least 1")
	}
	return min(limit, 100), nil
}

func encodePosition(n int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("sdktest:" + strconv.Itoa(n)))
}

func decodePosition(cursor string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, err
	}
	rest, ok := strings.CutPrefix(string(b), "sdktest:")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 0 {
		return 0, strconv.ErrSyntax
	}
	return n, nil
}
