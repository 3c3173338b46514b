package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxViewPNG bounds the PNG of one page rendered for people: a 5000-pixel page of
// photo noise stays below it.
const maxViewPNG = 96 << 20

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// RenderPage renders page n of the PDF at pdfPath as a colour PNG at dpi, for people to
// look at (the console's document viewer). A page that would be larger than
// maxRenderPixels on its longer side at dpi is scaled down to that. pdfinfo and
// pdftoppm run confined by limits (see Limits), in a job of their own that reads a
// copy of the file, and pdftoppm writes the image to its standard output; the context
// bounds them. A page that cannot be rendered (no such page, an encrypted or broken
// file) is a *Failure.
func RenderPage(ctx context.Context, pdfPath string, n, dpi int, limits Limits) ([]byte, error) {
	if n < 1 || dpi < 1 {
		return nil, fail(CodeError, "page %d at %d dpi cannot be rendered", n, dpi)
	}
	opt := Options{Limits: limits}.withDefaults()
	if deadline, ok := ctx.Deadline(); ok {
		opt.Timeout = max(time.Until(deadline), time.Second) // the CPU limit
	}
	j, err := newJob(opt.TempDir, opt.Limits.withDefaults().Confinement)
	if err != nil {
		return nil, err
	}
	defer j.remove()
	if pdfPath, err = j.copyIn(pdfPath); err != nil {
		return nil, err
	}
	opt.job = j
	num := strconv.Itoa(n)
	info, err := run(ctx, opt, 64<<10, "pdfinfo", "-f", num, "-l", num, pdfPath)
	var ee *exitError
	if errors.As(err, &ee) && strings.Contains(ee.stderr, "Wrong page range") {
		return nil, fail(CodeError, "the PDF has no page %d", n)
	}
	if err != nil {
		return nil, toolFailure(err, "the PDF is encrypted", "the PDF cannot be read", "incorrect password", "encrypt")
	}
	w, h, ok := pageSizeOf(info, n)
	if !ok {
		return nil, fail(CodeError, "the PDF has no page %d", n)
	}
	scale := []string{"-r", strconv.Itoa(dpi)}
	if max(w, h)*float64(dpi)/72 > maxRenderPixels {
		scale = []string{"-scale-to", strconv.Itoa(maxRenderPixels)}
	}
	// No output file root: pdftoppm writes the one page to standard output.
	args := append(scale, "-png", "-f", num, "-l", num, "-singlefile", pdfPath)
	out, err := run(ctx, opt, maxViewPNG, "pdftoppm", args...)
	if err != nil {
		return nil, toolFailure(err, "the PDF is encrypted", fmt.Sprintf("page %d cannot be rendered", n), "incorrect password")
	}
	if !bytes.HasPrefix(out, pngMagic) {
		return nil, fail(CodeError, "page %d rendered to no image", n)
	}
	return out, nil
}

// pageSizeOf reads the size in points of page n from pdfinfo's "Page    n size: W x H
// pts" line; ok is false when there is no such line (no such page).
func pageSizeOf(info []byte, n int) (w, h float64, ok bool) {
	for _, line := range strings.Split(string(info), "\n") {
		k, v, found := strings.Cut(line, ":")
		var got int
		if !found || !strings.HasSuffix(k, " size") {
			continue
		}
		if _, err := fmt.Sscanf(k, "Page %d size", &got); err != nil || got != n {
			continue
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%g x %g", &w, &h); err == nil && w > 0 && h > 0 {
			return w, h, true
		}
	}
	return 0, 0, false
}
