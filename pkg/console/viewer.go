package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/store"
)

// The document viewer shows one page of an upload: its image (a PDF page rendered on
// demand, an image as uploaded), its extracted text, and, when opened from a citation
// of the submission page, the cited excerpt highlighted on the page.

// viewedPage is the upload and page a viewer request names, once the operator may see it.
type viewedPage struct {
	client, submission, upload uuid.UUID
	page                       int
}

// viewedPage reads the upload and page of the request. Another client's upload, one that
// does not exist and one whose submission is being purged are all not found.
func (a *app) viewedPage(r *http.Request, op store.Operator) (viewedPage, error) {
	var v viewedPage
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return v, store.ErrNotFound
	}
	n, err := strconv.Atoi(r.PathValue("page"))
	if err != nil || n < 1 || strconv.Itoa(n) != r.PathValue("page") {
		return v, store.ErrNotFound
	}
	client, submission, err := a.st.UploadOwner(r.Context(), id)
	if err != nil {
		return v, err
	}
	if !op.Sees(client) {
		return v, store.ErrNotFound
	}
	return viewedPage{client: client, submission: submission, upload: id, page: n}, nil
}

// unlessPurging turns the 409 of a submission being purged into not found: to staff, its
// documents are gone.
func unlessPurging(err error) error {
	if errors.Is(err, submission.ErrPurging) {
		return store.ErrNotFound
	}
	return err
}

// previewable says whether the viewer can show the upload's pages as images: PDF pages
// rendered, JPEG and PNG as uploaded. DOC and DOCX have their text only.
func previewable(contentType string) bool {
	switch contentType {
	case extract.PDF, extract.JPEG, extract.PNG:
		return true
	}
	return false
}

func pageCount(u submission.Upload) int {
	if u.PageCount == nil {
		return 0
	}
	return *u.PageCount
}

// viewerData is what viewer.html shows.
type viewerData struct {
	Upload     submission.Upload
	Submission submission.Submission
	Page       int
	Pages      int
	PagesShown int // Pages, or 1 for an upload without pages yet ("page 1 of 1")
	PrevURL    string
	NextURL    string
	ImageURL   string // "" when the file type has no image
	Text       pageText
	HasText    bool
	Notice     string // a message key about the whole upload (processing, failed, no image)
	Cite       *citeView
	CiteNotice string // a message key when the citation asked for cannot be shown
}

// viewer shows one page of an upload, with the citation of the query highlighted.
func (a *app) viewer(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	v, err := a.viewedPage(r, rs.op)
	if err != nil {
		return err
	}
	tenant := a.st.Tenant(v.client)
	d, err := tenant.Submission(r.Context(), v.submission)
	if err != nil {
		return unlessPurging(err)
	}
	u, ok := uploadOf(d, v.upload)
	if !ok {
		return store.ErrNotFound // deleted since
	}
	pages := pageCount(u)
	// An upload without pages yet (processing, or failed) has a first page that says so.
	if v.page > max(pages, 1) {
		return store.ErrNotFound
	}
	data := viewerData{Upload: u, Submission: d.Submission, Page: v.page, Pages: pages, PagesShown: max(pages, 1)}
	keep := citeQuery(r.URL.Query())
	if v.page > 1 {
		data.PrevURL = pageURL(u.ID, v.page-1, keep)
	}
	if v.page < pages {
		data.NextURL = pageURL(u.ID, v.page+1, keep)
	}
	data.ImageURL, data.Notice = pageImageOf(u, v.page)
	stored, err := a.storedPage(r, u, v.page)
	if err != nil {
		return err
	}
	if keep != nil {
		cite, notice, err := a.citation(r, tenant, d, u.ID, keep)
		if err != nil {
			return err
		}
		if cite != nil {
			data.Cite = cite.on(stored, v.page, func(n int) string { return pageURL(u.ID, n, keep) })
		}
		data.CiteNotice = notice
	}
	if stored != nil {
		excerpt := ""
		if data.Cite != nil {
			excerpt = data.Cite.Excerpt
		}
		data.Text, data.HasText = markExcerpt(stored.Text, excerpt), stored.Text != ""
		data.Text.OCR = stored.OCR
	}
	// Without a page image the excerpt is shown marked in the text, or not at all.
	if data.Cite != nil && data.ImageURL == "" {
		data.Cite.Highlights, data.Cite.Located = nil, data.Text.Mark != ""
	}
	if err := a.recordView(r, rs, v, "page"); err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, "viewer", data)
	return nil
}

