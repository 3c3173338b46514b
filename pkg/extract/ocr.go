package extract

import (
	"context"
	"fmt"
	imgpkg "image"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/engine/mrz"
)

// The OCR front end reads a page image with one tesseract pass (page segmentation 3)
// and spends more only where the first reading shows it pays: a page read badly may be
// turned (orientation detection, then a second reading), a PDF page read with low
// confidence is rendered again at a higher resolution, and a page that looks like an
// identity document gets a pass over its machine-readable zone. Every extra reading is
// kept only when it scores better than the one before.
const (
	// poorConfidence and poorWords: a first reading below either is worth an
	// orientation check (a page upside down reads as low-confidence scraps); so is one
	// whose words stand mostly in vertical boxes (a page turned by 90°).
	poorConfidence = 0.6
	poorWords      = 5
	// hiResBelow: a PDF page read with a lower mean confidence is rendered at hiResDPI
	// and read again.
	hiResBelow = 0.75
	hiResDPI   = 300
	// relanguageBelow: a page in another language (see pageLanguage) whose first
	// reading's mean confidence is lower is read again with that language's model; one
	// read this well loses nothing a second pass would find.
	relanguageBelow = 0.9
	// minOSDConfidence is tesseract's orientation confidence below which its guess is
	// not acted on.
	minOSDConfidence = 1.5
	// turnMargin: a turned reading replaces the first only when it scores this much
	// better. Orientation detection is confidently wrong on cards with a portrait and
	// guilloches, and an upside-down reading of such a card scores about as badly as
	// the upright one.
	turnMargin = 1.3
)

// scanReading is one page image read through the front end.
type scanReading struct {
	tsv     tsvPage
	rotated int // degrees clockwise the image was turned before the kept reading
	mrz     []mrzBand
}

type mrzBand struct {
	text string
	box  document.Box
}

// readScan reads the image at path. hiRes, when not nil, renders the same page at a
// higher resolution (PDF pages); dir is a scratch directory the caller removes.
func readScan(ctx context.Context, dir, path string, hiRes func(context.Context) (string, error), opt Options) (scanReading, error) {
	img := &pageImage{path: path}
	start := time.Now()
	first, err := tesseract(ctx, path, opt)
	if err != nil {
		return scanReading{}, err
	}
	firstTook := time.Since(start)
	best := scanReading{tsv: first}
	// A page without a single word (a blank back side) is not worth another look.
	read := len(first.words) > 0
	if read && (first.conf < poorConfidence || len(first.words) < poorWords || first.upright() < 0.5) {
		if deg := osdRotation(ctx, path, opt); deg != 0 {
			r, turned, err := readTurned(ctx, dir, "turned", img, deg, opt)
			if err != nil {
				return scanReading{}, err
			}
			if turned != nil && (r.score > turnMargin*best.tsv.score || first.upright() < 0.5 && r.upright() >= 0.5 && r.score >= 0.8*first.score) {
				best, img = scanReading{tsv: r, rotated: deg}, turned
			}
		}
	}
	if read && hiRes != nil && best.tsv.conf < hiResBelow {
		hp, err := hiRes(ctx)
		if err != nil {
			return scanReading{}, err
		}
		r, hi, err := readTurned(ctx, dir, "hires-turned", &pageImage{path: hp}, best.rotated, opt)
		if err != nil {
			return scanReading{}, err
		}
		if hi != nil && r.score > best.tsv.score {
			best.tsv, img = r, hi
		}
	}
	if lang := rereadLanguage(best.tsv); read && lang != "" && !strings.Contains(opt.Languages, lang) && languageInstalled(ctx, lang, opt) {
		// The language's model alone: it reads English labels and Latin names as
		// well as with English beside it, at half the cost of two models (the page
		// then takes one and a half passes, not two).
		o := opt
		o.Languages = lang
		r, err := tesseract(ctx, img.path, o)
		if err != nil {
			return scanReading{}, err
		}
		if r.score > best.tsv.score {
			best.tsv = r
		}
	}
	if looksLikeIDDocument(best.tsv.text) {
		mctx, cancel := context.WithTimeout(ctx, mrzBudget(firstTook))
		zone, err := readMRZ(mctx, dir, img, best.tsv.words, opt)
		cancel()
		if err != nil {
			return scanReading{}, err
		}
		best.mrz = zone
	}
	return best, nil
}

// readTurned reads img turned by deg degrees clockwise (as it is for 0). An image that
// tesseract reads but Go cannot decode gives no reading (nil image) and no error: the
// reading before stands.
func readTurned(ctx context.Context, dir, name string, img *pageImage, deg int, opt Options) (tsvPage, *pageImage, error) {
	if deg != 0 {
		turned, err := img.turned(dir, name, deg)
		if err != nil {
			return tsvPage{}, nil, nil
		}
		img = turned
	}
	r, err := tesseract(ctx, img.path, opt)
	if err != nil {
		return tsvPage{}, nil, err
	}
	return r, img, nil
}

