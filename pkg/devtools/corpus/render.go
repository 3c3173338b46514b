package corpus

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// Content types of the formats.
const (
	ctPDF  = "application/pdf"
	ctPNG  = "image/png"
	ctJPEG = "image/jpeg"
	ctDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)

// markers are samplepdf's line prefixes; formats without fonts drop them.
var markers = strings.NewReplacer(samplepdf.Bold, "", samplepdf.Mono, "", samplepdf.Large, "", samplepdf.Small, "")

// render turns the document's pages into the bytes of its format. A scan that cannot
// be rendered (no pdftoppm) stays a text PDF.
func render(r *rand.Rand, d *Doc, layout samplepdf.Layout, scans bool) {
	pdf := samplepdf.TextLayout(d.Pages, layout)
	switch d.Format {
	case FormatDOCX:
		d.Bytes, d.ContentType = docx(d.Pages, chance(r, 0.5)), ctDOCX
		return
	case FormatScanPDF, FormatScanPNG, FormatScanJPEG:
		if !scans {
			d.Format, d.Photo = FormatTextPDF, false
			break
		}
		if b, ct, err := scan(r, pdf, d.Format, d.Photo); err == nil {
			d.Bytes, d.ContentType = b, ct
			return
		}
		d.Format = FormatTextPDF
	}
	d.Bytes, d.ContentType = pdf, ctPDF
}

// docx writes a minimal Word document: one paragraph per line, a page break before
// each page after the first. Tab-separated cells become tabs, or (tables) a table row
// whose cells each hold a paragraph, as Word exports forms.
func docx(pages [][]string, tables bool) []byte {
	var body strings.Builder
	for i, lines := range pages {
		for j, l := range lines {
			bold := strings.Contains(l, samplepdf.Bold)
			l = markers.Replace(l)
			br := ""
			if i > 0 && j == 0 {
				br = `<w:r><w:br w:type="page"/></w:r>`
			}
			cells := strings.Split(l, "\t")
			if tables && len(cells) > 1 {
				if br != "" {
					body.WriteString("<w:p>" + br + "</w:p>")
				}
				body.WriteString("<w:tbl><w:tr>")
				for _, c := range cells {
					body.WriteString("<w:tc><w:p>" + run(c, bold) + "</w:p></w:tc>")
				}
				body.WriteString("</w:tr></w:tbl>")
				continue
			}
			body.WriteString("<w:p>" + br)
			for k, c := range cells {
				if k > 0 {
					body.WriteString("<w:r><w:tab/></w:r>")
				}
				body.WriteString(run(c, bold))
			}
			body.WriteString("</w:p>")
		}
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, content string) {
		w, _ := z.Create(name)
		w.Write([]byte(content))
	}
	add("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	add("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`)
	add("word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`+body.String()+`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`)
	z.Close()
	return buf.Bytes()
}

func run(text string, bold bool) string {
	var esc bytes.Buffer
	xml.EscapeText(&esc, []byte(text))
	props := ""
	if bold {
		props = "<w:rPr><w:b/></w:rPr>"
	}
	return `<w:r>` + props + `<w:t xml:space="preserve">` + esc.String() + `</w:t></w:r>`
}

// pdftoppmOnce reports whether pdftoppm can be run.
var pdftoppmOnce = sync.OnceValue(func() bool {
	_, err := exec.LookPath("pdftoppm")
	return err == nil
})

// scan renders the PDF's pages as a scanner or phone camera would deliver them: gray,
// at 150–300 dpi, slightly rotated, with paper tone and noise, as JPEG, PNG or a PDF
// of JPEG pages.
func scan(r *rand.Rand, pdf []byte, format string, photo bool) ([]byte, string, error) {
	if !pdftoppmOnce() {
		return nil, "", fmt.Errorf("pdftoppm is not installed")
	}
	dpi := pick(r, []int{150, 200, 200, 240, 300})
	pages, err := rasterize(pdf, dpi)
	if err != nil {
		return nil, "", err
	}
	angle := (r.Float64()*2 - 1) * 0.8 // degrees
	paper := uint8(228 + r.IntN(24))
	noise := 4 + r.IntN(14)
	quality := 65 + r.IntN(26)
	var jpegs [][]byte
	for _, p := range pages {
		img := degrade(p, angle, paper, noise, r)
		if photo {
			img = photograph(p, r)
		}
		switch format {
		case FormatScanPNG:
			var b bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
				return nil, "", err
			}
			return b.Bytes(), ctPNG, nil
		case FormatScanJPEG:
			var b bytes.Buffer
			if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}); err != nil {
				return nil, "", err
			}
			return b.Bytes(), ctJPEG, nil
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}); err != nil {
			return nil, "", err
		}
		jpegs = append(jpegs, b.Bytes())
	}
	w, h := pages[0].Bounds().Dx(), pages[0].Bounds().Dy()
	return samplepdf.Scan(jpegs, w, h, dpi), ctPDF, nil
}

