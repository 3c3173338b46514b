package ingest_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/ingest"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
)

// put stores an object.
func (e *env) put(key string, body []byte) {
	e.t.Helper()
	w, err := e.blobs.Writer(context.Background(), key, "application/octet-stream")
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil || w.Close() != nil {
		e.t.Fatalf("store %s: %v", key, err)
	}
}

// age makes a stored object look written d ago (the file store's time is the file's).
func (e *env) age(key string, d time.Duration) {
	e.t.Helper()
	then := time.Now().Add(-d)
	if err := os.Chtimes(filepath.Join(e.blobDir, filepath.FromSlash(key)), then, then); err != nil {
		e.t.Fatal(err)
	}
}

// stored lists the objects under prefix.
func (e *env) stored(prefix string) []string {
	e.t.Helper()
	var keys []string
	if err := e.blobs.List(context.Background(), prefix, func(o blob.Object) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return keys
}

// A submission whose purge message was lost is purged once the reconciler enqueues its
// job again: its rows and stored objects end up gone, and the purge metrics show it
// waiting until then.
func TestLostPurgeIsReconciled(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))
	prefix := blobkey.Submission(e.sub.ClientID, e.sub.ID)
	e.put(blobkey.RenderedPages(e.sub.ClientID, e.sub.ID, id)+"1-110.png", []byte("png"))
	if err := e.tenant.DeleteSubmission(ctx, e.sub.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Pool().Exec(ctx, "DELETE FROM outbox WHERE subject = $1", jobs.PurgeSubject); err != nil {
		t.Fatal(err) // the purge message is lost before it reached JetStream
	}
	reg := prometheus.NewRegistry()
	ingest.NewMetrics(reg, e.st)
	if n, _ := metricstest.Value(t, reg, "doceval_purges_pending"); n != 1 {
		t.Errorf("doceval_purges_pending %v, want 1", n)
	}
	if age, ok := metricstest.Value(t, reg, "doceval_purges_pending_oldest_seconds"); !ok || age < 0 {
		t.Errorf("doceval_purges_pending_oldest_seconds %v (%v)", age, ok)
	}

	e.worker(cfg) // its own reconciler waits for purges older than ten minutes
	again := e.reconcileOne("purge", (*ingest.Worker).ReconcilePurgesOnce)
	deadline := time.Now().Add(30 * time.Second)
	for e.count("SELECT count(*) FROM submissions WHERE id = $1", e.sub.ID) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("submission not purged after reconciling")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := e.count("SELECT count(*) FROM uploads") + e.count("SELECT count(*) FROM upload_pages") + e.count("SELECT count(*) FROM document_slots"); n != 0 {
		t.Errorf("%d rows left", n)
	}
	if left := e.stored(prefix); len(left) != 0 {
		t.Errorf("objects left: %v", left)
	}
	if n, _ := metricstest.Value(t, reg, "doceval_purges_pending"); n != 0 {
		t.Errorf("doceval_purges_pending %v after the purge", n)
	}
	if n := again(); n != 0 {
		t.Errorf("a finished purge was enqueued again (%d)", n)
	}
}

// The sweep removes objects no row references once they are older than the grace age
// (bytes whose upload never committed, a page rendered after its upload was deleted, a
// deleted upload's bytes whose blob-delete job was lost), and leaves referenced objects
// whatever their age, young orphans (an upload still being received) and objects
// outside doceval's prefix.
func TestSweepRemovesOrphans(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const grace = time.Hour
	prefix := blobkey.Submission(e.sub.ClientID, e.sub.ID)
	live := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung"))
	u, err := e.tenant.Upload(ctx, e.sub.ID, live)
	if err != nil {
		t.Fatal(err)
	}
	livePage := blobkey.RenderedPages(e.sub.ClientID, e.sub.ID, live) + "1-110.png"
	e.put(livePage, []byte("png"))

	deleted := e.upload("statement", extract.PDF, textPDF("Kontoauszug"))
	d, err := e.tenant.Upload(ctx, e.sub.ID, deleted)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.tenant.DeleteUpload(ctx, e.sub.ID, deleted); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Pool().Exec(ctx, "DELETE FROM outbox WHERE subject = $1", jobs.BlobDeleteSubject); err != nil {
		t.Fatal(err) // the blob-delete message is lost
	}
	deletedPage := blobkey.RenderedPages(e.sub.ClientID, e.sub.ID, deleted) + "1-110.png"
	e.put(deletedPage, []byte("png")) // rendered after the delete
	uncommitted := prefix + "files/" + uuid.NewString()
	e.put(uncommitted, []byte("%PDF-"))
	young := prefix + "files/" + uuid.NewString()
	e.put(young, []byte("%PDF-"))
	purged := blobkey.Submission(e.sub.ClientID, uuid.New()) + "rendered/" + uuid.NewString() + "/1-110.png"
	e.put(purged, []byte("png")) // rendered after its submission's purge
	foreign := "backups/2026-01-01.tar"
	e.put(foreign, []byte("tar"))
	for _, key := range []string{u.BlobKey, livePage, d.BlobKey, deletedPage, uncommitted, purged, foreign} {
		e.age(key, grace+time.Minute)
	}
	e.age(young, grace-time.Minute)

	reg := prometheus.NewRegistry()
	w := &ingest.Worker{Store: e.st, Blobs: e.blobs, Log: slog.New(slog.DiscardHandler), Cfg: cfg, Metrics: ingest.NewMetrics(reg, nil)}
	// The first sweep only suspects them: an upload received for longer than the grace
	// may commit right after the listing.
	if n, err := w.SweepOnce(ctx, grace); err != nil || n != 0 {
		t.Fatalf("first sweep removed %d, %v; want 0", n, err)
	}
	n, err := w.SweepOnce(ctx, grace)
	if err != nil || n != 4 {
		t.Fatalf("swept %d, %v; want 4", n, err)
	}
	if removed, _ := metricstest.Value(t, reg, "doceval_orphan_objects_removed_total"); removed != 4 {
		t.Errorf("doceval_orphan_objects_removed_total %v, want 4", removed)
	}
	want := []string{foreign, u.BlobKey, livePage, young}
	slices.Sort(want)
	if got := e.stored(""); !slices.Equal(got, want) {
		t.Errorf("left %q,\nwant %q", got, want)
	}
	if n, err := w.SweepOnce(ctx, grace); err != nil || n != 0 {
		t.Errorf("second sweep removed %d, %v", n, err)
	}
}
