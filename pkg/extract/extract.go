// Package extract turns an uploaded document into text, page by page, for the
// evaluator: the PDF text layer with poppler's pdftotext, scanned pages and images
// through tesseract OCR with a mean word confidence per page, DOCX with the standard
// library, legacy DOC with antiword. Bad input ends in a *Failure with one of the
// upload failure codes; the tools run with a timeout and bounded output, never through
// a shell.
package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	imgpkg "image"
	_ "image/jpeg" // image.DecodeConfig of JPEG headers
	_ "image/png"  // and PNG headers
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/document"
)

// Failure codes: the upload failure_code values of the openapi contract.
const (
	CodeUnsupported = "unsupported_content_type"
	CodeMismatch    = "content_type_mismatch"
	CodeCorrupt     = "file_corrupt"
	CodeEncrypted   = "file_encrypted"
	CodeEmpty       = "file_empty"
	CodeTooMany     = "too_many_pages"
	CodeTimeout     = "processing_timeout"
	CodeError       = "processing_error"
)

// KnownCode reports whether code is one of the failure codes above.
func KnownCode(code string) bool {
	switch code {
	case CodeUnsupported, CodeMismatch, CodeCorrupt, CodeEncrypted, CodeEmpty, CodeTooMany, CodeTimeout, CodeError:
		return true
	}
	return false
}

// Content types.
const (
	PDF  = "application/pdf"
	JPEG = "image/jpeg"
	PNG  = "image/png"
	DOC  = "application/msword"
	DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
)

// Failure is a clean refusal of a document.
type Failure struct {
	Code    string
	Message string
}

func (f *Failure) Error() string { return f.Code + ": " + f.Message }

