package corpus

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// photograph renders a page as a phone camera sees it on a desk: turned by a few
// degrees, in perspective (the far edge narrower than the near one), lit from one side
// with a falloff across the sheet, a darker desk showing around the paper, and sensor
// noise.
func photograph(src *image.Gray, r *rand.Rand) *image.Gray {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dst := image.NewGray(b)
	angle := (2 + r.Float64()*3) * tern(chance(r, 0.5), 1.0, -1.0) * math.Pi / 180
	sin, cos := math.Sincos(angle)
	keystone := 0.03 + r.Float64()*0.05    // the top edge is this much narrower per side
	margin := 0.04 + r.Float64()*0.04      // the sheet fills a little less than the frame
	lx, ly := r.Float64(), r.Float64()*0.3 // where the light is brightest
	dim := 0.25 + r.Float64()*0.2          // how much darker the far corner is
	desk := 60 + r.IntN(60)
	cx, cy := float64(w)/2, float64(h)/2
	scale := 1 / (1 - 2*margin)
	seed := r.Uint64() | 1
	diag := math.Hypot(float64(w), float64(h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// From the photo back to the sheet: undo the framing, the turn and the
			// perspective (a row's width grows from top to bottom).
			dx, dy := (float64(x)-cx)*scale, (float64(y)-cy)*scale
			rx, ry := cos*dx+sin*dy, -sin*dx+cos*dy
			t := (ry + cy) / float64(h) // 0 at the top of the sheet, 1 at the bottom
			rx /= 1 - keystone*(1-t)*2
			sx, sy := int(rx+cx+0.5), int(ry+cy+0.5)
			v := desk
			if sx >= 0 && sx < w && sy >= 0 && sy < h {
				v = int(src.Pix[sy*src.Stride+sx])
				v = 30 + v*(235-30)/255
			}
			light := 1 - dim*math.Hypot(float64(x)-lx*float64(w), float64(y)-ly*float64(h))/diag
			v = int(float64(v) * light)
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			v += int(seed%13) - 6
			dst.Pix[y*dst.Stride+x] = uint8(max(0, min(255, v)))
		}
	}
	return dst
}

// renderMerged scans the parts one after another into one PDF of page images, as a
// partner's scanner delivers a stack of documents. Without pdftoppm it is a text PDF of
// the parts' pages in the first part's geometry (Format says so).
func renderMerged(r *rand.Rand, d *Doc, parts []docSpec, scans bool) {
	dpi := pick(r, []int{150, 200})
	angle := (r.Float64()*2 - 1) * 0.6
	paper := uint8(228 + r.IntN(24))
	noise := 4 + r.IntN(10)
	var jpegs [][]byte
	var pw, ph int
	for _, p := range parts {
		if !scans {
			break
		}
		pages, err := rasterize(samplepdf.TextLayout(p.Pages, p.layout), dpi)
		if err != nil {
			break
		}
		for _, pg := range pages {
			var b bytes.Buffer
			if err := jpeg.Encode(&b, degrade(pg, angle, paper, noise, r), &jpeg.Options{Quality: 75}); err != nil {
				break
			}
			jpegs = append(jpegs, b.Bytes())
			pw, ph = pg.Bounds().Dx(), pg.Bounds().Dy()
		}
	}
	if len(jpegs) == len(d.Pages) {
		d.Bytes, d.ContentType, d.Format = samplepdf.Scan(jpegs, pw, ph, dpi), ctPDF, FormatScanPDF
		return
	}
	d.Bytes, d.ContentType, d.Format = samplepdf.TextLayout(d.Pages, parts[0].layout), ctPDF, FormatTextPDF
}
