package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// viewerUpload is an upload of a fresh submission of the client's, its bytes in the blob
// store and, unless pages is nil, processed into those pages.
type viewerUpload struct {
	client     uuid.UUID
	submission uuid.UUID
	upload     submission.Upload
}

func (b *testBundle) viewerUpload(client uuid.UUID, filename, contentType string, content []byte, pages []document.Page) viewerUpload {
	b.t.Helper()
	ctx := context.Background()
	tenant := b.st.Tenant(client)
	sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: uuid.NewString(), Metadata: []byte(`{}`), Language: "de"})
	if err != nil {
		b.t.Fatal(err)
	}
	d, err := tenant.Submission(ctx, sub.ID)
	if err != nil {
		b.t.Fatal(err)
	}
	slot := d.Slots[0].ID
	fileID := uuid.New()
	key := blobkey.UploadFile(client, sub.ID, fileID)
	b.putBlob(key, content)
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: sub.ID, SlotID: &slot, ExternalFileID: fileID.String(), FileID: fileID, Filename: filename,
		ContentType: contentType, Size: int64(len(content)), SHA256: []byte{1}, BlobKey: key,
	})
	if err != nil {
		b.t.Fatal(err)
	}
	if pages != nil {
		if err := b.st.FinishIngest(ctx, u.ID, pages, nil, nil); err != nil {
			b.t.Fatal(err)
		}
	}
	return viewerUpload{client: client, submission: sub.ID, upload: u}
}

// evaluate completes an evaluation of the submission with the result.
func (b *testBundle) evaluate(client, submission uuid.UUID, result engine.Result) uuid.UUID {
	b.t.Helper()
	ctx := context.Background()
	e, err := b.st.Tenant(client).StartEvaluation(ctx, submission)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.st.BeginEvaluation(ctx, e.ID, 3); err != nil {
		b.t.Fatal(err)
	}
	raw, err := json.Marshal(result)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := b.st.CompleteEvaluation(ctx, e.ID, raw); err != nil {
		b.t.Fatal(err)
	}
	return e.ID
}

func (b *testBundle) blobExists(key string) bool {
	b.t.Helper()
	ok, err := b.blobs.Exists(context.Background(), key)
	if err != nil {
		b.t.Fatal(err)
	}
	return ok
}

func (b *testBundle) putBlob(key string, content []byte) {
	b.t.Helper()
	w, err := b.blobs.Writer(context.Background(), key, "")
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := w.Write(content); err != nil {
		b.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.t.Fatal(err)
	}
}

