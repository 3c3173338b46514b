package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// purgeFixture is a client's submission with one upload, on a store whose clock the
// test moves.
func purgeFixture(t *testing.T) (*store.Store, *clock.Fake, store.Tenant, submission.Submission, submission.Upload) {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	st := store.New(dbtest.New(t), store.WithClock(clk))
	c, _, _, err := st.CreateClient(ctx, "purge", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(c.ID)
	sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: "s", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	fileID := uuid.New()
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: sub.ID, ExternalFileID: "f", FileID: fileID, Filename: "f.pdf", ContentType: "application/pdf",
		Size: 1, SHA256: []byte{1}, BlobKey: blobkey.UploadFile(c.ID, sub.ID, fileID),
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, clk, tenant, sub, u
}

func purgeJobs(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE subject = $1", jobs.PurgeSubject).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A purge requested longer ago than the reconciler's age is an orphan until its job is
// enqueued again; replicas reconciling together enqueue it once, and not again before
// the age has passed anew. The figures behind the purge alert follow.
func TestPurgeReconcile(t *testing.T) {
	t.Parallel()
	st, clk, tenant, sub, _ := purgeFixture(t)
	ctx := context.Background()
	const age = 10 * time.Minute

	if pending, oldest, err := st.PurgeStats(ctx); err != nil || pending != 0 || oldest != 0 {
		t.Fatalf("no purge: %d pending, oldest %v, %v", pending, oldest, err)
	}
	if err := tenant.DeleteSubmission(ctx, sub.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, "DELETE FROM outbox WHERE subject = $1", jobs.PurgeSubject); err != nil {
		t.Fatal(err) // the purge message is lost
	}
	clk.Advance(age - time.Second)
	if ids, err := st.OrphanedPurges(ctx, age); err != nil || len(ids) != 0 {
		t.Fatalf("a young purge is an orphan: %v, %v", ids, err)
	}
	if done, err := st.RequeuePurge(ctx, sub.ID, age); err != nil || done {
		t.Fatalf("a young purge was enqueued again: %v, %v", done, err)
	}
	clk.Advance(2 * time.Second)
	if pending, oldest, err := st.PurgeStats(ctx); err != nil || pending != 1 || oldest != age+time.Second {
		t.Fatalf("one purge: %d pending, oldest %v, %v", pending, oldest, err)
	}
	if ids, err := st.OrphanedPurges(ctx, age); err != nil || !slices.Equal(ids, []uuid.UUID{sub.ID}) {
		t.Fatalf("orphans %v, %v; want the submission", ids, err)
	}
	var wg sync.WaitGroup
	done := make([]bool, 4)
	for i := range done {
		wg.Go(func() {
			var err error
			if done[i], err = st.RequeuePurge(ctx, sub.ID, age); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n, enqueued := purgeJobs(t, st), countTrue(done); n != 1 || enqueued != 1 {
		t.Fatalf("%d purge jobs enqueued by %v, want one", n, done)
	}
	if ids, _ := st.OrphanedPurges(ctx, age); len(ids) != 0 {
		t.Errorf("a purge just enqueued again is still an orphan: %v", ids)
	}
	clk.Advance(age + time.Second)
	if ids, _ := st.OrphanedPurges(ctx, age); len(ids) != 1 {
		t.Errorf("a purge enqueued again and lost again is no orphan: %v", ids)
	}
	if err := st.PurgeSubmission(ctx, sub.ID, noDelete, noDelete); err != nil {
		t.Fatal(err)
	}
	if ids, _ := st.OrphanedPurges(ctx, 0); len(ids) != 0 {
		t.Errorf("a finished purge is an orphan: %v", ids)
	}
	if done, err := st.RequeuePurge(ctx, sub.ID, 0); err != nil || done {
		t.Errorf("a finished purge was enqueued again: %v, %v", done, err)
	}
	if pending, _, _ := st.PurgeStats(ctx); pending != 0 {
		t.Errorf("%d purges pending after the purge", pending)
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func noDelete(context.Context, string) error { return nil }

// An object is referenced by the upload whose bytes it holds, or as a rendered page
// under an existing upload's blobkey.RenderedPages; everything else is unreferenced.
func TestUnreferencedObjects(t *testing.T) {
	t.Parallel()
	st, _, tenant, sub, u := purgeFixture(t)
	ctx := context.Background()
	rendered := blobkey.RenderedPages(sub.ClientID, sub.ID, u.ID)
	prefix := blobkey.Submission(sub.ClientID, sub.ID)
	other := uuid.New()
	keys := []string{
		u.BlobKey,
		rendered + "1-110.png",
		prefix + "files/" + uuid.NewString(), // bytes whose upload never committed
		prefix + "rendered/" + other.String() + "/1-110.png",                                      // a deleted upload's page
		blobkey.RenderedPages(uuid.New(), sub.ID, u.ID) + "1-110.png",                             // the upload's id under another client
		blobkey.Submission(sub.ClientID, uuid.New()) + "rendered/" + u.ID.String() + "/1-110.png", // under another submission
		prefix + "stray",
	}
	got, err := st.UnreferencedObjects(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if want := keys[2:]; !slices.Equal(got, want) {
		t.Errorf("unreferenced %q,\nwant %q", got, want)
	}
	if err := tenant.DeleteUpload(ctx, sub.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.UnreferencedObjects(ctx, keys[:2]); len(got) != 2 {
		t.Errorf("a deleted upload's bytes and pages are referenced: unreferenced %q", got)
	}
}
