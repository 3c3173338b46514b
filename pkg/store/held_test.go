package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// An enabling that comes while a worker is setting a job aside (it read the client
// disabled and has not committed yet) waits for it and then enqueues the job: a held
// job is never left without one.
func TestEnablingWaitsForAJobBeingSetAside(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	c, _, _, err := st.CreateClient(ctx, "held", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(c.ID)
	sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: "s", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: sub.ID, ExternalFileID: "f", FileID: uuid.New(), Filename: "f.pdf",
		ContentType: "application/pdf", Size: 1, SHA256: []byte{1}, BlobKey: "k/f",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetClientDisabled(ctx, c.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, "DELETE FROM outbox"); err != nil { // the job was taken and acknowledged
		t.Fatal(err)
	}

	read, enabled := make(chan struct{}), make(chan time.Time, 1)
	go func() {
		<-read
		if _, err := st.SetClientDisabled(ctx, c.ID, false); err != nil {
			t.Error(err)
		}
		enabled <- time.Now()
	}()
	var setAside time.Time
	err = st.InTx(ctx, func(tx *store.Tx) error {
		disabled, err := tx.ClientDisabled(ctx, c.ID)
		if err != nil || !disabled {
			t.Fatalf("disabled %v, %v", disabled, err)
		}
		select {
		case <-read: // InTx ran the function again
		default:
			close(read)
		}
		time.Sleep(300 * time.Millisecond) // the enabling starts meanwhile
		setAside = time.Now()
		return tx.Exec(ctx, "UPDATE uploads SET held_at = now() WHERE id = $1", u.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if at := <-enabled; at.Before(setAside) {
		t.Fatal("the enabling did not wait for the job being set aside")
	}
	var queued, held int
	if err := st.Pool().QueryRow(ctx, "SELECT count(*) FROM outbox WHERE starts_with(subject, $1)", jobs.QueueSubjectPrefix+jobs.IngestQueue).Scan(&queued); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, "SELECT count(*) FROM uploads WHERE id = $1 AND held_at IS NOT NULL", u.ID).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if queued != 1 || held != 0 {
		t.Errorf("after the enabling: %d ingest jobs enqueued, %d uploads still held; want the job enqueued", queued, held)
	}
}