// image fetches a page image with its headers.
func (br *browser) image(path string) (*http.Response, []byte) {
	br.t.Helper()
	req, err := http.NewRequest(http.MethodGet, br.base+path, nil)
	if err != nil {
		br.t.Fatal(err)
	}
	res, err := br.c.Do(req)
	if err != nil {
		br.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

func needPoppler(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

func textPages(texts ...string) []document.Page {
	out := make([]document.Page, len(texts))
	for i, s := range texts {
		out[i] = document.Page{Number: i + 1, Text: s, Chars: len(s)}
	}
	return out
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func TestViewerRendersPDFPages(t *testing.T) {
	t.Parallel()
	needPoppler(t)
	b := setup(t)
	c := b.client("Broker")
	pdf := samplepdf.Text([][]string{{"Gehaltsabrechnung Januar 2026", "Nettobezug 3.250,00 EUR"}, {"Seite zwei"}})
	v := b.viewerUpload(c.ID, "payslip.pdf", extract.PDF, pdf, textPages("Gehaltsabrechnung Januar 2026\nNettobezug 3.250,00 EUR", "Seite zwei"))
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	br.signIn("advisor@example.com", pw)
	base := "/uploads/" + v.upload.ID.String() + "/pages/"

	p := br.get(base + "1")
	if p.status != http.StatusOK {
		t.Fatalf("viewer: %d %.300s", p.status, p.body)
	}
	for _, want := range []string{
		`<img id="page-image" src="` + base + `1/image"`, `alt="Page 1 of 2 of payslip.pdf"`, "Page 1 of 2",
		`id="page-next" rel="next" href="` + base + `2"`, `href="/submissions/` + v.submission.String() + `"`,
		"Nettobezug 3.250,00 EUR", `id="page-text"`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page 1 lacks %s", want)
		}
	}
	if strings.Contains(p.body, `id="page-prev"`) {
		t.Error("page 1 links a previous page")
	}
	if p := br.get(base + "2"); !strings.Contains(p.body, `id="page-prev" rel="prev" href="`+base+`1"`) || strings.Contains(p.body, `id="page-next"`) {
		t.Errorf("page 2 navigation: %.2000s", p.body)
	}

	res, png := br.image(base + "2/image")
	if res.StatusCode != http.StatusOK || !bytes.HasPrefix(png, pngMagic) {
		t.Fatalf("page image: %d %q", res.StatusCode, png[:min(len(png), 40)])
	}
	for h, want := range map[string]string{"Content-Type": "image/png", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	// The rendered page is cached next to the upload (at the test's 60 dpi) and served
	// from there.
	key := fmt.Sprintf("%srendered/%s/2-60.png", blobkey.Submission(c.ID, v.submission), v.upload.ID)
	if !b.blobExists(key) {
		t.Fatalf("no cached page at %s", key)
	}
	marker := append(append([]byte{}, pngMagic...), "cached page"...)
	b.putBlob(key, marker)
	if res, got := br.image(base + "2/image"); res.StatusCode != http.StatusOK || !bytes.Equal(got, marker) {
		t.Fatalf("second request not served from the cache: %d %q", res.StatusCode, got[:min(len(got), 40)])
	}

	for _, path := range []string{base + "3", base + "3/image", base + "0", base + "0/image", base + "01", base + "-1", base + "x",
		"/uploads/" + uuid.NewString() + "/pages/1", "/uploads/" + uuid.NewString() + "/pages/1/image", "/uploads/nope/pages/1"} {
		if p := br.get(path); p.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, p.status)
		}
	}

	// A submission being purged shows nothing, and its purge takes the cached pages along.
	ctx := context.Background()
	if err := b.st.Tenant(c.ID).DeleteSubmission(ctx, v.submission); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{base + "1", base + "2/image"} {
		if p := br.get(path); p.status != http.StatusNotFound {
			t.Errorf("%s while purging: %d, want 404", path, p.status)
		}
	}
	if err := b.st.PurgeSubmission(ctx, v.submission, b.blobs.Delete, b.blobs.DeletePrefix); err != nil {
		t.Fatal(err)
	}
	if b.blobExists(key) {
		t.Error("the purge left the rendered page")
	}
}

func TestViewerOfAnotherClientsUpload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	clientA, clientB := b.client("Broker A"), b.client("Broker B")
	a := b.viewerUpload(clientA.ID, "a.docx", extract.DOCX, []byte("PK\x03\x04"), textPages("Kontoauszug A"))
	other := b.viewerUpload(clientB.ID, "b.docx", extract.DOCX, []byte("PK\x03\x04"), textPages("Kontoauszug B"))
	pw := b.operator("limited@example.com", store.RoleAdvisor, []uuid.UUID{clientA.ID})
	br := b.browser()
	br.signIn("limited@example.com", pw)

	if p := br.get("/uploads/" + a.upload.ID.String() + "/pages/1"); p.status != http.StatusOK || !strings.Contains(p.body, "Kontoauszug A") {
		t.Fatalf("own client's upload: %d", p.status)
	}
	for _, path := range []string{"/uploads/" + other.upload.ID.String() + "/pages/1", "/uploads/" + other.upload.ID.String() + "/pages/1/image"} {
		p := br.get(path)
		if p.status != http.StatusNotFound || strings.Contains(p.body, "Kontoauszug B") || strings.Contains(p.body, "b.docx") {
			t.Errorf("%s: %d, want 404 telling nothing", path, p.status)
		}
	}
	anon := b.browser()
	if p := anon.get("/uploads/" + a.upload.ID.String() + "/pages/1/image"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/login") {
		t.Errorf("signed out: %d %s", p.status, p.location)
	}
}

var highlightRect = regexp.MustCompile(`<rect class="highlight" x="([^"]*)" y="([^"]*)" width="([^"]*)" height="([^"]*)"`)

// highlights lists the highlight rects of a page as "x y width height".
func highlights(body string) []string {
	var out []string
	for _, m := range highlightRect.FindAllStringSubmatch(body, -1) {
		out = append(out, strings.Join(m[1:], " "))
	}
	return out
}

func word(text string, x0, y0, x1, y1 float64) evidence.Word {
	return evidence.Word{Text: text, Box: evidence.Box{X0: x0, Y0: y0, X1: x1, Y1: y1}, Conf: 1, Block: 0, Line: 0}
}

func TestViewerHighlightsCitations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client("Broker")
	text := "Gehaltsabrechnung Januar 2026\nNettobezug: 3.250,00 EUR\nAuszahlung am 31.01.2026"
	first := document.Page{Number: 1, Text: text, Chars: len(text), Width: 595, Height: 842, Words: []evidence.Word{
		word("Gehaltsabrechnung", 0.1, 0.1, 0.4, 0.12), word("Januar", 0.42, 0.1, 0.5, 0.12), word("2026", 0.52, 0.1, 0.58, 0.12),
		word("Nettobezug:", 0.1, 0.5, 0.25, 0.52), word("3.250,00", 0.3, 0.5, 0.4, 0.52), word("EUR", 0.42, 0.5, 0.47, 0.52),
		word("Auszahlung", 0.1, 0.6, 0.25, 0.62), word("am", 0.27, 0.6, 0.3, 0.62), word("31.01.2026", 0.32, 0.6, 0.45, 0.62),
	}}
	pdf := samplepdf.Text([][]string{{"Gehaltsabrechnung"}, {"Seite zwei"}}) // the viewer page does not render it
	v := b.viewerUpload(c.ID, "payslip.pdf", extract.PDF, pdf, []document.Page{first, {Number: 2, Text: "Seite zwei", Chars: 10}})
	other := uuid.New()
	cite := func(upload uuid.UUID, excerpt string, pages []int, regions ...evidence.Region) []evidence.Citation {
		return []evidence.Citation{{UploadID: upload, Pages: pages, Excerpt: excerpt, Regions: regions}}
	}
	result := engine.Result{
		Checks: []engine.ResultCheck{
			{Key: "net_pay", Title: "Net pay stated", Status: engine.Fulfilled, Citations: cite(v.upload.ID, "Nettobezug: 3.250,00 EUR", []int{1},
				evidence.Region{Page: 1, X: 0.1, Y: 0.2, Width: 0.3, Height: 0.05}, evidence.Region{Page: 2, X: 0.5, Y: 0.5, Width: 0.1, Height: 0.1})},
			{Key: "employer", Title: "Employer named", Status: engine.Open, Citations: cite(v.upload.ID, "Arbeitgeber Beispiel GmbH", []int{1})},
			{Key: "elsewhere", Title: "Other document", Status: engine.Open, Citations: cite(other, "Nettobezug", []int{1})},
		},
		Fields: []engine.ResultField{
			// Case, punctuation and line breaks differ from the page's words.
			{Key: "net_income", Label: "Net income", Status: engine.FieldSucceeded, Value: map[string]any{"amount": "3250.00", "currency": "EUR"},
				Citations: cite(v.upload.ID, "nettobezug 3.250,00 eur\nAUSZAHLUNG am", []int{1})},
		},
		Summary: engine.Summary{Outcome: engine.OutcomePassed, Recommendation: engine.RecommendProceed, RiskBand: engine.RiskLow},
	}
	evaluation := b.evaluate(c.ID, v.submission, result)
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	br.signIn("advisor@example.com", pw)
	at := func(n int, item string) page {
		t.Helper()
		p := br.get(fmt.Sprintf("/uploads/%s/pages/%d?evaluation=%s&cite=%s", v.upload.ID, n, evaluation, item))
		if p.status != http.StatusOK {
			t.Fatalf("%s on page %d: %d %.300s", item, n, p.status, p.body)
		}
		return p
	}

	// The submission page links the citation into the viewer.
	sub := br.get("/submissions/" + v.submission.String())
	link := fmt.Sprintf("/uploads/%s/pages/1?evaluation=%s&amp;cite=check-0-0", v.upload.ID, evaluation)
	if !strings.Contains(sub.body, link) {
		t.Fatalf("the submission page does not link %s", link)
	}

	// Regions: drawn where the citation says, on their own page only.
	p := at(1, "check-0-0")
	if got := highlights(p.body); len(got) != 1 || got[0] != "0.1 0.2 0.3 0.05" {
		t.Errorf("regions on page 1: %v", got)
	}
	for _, want := range []string{"Net pay stated", `<blockquote id="citation-excerpt">Nettobezug: 3.250,00 EUR</blockquote>`, `<mark id="excerpt-mark">Nettobezug: 3.250,00 EUR</mark>`, "highlighted"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("check citation page lacks %s", want)
		}
	}
	if p := at(2, "check-0-0"); len(highlights(p.body)) != 1 || highlights(p.body)[0] != "0.5 0.5 0.1 0.1" {
		t.Errorf("regions on page 2: %v", highlights(p.body))
	}
	// The page links keep the citation.
	if !strings.Contains(p.body, fmt.Sprintf(`id="page-next" rel="next" href="/uploads/%s/pages/2?cite=check-0-0&amp;evaluation=%s"`, v.upload.ID, evaluation)) {
		t.Error("the next page link drops the citation")
	}

	// No regions: found among the page's words, one box per line.
	p = at(1, "field-0-0")
	if got := highlights(p.body); len(got) != 2 || got[0] != "0.1 0.5 0.37 0.02" || got[1] != "0.1 0.6 0.2 0.02" {
		t.Errorf("located excerpt: %v", got)
	}
	if !strings.Contains(p.body, "Net income") || !strings.Contains(p.body, "3250.00 EUR") {
		t.Error("field citation lacks the field's label or value")
	}

	// Not on the page: said so, and nothing drawn.
	p = at(1, "check-1-0")
	if len(highlights(p.body)) != 0 || strings.Contains(p.body, `class="highlight"`) || !strings.Contains(p.body, "could not be located on this page") {
		t.Errorf("excerpt not on the page: %v", highlights(p.body))
	}
	if !strings.Contains(p.body, "Arbeitgeber Beispiel GmbH") {
		t.Error("the excerpt that was not located is not shown")
	}
	// Words on page 1 only: page 2 has none to search.
	if p := at(2, "field-0-0"); len(highlights(p.body)) != 0 || !strings.Contains(p.body, "could not be located") {
		t.Errorf("page without words: %v", highlights(p.body))
	}

	// A citation of another upload, an item the result lacks, a malformed name: a notice.
	for _, item := range []string{"check-2-0", "check-9-0", "field-0-5", "bogus", "check-0"} {
		if p := at(1, item); !strings.Contains(p.body, "was not found") || strings.Contains(p.body, `class="highlight"`) {
			t.Errorf("%s: no notice", item)
		}
	}

	// In German.
	br.lang = "de"
	de := at(1, "check-1-0")
	for _, want := range []string{"Seite 1 von 2", "konnte auf dieser Seite nicht gefunden werden", "Prüfung"} {
		if !strings.Contains(de.body, want) {
			t.Errorf("German page lacks %s", want)
		}
	}
	br.lang = "en"

	// A newer evaluation supersedes the link's.
	b.evaluate(c.ID, v.submission, engine.Result{Summary: result.Summary})
	p = at(1, "check-0-0")
	if len(highlights(p.body)) != 0 || !strings.Contains(p.body, "superseded") {
		t.Errorf("superseded evaluation: %v", highlights(p.body))
	}
}

