package store

import "context"

// Resealer is secretbox.Box.Reseal: it opens sealed with any key of the ring and seals
// it again with the newest, reporting whether the value changed.
type Resealer func(sealed, owner []byte) ([]byte, bool, error)

// resealPageSize is how many rows one transaction of a reseal reads.
const resealPageSize = 200

// resealPages runs a reseal over one kind of secret page by page, each page in a
// transaction of its own so a large table is never locked whole, and records one
// secrets.reencrypt audit entry for kind when every page is done. page reseals the
// rows after cursor (at most resealPageSize) and returns how many rows it read, the
// last one's cursor and how many values it sealed anew. It returns the values sealed
// anew.
func resealPages[C any](ctx context.Context, s *Store, kind string,
	page func(ctx context.Context, tx *Tx, after C) (rows int, last C, changed int, err error)) (int, error) {
	var after C
	changed := 0
	for {
		var rows, pageChanged int
		var last C
		err := s.InTx(ctx, func(tx *Tx) error {
			var err error
			rows, last, pageChanged, err = page(ctx, tx, after)
			return err
		})
		if err != nil {
			return changed, err
		}
		changed, after = changed+pageChanged, last
		if rows < resealPageSize {
			return changed, s.InTx(ctx, func(tx *Tx) error {
				return tx.audit(ctx, "secrets.reencrypt", kind, "", map[string]any{"resealed": changed})
			})
		}
	}
}

// resealOptional reseals a value that may be absent (nil stays nil, unchanged).
func resealOptional(reseal Resealer, sealed, owner []byte) ([]byte, bool, error) {
	if sealed == nil {
		return nil, false, nil
	}
	return reseal(sealed, owner)
}

// lastOf is the cursor of a page's last row, or after when the page is empty.
func lastOf[R, C any](rows []R, after C, cursorOf func(R) C) C {
	if len(rows) == 0 {
		return after
	}
	return cursorOf(rows[len(rows)-1])
}