// rasterize renders every page of the PDF to a gray image with pdftoppm (as PGM,
// which needs no decoding worth the name).
func rasterize(pdf []byte, dpi int) ([]*image.Gray, error) {
	dir, err := os.MkdirTemp("", "doceval-corpus-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(src, pdf, 0o600); err != nil {
		return nil, err
	}
	out, err := exec.Command("pdftoppm", "-r", fmt.Sprint(dpi), "-gray", src, filepath.Join(dir, "p")).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("pdftoppm: %v: %s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "p-*.pgm"))
	sort.Strings(files)
	var pages []*image.Gray
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		g, err := readPGM(b)
		if err != nil {
			return nil, err
		}
		pages = append(pages, g)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("pdftoppm rendered no page")
	}
	return pages, nil
}

// readPGM decodes a binary 8-bit PGM (P5) as pdftoppm writes it.
func readPGM(b []byte) (*image.Gray, error) {
	var magic string
	var w, h, maxv int
	r := bytes.NewReader(b)
	if _, err := fmt.Fscan(r, &magic, &w, &h, &maxv); err != nil || magic != "P5" || maxv != 255 || w <= 0 || h <= 0 {
		return nil, fmt.Errorf("not an 8-bit PGM: %v", err)
	}
	off := len(b) - r.Len() + 1 // one white-space byte ends the header
	if len(b)-off < w*h {
		return nil, fmt.Errorf("short PGM")
	}
	g := image.NewGray(image.Rect(0, 0, w, h))
	copy(g.Pix, b[off:off+w*h])
	return g, nil
}

// degrade rotates the page by angle degrees around its center (nearest neighbour),
// tints white to the paper tone, darkens ink a little unevenly and adds noise.
func degrade(src *image.Gray, angle float64, paper uint8, noise int, r *rand.Rand) *image.Gray {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dst := image.NewGray(b)
	sin, cos := math.Sincos(angle * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	seed := r.Uint64() | 1
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx := int(cos*dx+sin*dy+cx+0.5) + b.Min.X
			sy := int(-sin*dx+cos*dy+cy+0.5) + b.Min.Y
			v := 255
			if sx >= b.Min.X && sx < b.Max.X && sy >= b.Min.Y && sy < b.Max.Y {
				v = int(src.Pix[(sy-b.Min.Y)*src.Stride+(sx-b.Min.X)])
			}
			// Map [0,255] onto [ink, paper]: ink is never quite black.
			v = 25 + v*(int(paper)-25)/255
			if noise > 0 {
				// A cheap xorshift per pixel: the noise need not be good, only fast.
				seed ^= seed << 13
				seed ^= seed >> 7
				seed ^= seed << 17
				v += int(seed%uint64(2*noise+1)) - noise
			}
			dst.Pix[y*dst.Stride+x] = uint8(max(0, min(255, v)))
		}
	}
	return dst
}

// noiseImage is an unreadable upload: a photo of nothing in particular (blurred
// blotches) or an almost empty page.
func noiseImage(r *rand.Rand, w, h int, empty bool) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	base := 200 + r.IntN(40)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := base
			if !empty {
				v = base - int(60*math.Sin(float64(x)/37)*math.Cos(float64(y)/53)) - r.IntN(40)
			} else {
				v += r.IntN(9) - 4
			}
			img.SetGray(x, y, color.Gray{Y: uint8(max(0, min(255, v)))})
		}
	}
	return img
}