func fail(code, format string, args ...any) *Failure {
	return &Failure{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Options bound the work on one file.
type Options struct {
	MaxPages       int           // more pages: too_many_pages (default 500)
	MaxOCRPages    int           // more pages needing OCR: too_many_pages (default 100)
	Timeout        time.Duration // whole-file budget (default 2m): processing_timeout
	Languages      string        // tesseract languages (default deu+eng)
	MinTextChars   int           // a PDF page with fewer text characters is OCRed (default 20)
	MaxOutputBytes int64         // cap on one tool's output (default 64 MiB)
	// TempDir is where each file's job directory is made (default the system's); as
	// root, the sandbox's user (uid 65534) must be able to reach it.
	TempDir string
	DPI     int    // rendering resolution for OCR (default 200)
	Limits  Limits // confinement of the document tools

	job  *job      // the file's job, set by File
	warm *warmPool // the sandboxes made ahead of need; nil: warmSandboxes
}

func (o Options) withDefaults() Options {
	if o.MaxPages <= 0 {
		o.MaxPages = 500
	}
	if o.MaxOCRPages <= 0 {
		o.MaxOCRPages = 100
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Languages == "" {
		o.Languages = "deu+eng"
	}
	if o.MinTextChars <= 0 {
		o.MinTextChars = 20
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = 64 << 20
	}
	if o.DPI <= 0 {
		o.DPI = 200
	}
	return o
}

// Result is a processed document.
type Result struct {
	ContentType string
	PageCount   int
	Pages       []document.Page
	Metadata    map[string]string
}

// Detect names the content type of a file from its leading bytes ("" when unknown). A
// zip is reported as DOCX; File checks that it holds a Word document.
func Detect(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return PDF
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG
	case bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		return DOC
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return DOCX
	}
	return ""
}

// Tools lists the external programs extraction needs.
var Tools = []string{"pdfinfo", "pdftotext", "pdftoppm", "tesseract", "antiword"}

// CheckTools reports the tools that are missing from PATH.
func CheckTools() error {
	var missing []string
	for _, t := range Tools {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing tools: %s (install poppler-utils, tesseract-ocr with deu and eng data, antiword)", strings.Join(missing, ", "))
	}
	return nil
}

// File extracts the text of the file at path, declared by its uploader as declared.
// The error is a *Failure for bad input; other errors (a missing tool, a full disk)
// are the worker's problem and worth a retry.
func File(ctx context.Context, path, declared string, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	j := laterJob(opt.TempDir, opt.Limits.withDefaults().Confinement)
	defer j.remove()
	opt.job = j
	res, err := file(ctx, path, declared, opt)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return nil, fail(CodeTimeout, "processing took longer than %s", opt.Timeout)
	}
	return res, err
}

func file(ctx context.Context, path, declared string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if n == 0 {
		return nil, fail(CodeEmpty, "the file is empty")
	}
	detected := Detect(head[:n])
	switch {
	case detected == "":
		return nil, fail(CodeUnsupported, "the file is not a PDF, JPEG, PNG, DOC or DOCX document")
	case declared != "" && detected != declared:
		return nil, fail(CodeMismatch, "declared %s, but the bytes are %s", declared, detected)
	}
	// Tools that read the file by path read a copy in the job's directory: they see
	// nothing else of the host. A PDF's text tools get it on standard input (see pdf).
	if detected != PDF {
		if path, err = opt.job.copyIn(path); err != nil {
			return nil, err
		}
	}
	var res *Result
	switch detected {
	case PDF:
		res, err = pdf(ctx, path, opt)
	case PNG, JPEG:
		res, err = image(ctx, path, opt)
	case DOCX:
		res, err = docx(ctx, path)
	case DOC:
		res, err = doc(ctx, path, opt)
	}
	if err != nil {
		return nil, err
	}
	res.ContentType = detected
	if res.PageCount > opt.MaxPages {
		return nil, fail(CodeTooMany, "%d pages; at most %d are processed", res.PageCount, opt.MaxPages)
	}
	return res, nil
}

// run executes a tool that reads the job's files by path, with bounded output. A
// non-zero exit is returned as *exitError with the tool's stderr, for the caller to
// classify.
func run(ctx context.Context, opt Options, maxOut int64, name string, args ...string) ([]byte, error) {
	return runTool(ctx, opt, maxOut, "", name, args...)
}

// runOn is run for a tool that reads the file at input on its standard input (its
// argument "-"): in the sandbox it sees no job directory, and its sandbox may have
// been started ahead of need (see warmPool).
func runOn(ctx context.Context, opt Options, maxOut int64, input string, name string, args ...string) ([]byte, error) {
	return runTool(ctx, opt, maxOut, input, name, args...)
}

// runTool is run, or runOn when input is not empty.
func runTool(ctx context.Context, opt Options, maxOut int64, input string, name string, args ...string) ([]byte, error) {
	var in *os.File
	if input != "" {
		var err error
		if in, err = os.Open(input); err != nil {
			return nil, err
		}
		defer in.Close()
	}
	cmd, cleanup, err := sandboxed(opt, in != nil, name, args...)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var p *toolProc
	if cmd.warmable {
		pool := opt.warm
		if pool == nil {
			pool = warmSandboxes
		}
		p, err = pool.take(cmd)
	} else {
		p, err = cmd.start()
	}
	if err != nil {
		return nil, err
	}
	var stdin io.Reader
	if in != nil {
		stdin = in
	}
	return p.finish(ctx, stdin, maxOut)
}

// toolFailure classifies a tool's failure on a file: a non-zero exit whose message
// mentions one of encryptedHints is file_encrypted, any other exit (a crash included)
// file_corrupt; a tool that could not run at all stays a plain error.
func toolFailure(err error, encrypted, corrupt string, encryptedHints ...string) error {
	var ee *exitError
	if !errors.As(err, &ee) {
		return err
	}
	msg := strings.ToLower(ee.stderr)
	for _, hint := range encryptedHints {
		if strings.Contains(msg, hint) {
			return fail(CodeEncrypted, "%s", encrypted)
		}
	}
	return fail(CodeCorrupt, "%s", corrupt)
}

// outputCapError is run's refusal of a tool's output beyond its cap: a *Failure
// (processing_error) to File's callers, which the PDF reader tells apart to fall back
// to the plain text (see pdf).
type outputCapError struct{ *Failure }

func (e *outputCapError) Unwrap() error { return e.Failure }

type exitError struct {
	tool   string
	stderr string
	err    error
}

func (e *exitError) Error() string { return fmt.Sprintf("%s: %v: %s", e.tool, e.err, e.stderr) }

type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// clean makes text valid UTF-8 without NUL or control characters other than newline
// and tab, with trailing spaces removed from lines.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n' // CRLF became LF below; a lone CR ends a line
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

func countChars(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) && r != utf8.RuneError {
			n++
		}
	}
	return n
}

func newPage(n int, text string) document.Page {
	text = clean(text)
	return document.Page{Number: n, Text: text, Chars: countChars(text)}
}

