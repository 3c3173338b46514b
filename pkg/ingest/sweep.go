package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/service"
)

// The orphan sweep removes stored objects no row references: bytes whose upload never
// committed (a crash between storing them and the commit), pages the console rendered
// while their upload was being deleted or purged, and objects whose blob-delete or purge
// job failed to remove them. It runs every sweepEvery on every replica (deletes are
// idempotent) and spares objects younger than sweepGrace, which may belong to an upload
// still being received or about to commit (S3 dates a multipart object from the start
// of its upload; a bounded upload takes far less than the grace). Only keys under
// blobkey.Root are judged: objects elsewhere in a shared bucket are not doceval's.
const (
	sweepEvery = time.Hour
	sweepGrace = time.Hour
	// sweepBatch is how many listed objects are looked up in the database at once.
	sweepBatch = 500
)

// Sweep runs SweepOnce every sweepEvery until ctx is done, the first time after a random
// part of the interval, so replicas started together (a scale-up) do not all list the
// store at once.
func (w *Worker) Sweep(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(rand.N(sweepEvery)):
	}
	return service.Every(ctx, sweepEvery, func(ctx context.Context) {
		n, err := w.SweepOnce(ctx, sweepGrace)
		if err != nil && ctx.Err() == nil {
			w.Log.WarnContext(ctx, "sweep orphaned objects", "error", err, "removed", n)
		}
	})
}

// SweepOnce removes the stored objects under blobkey.Root that were last written
// more than grace ago and that no row referenced on this sweep nor on the previous one
// of this worker: an object found unreferenced is only a suspect until the next sweep,
// so bytes whose upload was received for longer than the grace and commits right after
// the listing are not lost. It returns how many it removed.
func (w *Worker) SweepOnce(ctx context.Context, grace time.Duration) (int, error) {
	w.suspectsMu.Lock()
	defer w.suspectsMu.Unlock()
	before := w.Store.Now().Add(-grace)
	removed := 0
	suspects := map[string]bool{}
	var batch []string
	flush := func() error {
		orphans, err := w.Store.UnreferencedObjects(ctx, batch)
		batch = batch[:0]
		if err != nil {
			return err
		}
		for _, key := range orphans {
			if !w.suspects[key] {
				suspects[key] = true
				continue
			}
			if err := w.Blobs.Delete(ctx, key); err != nil {
				return fmt.Errorf("delete %s: %w", key, err)
			}
			removed++
			w.Metrics.countOrphans(1)
			w.Log.InfoContext(ctx, "orphaned object removed", "blob_key", key)
		}
		return nil
	}
	err := w.Blobs.List(ctx, blobkey.Root, func(obj blob.Object) error {
		if !obj.ModTime.Before(before) {
			return nil
		}
		batch = append(batch, obj.Key)
		if len(batch) < sweepBatch {
			return nil
		}
		return flush()
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if err == nil {
		w.suspects = suspects
	}
	return removed, err
}
