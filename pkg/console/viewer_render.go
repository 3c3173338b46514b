package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/store"
)

// Rendering PDF pages for the viewer: pdftoppm, confined like every document tool (in
// the extractor service when DOCEVAL_EXTRACTOR_URL names one), at most maxRenders at a
// time per console process and each within renderTimeout. A rendered page is kept in
// the blob store under its submission's prefix, so the console's replicas share it and
// a purge of the submission deletes it.
const (
	maxRenders      = 2
	renderTimeout   = 45 * time.Second
	defaultViewDPI  = 110
	maxRenderedSize = 128 << 20
)

// errRenderBusy: no render slot came free in time.
var errRenderBusy = errors.New("page renderer busy")

// pageRenderer renders upload pages as images for the document viewer.
type pageRenderer struct {
	blobs  *blob.Store
	parser extractor.Parser // where pdftoppm runs
	dpi    int
	limits extract.Limits
	slots  chan struct{}
	// timeout bounds a render, the wait for a slot included.
	timeout time.Duration
	// flights joins requests for the same page while it renders (an advisor's browser
	// and prefetches ask together).
	flights singleflight.Group
	// st, when set, is asked after a page is cached whether its upload still exists
	// (forgetIfGone).
	st *store.Store
}

func newPageRenderer(blobs *blob.Store, settings Settings) *pageRenderer {
	dpi := settings.RenderDPI
	if dpi <= 0 {
		dpi = defaultViewDPI
	}
	return &pageRenderer{
		blobs: blobs, parser: extractor.Local{}, dpi: min(dpi, 600), limits: extract.Limits{MaxMemory: settings.ToolMaxMemory, Confinement: settings.ParserIsolation},
		slots: make(chan struct{}, maxRenders), timeout: renderTimeout,
	}
}

// renderedKey is where page n of an upload, rendered at dpi, is cached.
func renderedKey(v viewedPage, dpi int) string {
	return blobkey.RenderedPage(v.client, v.submission, v.upload, v.page, dpi)
}

// rendered is a page's PNG and, when it could not be cached, why.
type rendered struct {
	png      []byte
	cacheErr error
}

// page returns the PNG of the viewed page of the PDF stored at blobKey: from the cache,
// else rendered and cached (a failure to cache is told in cacheErr, the PNG served all
// the same). A page the PDF does not have, or cannot render, is an *extract.Failure; a
// PDF missing from the blob store, blob.ErrNotFound.
func (p *pageRenderer) page(ctx context.Context, v viewedPage, blobKey string) (png []byte, cacheErr, err error) {
	key := renderedKey(v, p.dpi)
	if png, err := p.cached(ctx, key); err == nil {
		return png, nil, nil
	} else if !errors.Is(err, blob.ErrNotFound) {
		return nil, nil, err
	}
	// The render goes on when the asking request ends: others may wait for it, and the
	// next request finds it cached.
	ch := p.flights.DoChan(key, func() (any, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
		defer cancel()
		r, err := p.render(rctx, key, blobKey, v.page)
		if err != nil {
			return r, err
		}
		gone, err := p.forgetIfGone(rctx, v, key)
		if gone && err != nil {
			return rendered{}, fmt.Errorf("%w (%w)", blob.ErrNotFound, err)
		}
		if gone {
			return rendered{}, blob.ErrNotFound
		}
		if err != nil && r.cacheErr == nil {
			r.cacheErr = err
		}
		return r, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, nil, res.Err
		}
		r := res.Val.(rendered)
		return r.png, r.cacheErr, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// forgetIfGone deletes a page just cached when its upload has been deleted, or its
// submission's purge requested, meanwhile, and reports whether it was gone: the purge's
// or the blob-delete job's removal of the upload's rendered pages may have run before
// the page was written, and nothing else would remove it. Checked after the write, a
// delete or purge not seen here commits later, and its job then finds the page. A page
// left by a failed check or delete is the orphan sweep's (ingest.Worker.SweepOnce).
func (p *pageRenderer) forgetIfGone(ctx context.Context, v viewedPage, key string) (gone bool, err error) {
	if p.st == nil {
		return false, nil
	}
	_, err = p.st.Tenant(v.client).Upload(ctx, v.submission, v.upload)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, submission.ErrPurging):
	case err != nil:
		return false, fmt.Errorf("check the upload of a cached page: %w", err)
	default:
		return false, nil
	}
	if err := p.blobs.Delete(ctx, key); err != nil {
		return true, fmt.Errorf("delete the cached page of a deleted upload: %w", err)
	}
	return true, nil
}

func (p *pageRenderer) cached(ctx context.Context, key string) ([]byte, error) {
	rc, err := p.blobs.Reader(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, maxRenderedSize))
}

func (p *pageRenderer) render(ctx context.Context, key, blobKey string, n int) (rendered, error) {
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	case <-ctx.Done():
		return rendered{}, errRenderBusy
	}
	// Another replica may have rendered it while this one waited.
	if png, err := p.cached(ctx, key); err == nil {
		return rendered{png: png}, nil
	}
	path, cleanup, err := p.copyToTemp(ctx, blobKey)
	if err != nil {
		return rendered{}, err
	}
	defer cleanup()
	png, err := p.parser.RenderPage(ctx, path, n, p.dpi, p.limits)
	if errors.Is(err, extractor.ErrUnavailable) {
		return rendered{}, fmt.Errorf("%w: %w", errRenderBusy, err) // try again shortly
	}
	if err != nil {
		return rendered{}, err
	}
	return rendered{png: png, cacheErr: p.store(ctx, key, png)}, nil
}

// copyToTemp copies a stored PDF to a temporary file for pdftoppm.
func (p *pageRenderer) copyToTemp(ctx context.Context, blobKey string) (string, func(), error) {
	rc, err := p.blobs.Reader(ctx, blobKey)
	if err != nil {
		return "", nil, err
	}
	defer rc.Close()
	f, err := os.CreateTemp("", "doceval-view-*.pdf")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.Remove(f.Name()) }
	_, err = io.Copy(f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return f.Name(), cleanup, nil
}

func (p *pageRenderer) store(ctx context.Context, key string, png []byte) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel() // before Close: discards a partial object
	w, err := p.blobs.Writer(wctx, key, "image/png")
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, bytes.NewReader(png)); err != nil {
		return err
	}
	return w.Close()
}