// ---- PDF

// pdfText is what the pdftotext run gave: the pages' words and lines and the
// document information, or, when the boxes passed the output cap, the plain text of
// each page.
type pdfText struct {
	pages     []bboxPage
	meta      map[string]string
	malformed bool     // the boxes ended early (see parseBBox)
	plain     []string // pdftotext -layout's pages
	err       error
}

// pdfInfo is what pdfinfo says of a PDF: its document information, page count and
// the size of each page in points.
type pdfInfo struct {
	meta  map[string]string
	pages int
	sizes map[int][2]float64
}

// pdf reads the text layer page by page with one pdftotext -bbox-layout run: its
// words with their boxes, the page text laid out from its lines (see layoutText), so
// that every word stands in the text citations quote, and the page count and document
// information. Pages with too little text, or a garbled text layer, are rendered and
// read by OCR.
//
// pdfinfo runs only where that run does not suffice: to classify its failure (an
// encrypted or a broken file, as pdfinfo always did), to count the pages of a PDF
// with more than MaxPages or of boxes that ended early, and for the page sizes that
// bound the rendering of OCR pages. A text PDF costs one tool run.
func pdf(ctx context.Context, path string, opt Options) (*Result, error) {
	var info *pdfInfo
	readInfo := func() (*pdfInfo, error) {
		if info == nil {
			var err error
			if info, err = readPDFInfo(ctx, path, opt); err != nil {
				return nil, err
			}
		}
		return info, nil
	}
	text := readPDFText(ctx, path, opt)
	if text.err != nil {
		if _, err := readInfo(); err != nil {
			return nil, err
		}
		return nil, toolFailure(text.err, "the PDF is encrypted", "the PDF text cannot be read", "password")
	}
	pages, meta := len(text.pages), text.meta
	// The bbox reader stops at maxBBoxPages: a PDF that reaches it may be longer, and
	// only pdfinfo counts its pages (too_many_pages when MaxPages is that high).
	if text.plain != nil || text.malformed || pages < 1 || pages > opt.MaxPages || pages >= maxBBoxPages {
		inf, err := readInfo()
		if err != nil {
			return nil, err
		}
		pages, meta = inf.pages, inf.meta
	}
	geometry, plain := text.pages, text.plain
	// sizes are pdfinfo's page sizes, read for the first page that needs one.
	sizes := func(n int) ([2]float64, error) {
		inf, err := readInfo()
		if err != nil {
			return [2]float64{}, err
		}
		return inf.sizes[n], nil
	}
	res := &Result{PageCount: pages, Metadata: meta}
	ocrPages, copied := 0, ""
	// ocrPage reads page n by OCR. It refuses the page that would exceed MaxOCRPages:
	// a few kilobytes of blank pages would otherwise cost minutes of OCR each.
	ocrPage := func(n int) (document.Page, error) {
		if ocrPages++; ocrPages > opt.MaxOCRPages {
			return document.Page{}, fail(CodeTooMany, "more than %d pages have no usable text layer; at most %d scanned pages are read per file", opt.MaxOCRPages, opt.MaxOCRPages)
		}
		size, err := sizes(n)
		if err != nil {
			return document.Page{}, err
		}
		if copied == "" { // the renderer reads a copy in the job's directory
			if copied, err = opt.job.copyIn(path); err != nil {
				return document.Page{}, err
			}
		}
		return pdfPageOCR(ctx, copied, n, size, opt)
	}
	for i := 1; i <= pages; i++ {
		var g bboxPage
		if i-1 < len(geometry) {
			g = geometry[i-1]
		}
		t := layoutText(g.lines)
		if i-1 < len(plain) {
			t = plain[i-1]
		}
		p := newPage(i, t)
		if g.width > 0 && g.height > 0 {
			p.Width, p.Height = g.width, g.height
			p.Words = wordsInText(p.Text, g.words)
		} else {
			size, err := sizes(i)
			if err != nil {
				return nil, err
			}
			p.Width, p.Height = size[0], size[1]
		}
		switch {
		case p.Chars < opt.MinTextChars:
			ocr, err := ocrPage(i)
			if err != nil {
				return nil, err
			}
			if ocr.Chars > p.Chars {
				p = ocr
			}
		case garbled(p.Text):
			ocr, err := ocrPage(i)
			if err != nil {
				return nil, err
			}
			if ocr.Chars >= opt.MinTextChars && !garbled(ocr.Text) {
				p = ocr
			}
		}
		res.Pages = append(res.Pages, p)
	}
	return res, nil
}