// pageImageOf is the URL of page n's image, or, when the upload has none, a message
// key that says why.
func pageImageOf(u submission.Upload, n int) (src, notice string) {
	switch {
	case u.Status == submission.UploadFailed:
		return "", "viewer.failed"
	case pageCount(u) == 0:
		return "", "viewer.processing"
	case !previewable(u.ContentType):
		return "", "viewer.no_image"
	}
	return fmt.Sprintf("/uploads/%s/pages/%d/image", u.ID, n), ""
}

// storedPage reads page n of the upload as ingest stored it; nil before it has pages.
func (a *app) storedPage(r *http.Request, u submission.Upload, n int) (*document.Page, error) {
	if pageCount(u) == 0 {
		return nil, nil
	}
	p, err := a.st.UploadPage(r.Context(), u.ID, n)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// uploadOf finds an upload among a submission's.
func uploadOf(d store.SubmissionDetail, id uuid.UUID) (submission.Upload, bool) {
	for _, s := range d.Slots {
		for _, u := range s.Uploads {
			if u.ID == id {
				return u, true
			}
		}
	}
	for _, u := range d.Unassigned {
		if u.ID == id {
			return u, true
		}
	}
	return submission.Upload{}, false
}

// citeQuery keeps the citation parameters of a viewer URL for its page links; nil when
// the page was not opened from a citation.
func citeQuery(q url.Values) url.Values {
	if q.Get("evaluation") == "" && q.Get("cite") == "" {
		return nil
	}
	return url.Values{"evaluation": {q.Get("evaluation")}, "cite": {q.Get("cite")}}
}

func pageURL(upload uuid.UUID, n int, q url.Values) string {
	u := fmt.Sprintf("/uploads/%s/pages/%d", upload, n)
	if q != nil {
		u += "?" + q.Encode()
	}
	return u
}

// pageImage serves a page's image: a PDF page rendered (and cached), an image as it was
// uploaded. Other file types have none.
func (a *app) pageImage(w http.ResponseWriter, r *http.Request, rs *reqState) error {
	v, err := a.viewedPage(r, rs.op)
	if err != nil {
		return err
	}
	u, err := a.st.Tenant(v.client).Upload(r.Context(), v.submission, v.upload)
	if err != nil {
		return unlessPurging(err)
	}
	if v.page > pageCount(u) || !previewable(u.ContentType) {
		return store.ErrNotFound
	}
	if err := a.recordView(r, rs, v, "image"); err != nil {
		return err
	}
	if u.ContentType != extract.PDF {
		return a.serveUploadedImage(w, r, u)
	}
	png, cacheErr, err := a.renderer.page(r.Context(), v, u.BlobKey)
	if cacheErr != nil {
		a.log.Warn("cache rendered page", "upload", u.ID, "page", v.page, "error", cacheErr)
	}
	var failure *extract.Failure
	switch {
	case errors.As(err, &failure), errors.Is(err, blob.ErrNotFound):
		a.log.Warn("page image", "upload", u.ID, "page", v.page, "error", err)
		return store.ErrNotFound
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		return nil // the browser went away
	case errors.Is(err, errRenderBusy), errors.Is(err, context.DeadlineExceeded):
		w.Header().Set("Retry-After", "5")
		a.fail(w, r, err, http.StatusServiceUnavailable, "error.unavailable")
		return nil
	case err != nil:
		return err
	}
	imageHeaders(w, "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(png)))
	_, _ = w.Write(png)
	return nil
}

func imageHeaders(w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	// Not kept by the browser: an applicant's documents must not outlive the session on a
	// shared computer (the server keeps the rendered page).
	w.Header().Set("Cache-Control", "no-store")
}

// serveUploadedImage streams a JPEG or PNG upload, once its leading bytes are what its
// content type says (ingest checked them; the browser is told nothing else).
func (a *app) serveUploadedImage(w http.ResponseWriter, r *http.Request, u submission.Upload) error {
	rc, err := a.blobs.Reader(r.Context(), u.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return store.ErrNotFound
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	head, _ := br.Peek(16)
	if extract.Detect(head) != u.ContentType {
		a.log.Warn("uploaded image is not what its type says", "upload", u.ID, "content_type", u.ContentType)
		return store.ErrNotFound
	}
	imageHeaders(w, u.ContentType)
	if _, err := io.Copy(w, br); err != nil {
		a.log.Warn("serve uploaded image", "upload", u.ID, "error", err)
	}
	return nil
}
