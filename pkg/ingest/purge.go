package ingest

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/service"
)

// purgeReconcileAfter is how long a requested purge may wait before the reconciler
// looks at it: longer than the purge consumer's AckWait, so a purge in work is never
// doubled, and well within the hour after which the chart's alert fires.
const purgeReconcileAfter = 10 * time.Minute

// ReconcilePurgesOnce re-enqueues the purge jobs of submissions whose purge was
// requested (or last enqueued again) longer than age ago, when none can still be in
// flight (service.LostJobs). It returns how many it enqueued.
//
// Blob-delete jobs (jobs.BlobDeleteJob) need no such reconciler: they are enqueued
// with the delete of the row that named the object, so no row is left to find them by;
// an object whose job was lost is one no row references, and Sweep removes it.
func (w *Worker) ReconcilePurgesOnce(ctx context.Context, js jetstream.JetStream, age time.Duration) (int, error) {
	return service.LostJobs{
		Subject: jobs.PurgeSubject, Durable: "purge",
		Orphans: func(ctx context.Context) ([]uuid.UUID, error) { return w.Store.OrphanedPurges(ctx, age) },
		Requeue: func(ctx context.Context, id uuid.UUID) (bool, error) { return w.Store.RequeuePurge(ctx, id, age) },
		Log:     w.Log, LogKey: "submission_id",
	}.Reconcile(ctx, w.Store, js)
}
