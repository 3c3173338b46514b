package store

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/blobkey"
)

// UnreferencedObjects returns those of keys (blob store keys) that no row references:
// neither an upload's stored bytes nor a page rendered from an existing upload (under
// its blobkey.RenderedPages). Whether such an object is safe to delete is the caller's
// judgement: bytes stored a moment ago may belong to an upload about to commit.
func (s *Store) UnreferencedObjects(ctx context.Context, keys []string) ([]string, error) {
	var ids []uuid.UUID
	for _, k := range keys {
		if id, ok := blobkey.RenderedUpload(k); ok {
			ids = append(ids, id)
		}
	}
	rows, err := s.queries(ctx).UploadsReferencingObjects(ctx, db.UploadsReferencingObjectsParams{BlobKeys: keys, Ids: ids})
	if err != nil {
		return nil, interpretError(err)
	}
	stored := make(map[string]bool, len(rows))
	renders := make(map[uuid.UUID]string, len(rows))
	for _, r := range rows {
		stored[r.BlobKey] = true
		renders[r.ID] = blobkey.RenderedPages(r.APIClientID, r.SubmissionID, r.ID)
	}
	var out []string
	for _, k := range keys {
		if stored[k] {
			continue
		}
		if id, ok := blobkey.RenderedUpload(k); ok && renders[id] != "" && strings.HasPrefix(k, renders[id]) {
			continue
		}
		out = append(out, k)
	}
	return out, nil
}
