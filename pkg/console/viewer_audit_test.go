package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/store"
)

// viewEntries are the document.view entries of the audit log, oldest first.
func viewEntries(t *testing.T, st *store.Store) []store.AuditEntry {
	t.Helper()
	action := "document.view"
	entries, err := st.AuditLog(context.Background(), store.AuditFilter{Action: &action, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
		entries[i], entries[j] = entries[j], entries[i]
	}
	return entries
}

// Opening an applicant's document in the viewer leaves one audit entry per page load
// (who, which upload of which submission, which page), and the page's image fetched
// within that view adds none; an image fetched on its own is recorded once.
func TestDocumentViewsAudited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client("Broker")
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 20, 20))); err != nil {
		t.Fatal(err)
	}
	doc := b.viewerUpload(c.ID, "payslip.png", extract.PNG, buf.Bytes(), textPages("Gehaltsabrechnung"))
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	br.signIn("advisor@example.com", pw)
	if got := viewEntries(t, b.st); len(got) != 0 {
		t.Fatalf("entries before any view: %+v", got)
	}
	viewer := "/uploads/" + doc.upload.ID.String() + "/pages/1"
	if p := br.get(viewer); p.status != http.StatusOK {
		t.Fatalf("viewer: %d", p.status)
	}
	for range 3 {
		if res, _ := br.image(viewer + "/image"); res.StatusCode != http.StatusOK {
			t.Fatalf("image: %d", res.StatusCode)
		}
	}
	got := viewEntries(t, b.st)
	if len(got) != 1 {
		t.Fatalf("%d document.view entries after one view and its images, want 1: %+v", len(got), got)
	}
	e := got[0]
	var details struct {
		SubmissionID string `json:"submission_id"`
		Page         int    `json:"page"`
		Via          string `json:"via"`
	}
	if err := json.Unmarshal(e.Details, &details); err != nil {
		t.Fatal(err)
	}
	if e.Actor != "advisor@example.com" || e.OperatorID == nil || e.TargetType != "upload" || e.TargetID != doc.upload.ID.String() ||
		details.SubmissionID != doc.submission.String() || details.Page != 1 || details.Via != "page" || e.IP == "" || e.At.IsZero() {
		t.Fatalf("entry: %+v %+v", e, details)
	}
	// Loading the viewer again is another view.
	br.get(viewer)
	if got := viewEntries(t, b.st); len(got) != 2 {
		t.Fatalf("%d entries after a second view, want 2", len(got))
	}
	// Another session fetching only the image is recorded, once.
	other := b.browser()
	other.signIn("advisor@example.com", pw)
	other.image(viewer + "/image")
	other.image(viewer + "/image")
	got = viewEntries(t, b.st)
	if len(got) != 3 || !bytes.Contains(got[2].Details, []byte(`"via": "image"`)) {
		t.Fatalf("entries after a bare image fetch: %d %s", len(got), got[len(got)-1].Details)
	}
	// A document the operator may not see records nothing.
	limited := b.client("Other broker")
	hidden := b.viewerUpload(limited.ID, "x.png", extract.PNG, buf.Bytes(), textPages("x"))
	lpw := b.operator("limited@example.com", store.RoleAdvisor, []uuid.UUID{c.ID})
	lb := b.browser()
	lb.signIn("limited@example.com", lpw)
	if p := lb.get("/uploads/" + hidden.upload.ID.String() + "/pages/1"); p.status != http.StatusNotFound {
		t.Fatalf("another client's document: %d", p.status)
	}
	if got := viewEntries(t, b.st); len(got) != 3 {
		t.Fatalf("a refused view was recorded: %d entries", len(got))
	}
}