// mrzToAppend decides whether the MRZ pass's zone goes into the page text: when the
// first reading has no zone of its own, or the pass's zone passes its check digits and
// the first reading's does not. Otherwise the first reading stands alone.
func mrzToAppend(firstText string, zone []mrzBand) []mrzBand {
	if len(zone) == 0 {
		return nil
	}
	var first []string
	for _, l := range strings.Split(firstText, "\n") {
		if c, ok := zoneLike(l); ok {
			first = append(first, c)
		}
	}
	lines := make([]string, len(zone))
	for i, z := range zone {
		lines[i] = z.text
	}
	if slices.Equal(first, lines) {
		return nil
	}
	// Which reading the engine gets more out of: the zone with more fields confirmed by
	// their check digits, then with names; the first reading on a tie.
	if zoneWorth(lines) > zoneWorth(first) {
		return zone
	}
	return nil
}

// zoneWorth scores a reading of a zone by what the engine's reader finds in it: two
// points a field confirmed by its check digit, one for the names.
func zoneWorth(lines []string) int {
	best := -1
	for _, z := range mrz.Find(lines) {
		w := 2 * z.Confirmed()
		if z.Surname != "" && z.Given != "" {
			w++
		}
		best = max(best, w)
	}
	return best
}

// zoneLike: a line that may belong to a machine-readable zone, spaces removed.
func zoneLike(l string) (string, bool) {
	c := strings.ReplaceAll(strings.TrimSpace(l), " ", "")
	return c, len(c) >= 25 && strings.Count(c, "<") >= 2
}

// page turns a reading into page text and words, with the MRZ pass's zone appended as
// lines of their own when it adds to the first reading (in place of the first
// reading's zone-like lines, if any).
func (s scanReading) page() document.Page {
	text := s.tsv.text
	words := s.tsv.words
	block := 0
	for _, w := range words {
		block = max(block, w.Block+1)
	}
	line := 0
	for _, w := range words {
		line = max(line, w.Line+1)
	}
	add := mrzToAppend(text, s.mrz)
	if len(add) > 0 {
		// The first reading's broken zone goes: the reader takes consecutive zone-like
		// lines as one zone, and two zones in a row would read as one longer, broken one.
		var kept []string
		dropped := map[int]bool{}
		for i, l := range strings.Split(text, "\n") {
			if _, ok := zoneLike(l); ok {
				dropped[i] = true
				continue
			}
			kept = append(kept, l)
		}
		text = strings.Join(kept, "\n")
		words = slices.DeleteFunc(slices.Clone(words), func(w document.Word) bool { return dropped[w.Line] })
	}
	for _, m := range add {
		if text != "" {
			text += "\n"
		}
		text += m.text
		words = append(words, document.Word{Text: m.text, Box: m.box, Conf: 1, Block: block, Line: line})
		line++
	}
	p := newPage(1, text)
	p.OCR = true
	conf := s.tsv.conf
	p.OCRConfidence = &conf
	p.Words = wordsInText(p.Text, words)
	p.Width, p.Height = float64(s.tsv.width), float64(s.tsv.height)
	return p
}

// upright is the share of the words of three or more letters whose box is wider than
// tall. Tesseract reads a page turned by 90° well enough, line by line in vertical
// boxes, but a geometric reader needs the page upright.
func (t tsvPage) upright() float64 {
	n, wide := 0, 0
	aspect := float64(t.width) / float64(max(t.height, 1))
	for _, w := range t.words {
		if utf8.RuneCountInString(w.Text) < 3 {
			continue
		}
		n++
		if (w.Box.X1-w.Box.X0)*aspect > w.Box.Y1-w.Box.Y0 {
			wide++
		}
	}
	if n == 0 {
		return 1
	}
	return float64(wide) / float64(n)
}

// tesseract reads an image with page segmentation 3 (automatic, no orientation check).
func tesseract(ctx context.Context, path string, opt Options) (tsvPage, error) {
	out, err := run(ctx, opt, opt.MaxOutputBytes, "tesseract", path, "stdout", "-l", opt.Languages, "--psm", "3", "tsv")
	if err != nil {
		return tsvPage{}, toolFailure(err, "", "the image cannot be read")
	}
	return parseTSV(string(out)), nil
}

