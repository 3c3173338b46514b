package sdk

import (
	"context"
	"fmt"
	"iter"
	"net/http"

	"github.com/doceval/doceval/gen/client"
)

// page is one answer of a list endpoint: every list has data and next_cursor, which is
// null on the last page.
type page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

// paginate yields every item of a list, fetching the next page only when the consumer
// asks for more, and follows next_cursor from start (nil: the first page) until it is
// null. An error is yielded once, with a nil item, and ends the sequence. Breaking out
// of the loop stops it cleanly: no further page is fetched.
// opts apply to every page's request.
func paginate[T any](ctx context.Context, start *string, opts []RequestOption, fetch func(ctx context.Context, cursor *string, editors ...client.RequestEditorFn) (*http.Response, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		cursor := start
		for {
			p, err := send[page[T]](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
				return fetch(ctx, cursor, editors...)
			})
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range p.Data {
				if !yield(&p.Data[i], nil) {
					return
				}
			}
			if p.NextCursor == nil || *p.NextCursor == "" {
				return
			}
			if cursor != nil && *p.NextCursor == *cursor { // would loop forever
				yield(nil, fmt.Errorf("doceval: list returned the same next_cursor %q again", *cursor))
				return
			}
			cursor = p.NextCursor
		}
	}
}
