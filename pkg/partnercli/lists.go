package partnercli

import "iter"

// collect drains one of the SDK's list iterators, stopping after limit items (0: all).
// The iterator fetches pages on demand, so stopping early also stops the paging.
func collect[T any](items iter.Seq2[*T, error], limit int) ([]*T, error) {
	out := []*T{} // an empty list prints as [], not null
	for item, err := range items {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// pageSize asks for no bigger pages than --limit needs (the API clamps at 100).
func pageSize(limit int) *int {
	if limit <= 0 || limit >= 100 {
		return nil
	}
	return &limit
}
