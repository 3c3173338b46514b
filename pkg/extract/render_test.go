package extract

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// A page renders to a colour PNG of the page's size at the asked resolution.
func TestRenderPage(t *testing.T) {
	t.Parallel()
	needTools(t)
	path := writeTemp(t, "payslip.pdf", makePDF(payslip))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := RenderPage(ctx, path, 2, 72, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// samplepdf pages are US letter, 612 x 792 points: at 72 dpi one pixel a point.
	if b := img.Bounds(); b.Dx() != 612 || b.Dy() != 792 {
		t.Fatalf("page 2 at 72 dpi is %v, want 612x792", b)
	}
	hi, err := RenderPage(ctx, path, 2, 144, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(hi)); err != nil || cfg.Width != 1224 {
		t.Fatalf("page 2 at 144 dpi: %+v %v", cfg, err)
	}
}

// A page of meters is scaled down to maxRenderPixels rather than rendered at the dpi.
func TestRenderPageBoundsHugePages(t *testing.T) {
	t.Parallel()
	needTools(t)
	// One 100 x 100 inch page (7200 points), which at 110 dpi would be 11000 pixels a side.
	pdf := samplepdf.Assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 7200 7200] >>",
	})
	path := writeTemp(t, "poster.pdf", pdf)
	out, err := RenderPage(context.Background(), path, 1, 110, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	if err != nil || cfg.Width > maxRenderPixels || cfg.Height > maxRenderPixels {
		t.Fatalf("huge page rendered as %+v %v", cfg, err)
	}
}

func TestRenderPageRefusals(t *testing.T) {
	t.Parallel()
	needTools(t)
	path := writeTemp(t, "payslip.pdf", makePDF(payslip))
	for name, tc := range map[string]struct {
		path string
		page int
		code string
	}{
		"page past the end": {path, 4, CodeError},
		"page zero":         {path, 0, CodeError},
		"not a PDF":         {writeTemp(t, "junk.pdf", []byte("%PDF-1.4 but nothing else")), 1, CodeCorrupt},
	} {
		_, err := RenderPage(context.Background(), tc.path, tc.page, 72, Limits{})
		var f *Failure
		if !errors.As(err, &f) || f.Code != tc.code {
			t.Errorf("%s: %v, want failure %s", name, err, tc.code)
		}
	}
	// A context that ends stops the tools.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RenderPage(ctx, path, 1, 72, Limits{}); err == nil {
		t.Error("a canceled render succeeded")
	}
}

// A page for OCR renders to an uncompressed grayscale PGM of the page's size, which the
// front end reads back when it turns the page or cuts out its machine-readable zone.
func TestRenderPageForOCR(t *testing.T) {
	t.Parallel()
	needTools(t)
	opt, in, dir := inJob(t, Options{}.withDefaults(), writeTemp(t, "payslip.pdf", makePDF(payslip)))
	path, err := renderPage(context.Background(), in, dir, "page", 1, 792, 100, opt)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte("P5\n")) {
		t.Fatalf("%s is no PGM: %v", path, err)
	}
	g, err := (&pageImage{path: path}).load()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := g.Bounds(); b.Dx() != 850 || b.Dy() != 1100 {
		t.Errorf("rendered %v, want 850x1100 (612x792 points at 100 dpi)", b)
	}
}