// osdRotation asks tesseract's orientation detection (page segmentation 0) by how many
// degrees clockwise the image must be turned to stand upright: 0, 90, 180 or 270. It
// says 0 when unsure or when the detection fails (too little text to tell).
func osdRotation(ctx context.Context, path string, opt Options) int {
	out, err := run(ctx, opt, 1<<16, "tesseract", path, "stdout", "--psm", "0")
	if err != nil {
		return 0
	}
	return parseOSD(string(out))
}

func parseOSD(out string) int {
	rotate, conf := -1, 0.0
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Rotate":
			rotate, _ = strconv.Atoi(v)
		case "Orientation confidence":
			conf, _ = strconv.ParseFloat(v, 64)
		}
	}
	switch rotate {
	case 90, 180, 270:
		if conf >= minOSDConfidence {
			return rotate
		}
	}
	return 0
}

// idHint: the signs of an identity document on a first reading: filler runs of a
// machine-readable zone, its document codes at a line start, a zone line whose fillers
// OCR read as letters (a long run of capitals and digits), or the document's name in
// the languages of the EU.
var idHint = regexp.MustCompile(`<<|(?m)^\s*(P<|I<|ID[A-Z<])|[A-Z0-9<]{25,}|(?i)personalausweis|reisepass|passport|passeport|pasaporte|passaporto|paspoort|paszport|identity card|carte d'identit|carte nationale|carta d'identit|carta di identit|documento nacional|documento de identidad|dow[oó]d osobisty|identiteitskaart|cart[aã]o de cidad|aufenthaltstitel|residence permit|titre de s[eé]jour|permesso di soggiorno|permiso de residencia|verblijfsvergunning`)

func looksLikeIDDocument(text string) bool { return idHint.MatchString(text) }

// mrzBandFrom is where the machine-readable zone is looked for when the first reading
// shows no trace of it: the bottom of the page, below this fraction of its height (TD1
// cards carry three lines in the bottom third, passports two lines in the bottom fifth).
const mrzBandFrom = 0.6

const mrzAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

// mrzTrace: a word of the first reading that belongs to a zone.
var mrzTrace = regexp.MustCompile(`<<|^(P<|I<|ID[A-Z<]|[A-Z0-9]{2,}<)`)

// mrzBandOf returns the rows of the page (fractions of its height) where the zone
// stands: around the first reading's words that look like part of it, widened by two
// of their heights each way (a card scanned on an A4 sheet has its zone anywhere on
// the sheet), otherwise the bottom of the page.
func mrzBandOf(words []document.Word) (top, bottom float64) {
	top, bottom = 2, -1
	var height float64
	n := 0
	for _, w := range words {
		if len(w.Text) >= 5 && mrzTrace.MatchString(w.Text) {
			top, bottom = min(top, w.Box.Y0), max(bottom, w.Box.Y1)
			height += w.Box.Y1 - w.Box.Y0
			n++
		}
	}
	if n == 0 {
		return mrzBandFrom, 1
	}
	pad := 2 * height / float64(n)
	return max(top-pad, 0), min(bottom+pad, 1)
}

// mrzBandWidth is the width a zone's band is enlarged to at least: a line of 44
// characters then gives each about 40 pixels, where tesseract reads the OCR-B print
// almost without error (a 600-pixel photo of a passport gives it 13).
const mrzBandWidth = 1800

// mrzBandScale is the factor a band of w×h pixels is enlarged by: to mrzBandWidth, and
// at least doubled while it is low (the zone's print on a card scanned at 200 dpi is
// about 20 pixels high), never more than four times or beyond maxImagePixels/4.
func mrzBandScale(w, h int) float64 {
	f := 1.0
	if h <= 1200 {
		f = 2
	}
	f = min(max(f, float64(mrzBandWidth)/float64(max(w, 1))), 4)
	for f > 1 && f*f*float64(w)*float64(h) > maxImagePixels/4 {
		f /= 2
	}
	return max(f, 1)
}

// The MRZ pass may take mrzBudgetFactor times the page's first reading, and never less
// than minMRZBudget (the first reading of a small image is quick, the band is enlarged):
// a pass over its budget is dropped, and the page keeps the reading it has.
const (
	mrzBudgetFactor = 4
	minMRZBudget    = 10 * time.Second
)

func mrzBudget(firstReading time.Duration) time.Duration {
	return max(minMRZBudget, mrzBudgetFactor*firstReading)
}