// readPDFInfo runs pdfinfo over the PDF at path: a failure is the file's (encrypted or
// broken), and so are no pages and more than MaxPages.
func readPDFInfo(ctx context.Context, path string, opt Options) (*pdfInfo, error) {
	// -f/-l: one "Page N size: W x H pts" line per page, to bound the rendering of OCR pages.
	out, err := runOn(ctx, opt, 4<<20, path, "pdfinfo", "-f", "1", "-l", strconv.Itoa(opt.MaxPages+1), "-")
	if err != nil {
		return nil, toolFailure(err, "the PDF is encrypted", "the PDF cannot be read", "incorrect password", "encrypt")
	}
	info := &pdfInfo{meta: map[string]string{}, sizes: map[int][2]float64{}}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var n int
		var w, h float64
		if _, err := fmt.Sscanf(k, "Page %d size", &n); err == nil {
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%g x %g", &w, &h); err == nil {
				info.sizes[n] = [2]float64{w, h}
			}
			continue
		}
		if key := strings.TrimSpace(k); pdfInfoKeys[key] {
			info.meta[key] = clean(strings.TrimSpace(v))
		}
	}
	info.pages, err = strconv.Atoi(info.meta["Pages"])
	if err != nil || info.pages < 1 {
		return nil, fail(CodeCorrupt, "the PDF has no pages")
	}
	// A PDF with only an owner password (copy restrictions, common on bank statements)
	// opens without one: it is read. One that needs a user password failed above.
	if info.pages > opt.MaxPages {
		return nil, fail(CodeTooMany, "%d pages; at most %d are processed", info.pages, opt.MaxPages)
	}
	return info, nil
}

// readPDFText runs pdftotext -bbox-layout over the PDF at path and reads its words,
// lines and document information, at most opt.MaxPages+1 pages (one more than are
// read: a PDF with more is refused): by fastBBox, or parseBBox where the output is not
// in poppler's usual form. A malformed tail (never seen from poppler) leaves its pages
// without text: they are read by OCR like pages without a text layer.
func readPDFText(ctx context.Context, path string, opt Options) pdfText {
	out, err := runOn(ctx, opt, opt.MaxOutputBytes, path, "pdftotext", "-bbox-layout", "-enc", "UTF-8", "-l", strconv.Itoa(opt.MaxPages+1), "-", "-")
	if _, ok := errors.AsType[*outputCapError](err); ok {
		// The boxes take about twenty times the bytes of the text: a long, dense
		// document past the cap is still read, as text without words.
		out, err = runOn(ctx, opt, opt.MaxOutputBytes, path, "pdftotext", "-layout", "-enc", "UTF-8", "-l", strconv.Itoa(opt.MaxPages), "-", "-")
		if err != nil {
			return pdfText{err: err}
		}
		return pdfText{plain: strings.Split(string(out), "\f")}
	}
	if err != nil {
		return pdfText{err: err}
	}
	pages, fast := fastBBox(out, opt.MaxPages+1)
	var malformed error
	if !fast {
		pages, malformed = parseBBox(bytes.NewReader(out), opt.MaxPages+1)
	}
	meta := bboxInfo(out)
	meta["Pages"] = strconv.Itoa(len(pages))
	return pdfText{pages: pages, meta: meta, malformed: malformed != nil}
}

// pdfInfoKeys are the document information kept as metadata, as pdfinfo shows it and
// pdftotext's boxes carry it: a document's own title cannot smuggle in other keys (its
// newlines start new "lines").
var pdfInfoKeys = map[string]bool{
	"Title": true, "Subject": true, "Keywords": true, "Author": true, "Creator": true, "Producer": true,
	"CreationDate": true, "ModDate": true, "Pages": true,
}

// maxRenderPixels bounds the longer side of a page rendered for OCR: a tiny PDF can
// declare a page of meters, which at 200 dpi would take gigabytes and minutes.
const maxRenderPixels = 5000