func TestViewerEscapesStoredText(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client("Broker")
	evil := `<script>alert("x")</script>`
	text := "Name: " + evil
	only := document.Page{Number: 1, Text: text, Chars: len(text), Words: []evidence.Word{
		word("Name:", 0.1, 0.1, 0.2, 0.12), word(`<script>alert("x")</script>`, 0.22, 0.1, 0.6, 0.12),
	}}
	v := b.viewerUpload(c.ID, `<img src=x onerror=alert(1)>.pdf`, extract.PDF, samplepdf.Text([][]string{{"Name"}}), []document.Page{only})
	evaluation := b.evaluate(c.ID, v.submission, engine.Result{
		Checks: []engine.ResultCheck{{Title: `<b>check</b>`, Status: engine.Open, Citations: []evidence.Citation{{UploadID: v.upload.ID, Pages: []int{1}, Excerpt: evil}}}},
	})
	pw := b.operator("admin@example.com", store.RoleAdmin, nil)
	br := b.browser()
	br.signIn("admin@example.com", pw)
	p := br.get(fmt.Sprintf("/uploads/%s/pages/1?evaluation=%s&cite=check-0-0", v.upload.ID, evaluation))
	if p.status != http.StatusOK {
		t.Fatalf("viewer: %d", p.status)
	}
	for _, raw := range []string{"<script>", "<img src=x", "<b>check"} {
		if strings.Contains(p.body, raw) {
			t.Errorf("renders %q unescaped", raw)
		}
	}
	for _, shown := range []string{"&lt;img src=x onerror=alert(1)&gt;.pdf", "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "&lt;b&gt;check&lt;/b&gt;"} {
		if !strings.Contains(p.body, shown) {
			t.Errorf("does not show %s as text", shown)
		}
	}
	if len(highlights(p.body)) != 1 {
		t.Errorf("the excerpt with markup is not located: %v", highlights(p.body))
	}
}

func TestViewerImagesAndTextOnlyFiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client("Broker")
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	img.Set(3, 3, color.RGBA{R: 200, A: 255})
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	photo := b.viewerUpload(c.ID, "id-card.jpg", extract.JPEG, jpg.Bytes(), textPages("PERSONALAUSWEIS"))
	docx := b.viewerUpload(c.ID, "contract.docx", extract.DOCX, []byte("PK\x03\x04"), textPages("Arbeitsvertrag"))
	busy := b.viewerUpload(c.ID, "late.pdf", extract.PDF, []byte("%PDF-1.4"), nil)
	pw := b.operator("advisor@example.com", store.RoleAdvisor, nil)
	br := b.browser()
	br.signIn("advisor@example.com", pw)

	// An image is served as uploaded.
	res, got := br.image("/uploads/" + photo.upload.ID.String() + "/pages/1/image")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/jpeg" || !bytes.Equal(got, jpg.Bytes()) {
		t.Fatalf("uploaded image: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if p := br.get("/uploads/" + photo.upload.ID.String() + "/pages/1"); !strings.Contains(p.body, `id="page-image"`) || !strings.Contains(p.body, "PERSONALAUSWEIS") {
		t.Errorf("image upload page: %d", p.status)
	}
	// A Word document has its text only.
	p := br.get("/uploads/" + docx.upload.ID.String() + "/pages/1")
	if p.status != http.StatusOK || strings.Contains(p.body, `id="page-image"`) || !strings.Contains(p.body, "Arbeitsvertrag") || !strings.Contains(p.body, "no page image") {
		t.Errorf("docx page: %d", p.status)
	}
	if p := br.get("/uploads/" + docx.upload.ID.String() + "/pages/1/image"); p.status != http.StatusNotFound {
		t.Errorf("docx image: %d, want 404", p.status)
	}
	// Its citations are marked in the text.
	evaluation := b.evaluate(c.ID, docx.submission, engine.Result{Checks: []engine.ResultCheck{{Title: "Contract", Status: engine.Fulfilled,
		Citations: []evidence.Citation{{UploadID: docx.upload.ID, Pages: []int{1}, Excerpt: "arbeitsvertrag"}}}}})
	p = br.get(fmt.Sprintf("/uploads/%s/pages/1?evaluation=%s&cite=check-0-0", docx.upload.ID, evaluation))
	if !strings.Contains(p.body, `<mark id="excerpt-mark">Arbeitsvertrag</mark>`) || !strings.Contains(p.body, "marked in the page&#39;s text") || strings.Contains(p.body, `class="highlight"`) {
		t.Errorf("docx citation: %d", p.status)
	}
	// An upload still being processed says so on its first page.
	if p := br.get("/uploads/" + busy.upload.ID.String() + "/pages/1"); p.status != http.StatusOK || !strings.Contains(p.body, "still being processed") || strings.Contains(p.body, `id="page-image"`) {
		t.Errorf("processing upload: %d", p.status)
	}
	for _, path := range []string{"/uploads/" + busy.upload.ID.String() + "/pages/2", "/uploads/" + busy.upload.ID.String() + "/pages/1/image", "/uploads/" + photo.upload.ID.String() + "/pages/2/image"} {
		if p := br.get(path); p.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, p.status)
		}
	}
}
