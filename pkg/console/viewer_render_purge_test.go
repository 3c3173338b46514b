package console

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// A page whose render ends after its submission was purged, or its upload deleted, is
// not left behind: the purge's removal of the rendered pages may run while pdftoppm
// works on a copy of the PDF, and the page written afterwards would belong to no row.
func TestRenderRacingAPurgeLeavesNothing(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm is not installed")
	}
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	blobs, err := blob.Open(ctx, blob.FileURL(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	c, _, _, err := st.CreateClient(ctx, "render-race", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(c.ID)
	pdf := samplepdf.Text([][]string{{"Kontoauszug", "Saldo 1.000,00 EUR"}})
	put := func(key string) {
		t.Helper()
		w, err := blobs.Writer(ctx, key, "application/pdf")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(pdf); err != nil || w.Close() != nil {
			t.Fatalf("store %s: %v", key, err)
		}
	}
	// upload makes a submission with one stored PDF. The render reads its bytes from
	// held, a copy outside the submission: what pdftoppm holds while the purge runs.
	upload := func(external string) (v viewedPage, held string) {
		t.Helper()
		sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: external, Metadata: []byte("{}"), Language: "de"})
		if err != nil {
			t.Fatal(err)
		}
		fileID := uuid.New()
		key := blobkey.UploadFile(c.ID, sub.ID, fileID)
		put(key)
		u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
			SubmissionID: sub.ID, ExternalFileID: "f1", FileID: fileID, Filename: "konto.pdf",
			ContentType: "application/pdf", Size: int64(len(pdf)), SHA256: []byte{1}, BlobKey: key,
		})
		if err != nil {
			t.Fatal(err)
		}
		held = "held/" + u.ID.String() + ".pdf"
		put(held)
		return viewedPage{client: c.ID, submission: sub.ID, upload: u.ID, page: 1}, held
	}
	stored := func(v viewedPage) []string {
		t.Helper()
		var keys []string
		if err := blobs.List(ctx, blobkey.Submission(c.ID, v.submission), func(o blob.Object) error {
			keys = append(keys, o.Key)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return keys
	}
	purge := func(v viewedPage) {
		t.Helper()
		if err := st.PurgeSubmission(ctx, v.submission, blobs.Delete, blobs.DeletePrefix); err != nil {
			t.Fatal(err)
		}
	}
	p := newPageRenderer(blobs, Settings{RenderDPI: 60})
	p.st = st

	t.Run("purged before the page is written", func(t *testing.T) {
		v, held := upload("purged")
		if err := tenant.DeleteSubmission(ctx, v.submission); err != nil {
			t.Fatal(err)
		}
		purge(v)
		if _, _, err := p.page(ctx, v, held); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("render of a purged upload: %v, want not found", err)
		}
		if left := stored(v); len(left) != 0 {
			t.Errorf("left behind: %v", left)
		}
	})
	t.Run("purge requested before the page is written", func(t *testing.T) {
		v, held := upload("purging")
		if err := tenant.DeleteSubmission(ctx, v.submission); err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.page(ctx, v, held); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("render of an upload being purged: %v, want not found", err)
		}
		purge(v)
		if left := stored(v); len(left) != 0 {
			t.Errorf("left behind: %v", left)
		}
	})
	t.Run("upload deleted before the page is written", func(t *testing.T) {
		v, held := upload("deleted")
		if err := tenant.DeleteUpload(ctx, v.submission, v.upload); err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.page(ctx, v, held); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("render of a deleted upload: %v, want not found", err)
		}
		if ok, _ := blobs.Exists(ctx, renderedKey(v, p.dpi)); ok {
			t.Error("the page of a deleted upload was cached")
		}
	})
	t.Run("a live upload's page stays cached", func(t *testing.T) {
		v, held := upload("live")
		png, cacheErr, err := p.page(ctx, v, held)
		if err != nil || cacheErr != nil || len(png) == 0 {
			t.Fatalf("render: %d bytes, %v, %v", len(png), cacheErr, err)
		}
		if ok, _ := blobs.Exists(ctx, renderedKey(v, p.dpi)); !ok {
			t.Error("a live upload's page was not cached")
		}
	})
}
