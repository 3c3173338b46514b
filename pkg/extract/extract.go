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
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// Failure codes (DECISIONS.md, section States).
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
	Timeout        time.Duration // whole-file budget (default 2m): processing_timeout
	Languages      string        // tesseract languages (default deu+eng)
	MinTextChars   int           // a PDF page with fewer text characters is OCRed (default 20)
	MaxOutputBytes int64         // cap on one tool's output (default 64 MiB)
	TempDir        string        // for rendered pages (default the system's)
	DPI            int           // rendering resolution for OCR (default 200)
}

func (o Options) withDefaults() Options {
	if o.MaxPages <= 0 {
		o.MaxPages = 500
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

// Page is the text of one page.
type Page struct {
	Number        int
	Text          string
	Chars         int      // non-space characters
	OCR           bool     // the text came from OCR
	OCRConfidence *float64 // mean word confidence in [0, 1] when OCR ran
}

// Result is a processed document.
type Result struct {
	ContentType string
	PageCount   int
	Pages       []Page
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

// run executes a tool with bounded output. A non-zero exit is returned as *exitError
// with the tool's stderr, for the caller to classify.
func run(ctx context.Context, maxOut int64, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	// The tool and anything it starts form one process group, killed as a whole.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err) // missing tool: not the file's fault
	}
	out, readErr := io.ReadAll(io.LimitReader(stdout, maxOut+1))
	if int64(len(out)) > maxOut {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, fail(CodeError, "%s produced more than %d bytes of output", name, maxOut)
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &exitError{tool: name, stderr: strings.TrimSpace(stderr.String()), err: err}
	}
	if readErr != nil {
		return nil, readErr
	}
	return out, nil
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

func newPage(n int, text string) Page {
	text = clean(text)
	return Page{Number: n, Text: text, Chars: countChars(text)}
}

// ---- PDF

func pdf(ctx context.Context, path string, opt Options) (*Result, error) {
	// pdftotext starts alongside pdfinfo (two processes, two cores): the text is usually
	// wanted, and a refusal from pdfinfo cancels it.
	textCtx, cancelText := context.WithCancel(ctx)
	defer cancelText()
	type textOut struct {
		out []byte
		err error
	}
	textc := make(chan textOut, 1)
	go func() {
		out, err := run(textCtx, opt.MaxOutputBytes, "pdftotext", "-layout", "-enc", "UTF-8", path, "-")
		textc <- textOut{out, err}
	}()

	// -f/-l: one "Page N size: W x H pts" line per page, to bound the rendering of OCR pages.
	info, err := run(ctx, 4<<20, "pdfinfo", "-f", "1", "-l", strconv.Itoa(opt.MaxPages+1), path)
	if err != nil {
		return nil, toolFailure(err, "the PDF is encrypted", "the PDF cannot be read", "incorrect password", "encrypt")
	}
	meta := map[string]string{}
	sizes := map[int]float64{} // page → longer side in points
	for _, line := range strings.Split(string(info), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var n int
		var w, h float64
		if _, err := fmt.Sscanf(k, "Page %d size", &n); err == nil {
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%g x %g", &w, &h); err == nil {
				sizes[n] = max(w, h)
			}
			continue
		}
		if key := strings.TrimSpace(k); pdfInfoKeys[key] {
			meta[key] = clean(strings.TrimSpace(v))
		}
	}
	pages, err := strconv.Atoi(meta["Pages"])
	if err != nil || pages < 1 {
		return nil, fail(CodeCorrupt, "the PDF has no pages")
	}
	// A PDF with only an owner password (copy restrictions, common on bank statements)
	// opens without one: it is read. One that needs a user password failed above.
	if pages > opt.MaxPages {
		return nil, fail(CodeTooMany, "%d pages; at most %d are processed", pages, opt.MaxPages)
	}
	text := <-textc
	out, err := text.out, text.err
	if err != nil {
		return nil, toolFailure(err, "the PDF is encrypted", "the PDF text cannot be read", "password")
	}
	texts := strings.Split(string(out), "\f") // pdftotext ends every page with a form feed
	res := &Result{PageCount: pages, Metadata: meta}
	for i := 1; i <= pages; i++ {
		text := ""
		if i-1 < len(texts) {
			text = texts[i-1]
		}
		p := newPage(i, text)
		if p.Chars < opt.MinTextChars {
			ocr, err := pdfPageOCR(ctx, path, i, sizes[i], opt)
			if err != nil {
				return nil, err
			}
			if ocr.Chars > p.Chars {
				p = ocr
			}
		}
		res.Pages = append(res.Pages, p)
	}
	return res, nil
}

// pdfInfoKeys are the pdfinfo lines kept as metadata: a document's own title cannot
// smuggle in other keys (its newlines start new "lines").
var pdfInfoKeys = map[string]bool{
	"Title": true, "Subject": true, "Keywords": true, "Author": true, "Creator": true, "Producer": true,
	"CreationDate": true, "ModDate": true, "Pages": true, "Encrypted": true, "Page size": true, "PDF version": true,
	"Tagged": true, "Form": true, "JavaScript": true, "Optimized": true,
}

// maxRenderPixels bounds the longer side of a page rendered for OCR: a tiny PDF can
// declare a page of meters, which at 200 dpi would take gigabytes and minutes.
const maxRenderPixels = 5000

// pdfPageOCR renders one page (longer side longSide points) and reads it with tesseract.
func pdfPageOCR(ctx context.Context, path string, n int, longSide float64, opt Options) (Page, error) {
	dir, err := os.MkdirTemp(opt.TempDir, "doceval-ocr-")
	if err != nil {
		return Page{}, err
	}
	defer os.RemoveAll(dir)
	prefix := filepath.Join(dir, "page")
	num := strconv.Itoa(n)
	scale := []string{"-r", strconv.Itoa(opt.DPI)}
	if longSide <= 0 || longSide*float64(opt.DPI)/72 > maxRenderPixels {
		scale = []string{"-scale-to", strconv.Itoa(maxRenderPixels)}
	}
	args := append(scale, "-gray", "-png", "-f", num, "-l", num, "-singlefile", path, prefix)
	if _, err := run(ctx, 1<<20, "pdftoppm", args...); err != nil {
		return Page{}, toolFailure(err, "", fmt.Sprintf("page %d cannot be rendered", n))
	}
	p, err := ocr(ctx, prefix+".png", opt)
	if err != nil {
		return Page{}, err
	}
	p.Number = n
	return p, nil
}

// ---- images

// maxImagePixels bounds an image handed to tesseract (a 50-megapixel photo is plenty;
// a small PNG can declare gigapixels).
const maxImagePixels = 50_000_000

func image(ctx context.Context, path string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	cfg, _, err := imgpkg.DecodeConfig(f)
	f.Close()
	if err != nil {
		return nil, fail(CodeCorrupt, "the image cannot be read")
	}
	if cfg.Width*cfg.Height > maxImagePixels {
		return nil, fail(CodeError, "the image has %d×%d pixels; at most %d megapixels are processed", cfg.Width, cfg.Height, maxImagePixels/1_000_000)
	}
	p, err := ocr(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	p.Number = 1
	return &Result{PageCount: 1, Pages: []Page{p}, Metadata: map[string]string{}}, nil
}

// ocr runs tesseract in TSV mode: the words with their confidences, laid out again
// line by line.
func ocr(ctx context.Context, imagePath string, opt Options) (Page, error) {
	out, err := run(ctx, opt.MaxOutputBytes, "tesseract", imagePath, "stdout", "-l", opt.Languages, "--psm", "3", "tsv")
	if err != nil {
		return Page{}, toolFailure(err, "", "the image cannot be read")
	}
	text, conf := fromTSV(string(out))
	p := newPage(1, text)
	p.OCR, p.OCRConfidence = true, conf
	return p, nil
}

// fromTSV rebuilds text from tesseract's TSV (level, page, block, par, line, word, left,
// top, width, height, conf, text) and averages the word confidences.
func fromTSV(tsv string) (string, *float64) {
	var b strings.Builder
	var sum float64
	words := 0
	lastLine := ""
	for i, row := range strings.Split(tsv, "\n") {
		cols := strings.Split(row, "\t")
		if i == 0 || len(cols) < 12 || cols[0] != "5" {
			continue
		}
		word := strings.TrimSpace(cols[11])
		if word == "" {
			continue
		}
		line := cols[2] + "." + cols[3] + "." + cols[4]
		switch {
		case lastLine == "":
		case line != lastLine:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
		lastLine = line
		b.WriteString(word)
		if c, err := strconv.ParseFloat(cols[10], 64); err == nil && c >= 0 {
			sum += c
			words++
		}
	}
	if words == 0 {
		zero := 0.0
		return b.String(), &zero
	}
	mean := sum / float64(words) / 100
	return b.String(), &mean
}

// ---- DOC

func doc(ctx context.Context, path string, opt Options) (*Result, error) {
	out, err := run(ctx, opt.MaxOutputBytes, "antiword", "-m", "UTF-8.txt", "-w", "0", path)
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