// pdfPageOCR renders one page (size in points) and reads it through the OCR front end;
// a low-confidence reading is rendered again at hiResDPI.
func pdfPageOCR(ctx context.Context, path string, n int, size [2]float64, opt Options) (document.Page, error) {
	dir, err := opt.scratch()
	if err != nil {
		return document.Page{}, err
	}
	defer os.RemoveAll(dir)
	longSide := max(size[0], size[1])
	img, err := renderPage(ctx, path, dir, "page", n, longSide, opt.DPI, opt)
	if err != nil {
		return document.Page{}, err
	}
	var hiRes func(context.Context) (string, error)
	if opt.DPI < hiResDPI && longSide*float64(opt.DPI)/72 < maxRenderPixels {
		hiRes = func(ctx context.Context) (string, error) {
			return renderPage(ctx, path, dir, "hires", n, longSide, hiResDPI, opt)
		}
	}
	r, err := readScan(ctx, dir, img, hiRes, opt)
	if err != nil {
		return document.Page{}, err
	}
	p := r.page()
	p.Number = n
	// Boxes are relative to the image read; the page keeps its size in points, turned
	// with it.
	if size[0] > 0 && size[1] > 0 {
		p.Width, p.Height = size[0], size[1]
		if r.rotated == 90 || r.rotated == 270 {
			p.Width, p.Height = size[1], size[0]
		}
	}
	return p, nil
}

// ---- images

// maxImagePixels bounds an image handed to tesseract (a 50-megapixel photo is plenty;
// a small PNG can declare gigapixels).
const maxImagePixels = 50_000_000

// A photo or scan whose long side is below smallImageSide pixels is enlarged towards
// enlargedSide (at most maxEnlargement times) before OCR: a 600-pixel picture of a card
// prints its text a few pixels high, which tesseract reads as noise; three times larger
// it reads names, dates and the machine-readable zone.
const (
	smallImageSide = 1500
	enlargedSide   = 2000
	maxEnlargement = 3
)

func enlargement(w, h int) float64 {
	long := max(w, h)
	if long >= smallImageSide || long <= 0 {
		return 1
	}
	return min(float64(enlargedSide)/float64(long), maxEnlargement)
}

func image(ctx context.Context, path string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	cfg, format, err := imgpkg.DecodeConfig(f)
	f.Close()
	if err != nil {
		return nil, fail(CodeCorrupt, "the image cannot be read")
	}
	if cfg.Width*cfg.Height > maxImagePixels {
		return nil, fail(CodeError, "the image has %d×%d pixels; at most %d megapixels are processed", cfg.Width, cfg.Height, maxImagePixels/1_000_000)
	}
	dir, err := opt.scratch()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// A phone photo is stored as the sensor saw it, with an EXIF orientation saying how
	// to show it; tesseract ignores the tag, so the pixels are turned first.
	// One Go cannot decode is handed to tesseract as it is.
	if format == "jpeg" {
		if o := jpegOrientation(path); o > 1 {
			if g, err := (&pageImage{path: path}).load(); err == nil {
				upright := filepath.Join(dir, "upright.pgm")
				if err := writePGM(upright, orient(g, o)); err != nil {
					return nil, err
				}
				path = upright
			}
		}
	}
	if f := enlargement(cfg.Width, cfg.Height); f > 1 {
		if m, err := (&pageImage{path: path}).load(); err == nil {
			big := filepath.Join(dir, "enlarged.pgm")
			if err := writePGM(big, scaled(m, f)); err != nil {
				return nil, err
			}
			path = big
		}
	}
	r, err := readScan(ctx, dir, path, nil, opt)
	if err != nil {
		return nil, err
	}
	p := r.page()
	p.Number = 1
	return &Result{PageCount: 1, Pages: []document.Page{p}, Metadata: map[string]string{}}, nil
}

// ---- DOC

func doc(ctx context.Context, path string, opt Options) (*Result, error) {
	out, err := run(ctx, opt, opt.MaxOutputBytes, "antiword", "-m", "UTF-8.txt", "-w", "0", path)
	if err != nil {
		return nil, toolFailure(err, "the document is encrypted", "the Word document cannot be read", "encrypt")
	}
	return paged(string(out)), nil
}

// paged splits text at form feeds into pages.
func paged(text string) *Result {
	parts := strings.Split(text, "\f")
	if len(parts) > 1 && strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts = parts[:len(parts)-1]
	}
	res := &Result{PageCount: len(parts), Metadata: map[string]string{}}
	for i, p := range parts {
		res.Pages = append(res.Pages, newPage(i+1, p))
	}
	return res
}