// readMRZ reads a band of the image once more, as a block of uniform text restricted
// to the MRZ alphabet, and returns the lines that look like a zone's. The band is cut
// to its ink (see inkBounds); a band with no print, the blank lower half of a card's
// front scanned on a sheet, is not read at all: tesseract spends minutes on a block of
// scanner noise enlarged to millions of pixels and finds nothing there.
func readMRZ(ctx context.Context, dir string, img *pageImage, words []document.Word, opt Options) ([]mrzBand, error) {
	g, err := img.load()
	if err != nil {
		return nil, nil // an image the front end cannot decode keeps its first reading
	}
	from, to := mrzBandOf(words)
	b := g.Bounds()
	top := b.Min.Y + int(float64(b.Dy())*from)
	band := cropRows(g, top, b.Min.Y+int(float64(b.Dy())*to+0.5))
	if band.Bounds().Dy() < 8 {
		return nil, nil
	}
	// The enlargement is the whole band's, as the print's size is judged by it.
	f := mrzBandScale(band.Bounds().Dx(), band.Bounds().Dy())
	ink, ok := inkBounds(band)
	if !ok {
		return nil, nil
	}
	band = band.SubImage(ink).(*imgpkg.Gray)
	if f > 1 {
		band = scaled(band, f)
	}
	path := filepath.Join(dir, "mrz.pgm")
	if err := writePGM(path, band); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	out, err := run(ctx, opt, 1<<20, "tesseract", path, "stdout", "-l", "eng", "--psm", "6", "-c", "tessedit_char_whitelist="+mrzAlphabet, "tsv")
	if err != nil {
		return nil, nil
	}
	r := parseTSV(string(out))
	frac := func(v, from, n int) float64 { return float64(v-from) / float64(n) }
	return mrzLines(r, document.Box{
		X0: frac(ink.Min.X, b.Min.X, b.Dx()), Y0: frac(ink.Min.Y, b.Min.Y, b.Dy()),
		X1: frac(ink.Max.X, b.Min.X, b.Dx()), Y1: frac(ink.Max.Y, b.Min.Y, b.Dy()),
	}), nil
}

// mrzLines joins each line of the band's reading without spaces and keeps those that
// look like a zone's (25 to 48 characters of the alphabet with fillers); boxes are
// mapped from the band (at area, in fractions of the page) to the page.
func mrzLines(r tsvPage, area document.Box) []mrzBand {
	type acc struct {
		text strings.Builder
		box  document.Box
		n    int
	}
	var lines []*acc
	last := -1
	for _, w := range r.words {
		if w.Line != last || len(lines) == 0 {
			lines = append(lines, &acc{box: w.Box})
			last = w.Line
		}
		a := lines[len(lines)-1]
		a.text.WriteString(w.Text)
		a.box = document.Box{X0: min(a.box.X0, w.Box.X0), Y0: min(a.box.Y0, w.Box.Y0), X1: max(a.box.X1, w.Box.X1), Y1: max(a.box.Y1, w.Box.Y1)}
		a.n++
	}
	var out []mrzBand
	for _, a := range lines {
		s := a.text.String()
		if len(s) < 25 || len(s) > 48 || strings.Count(s, "<") < 2 || strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(mrzAlphabet, r) }) >= 0 {
			continue
		}
		w, h := area.X1-area.X0, area.Y1-area.Y0
		out = append(out, mrzBand{text: s, box: box(area.X0+a.box.X0*w, area.Y0+a.box.Y0*h, area.X0+a.box.X1*w, area.Y0+a.box.Y1*h)})
	}
	return out
}

// maxRenderPGM bounds pdftoppm's output for OCR: a page of at most maxRenderPixels on
// either side, one byte a pixel, and its header.
const maxRenderPGM = maxRenderPixels*maxRenderPixels + 1<<10

// renderPage renders page n of the PDF at path to a grayscale PGM in dir (name.pgm) at
// dpi, or scaled to maxRenderPixels when the page (longer side longSide points) would
// be larger. pdftoppm writes the image to its standard output; this process writes the
// file (tools write nowhere, see Limits). A PGM, not a PNG: tesseract reads the same
// pixels, and most of pdftoppm's time on a page goes to PNG compression (about 220 of
// 300 ms at 200 dpi, a fifth of the page's OCR).
func renderPage(ctx context.Context, path, dir, name string, n int, longSide float64, dpi int, opt Options) (string, error) {
	num := strconv.Itoa(n)
	scale := []string{"-r", strconv.Itoa(dpi)}
	if longSide <= 0 || longSide*float64(dpi)/72 > maxRenderPixels {
		scale = []string{"-scale-to", strconv.Itoa(maxRenderPixels)}
	}
	args := append(scale, "-gray", "-f", num, "-l", num, "-singlefile", path)
	pgm, err := run(ctx, opt, maxRenderPGM, "pdftoppm", args...)
	if err != nil {
		return "", toolFailure(err, "", fmt.Sprintf("page %d cannot be rendered", n))
	}
	out := filepath.Join(dir, name+".pgm")
	return out, os.WriteFile(out, pgm, 0o644)
}
