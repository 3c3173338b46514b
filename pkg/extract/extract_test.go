package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

func needTools(t testing.TB) {
	t.Helper()
	if err := CheckTools(); err != nil {
		t.Skip(err)
	}
}

func wantFailure(t *testing.T, err error, code string) {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) || f.Code != code {
		t.Fatalf("error %v, want failure %s", err, code)
	}
}

var payslip = [][]string{
	{"Gehaltsabrechnung Januar 2026", "Arbeitgeber: Beispiel GmbH", "Nettobezug 3.250,00 EUR"},
	{"Gehaltsabrechnung Februar 2026", "Nettobezug 3.250,00 EUR"},
	{"Gehaltsabrechnung Maerz 2026", "Nettobezug 3.310,50 EUR"},
}

func TestTextPDF(t *testing.T) {
	needTools(t)
	path := writeTemp(t, "a.pdf", makePDF(payslip))
	res, err := File(context.Background(), path, PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentType != PDF || res.PageCount != 3 || len(res.Pages) != 3 {
		t.Fatalf("result: %+v", res)
	}
	for i, p := range res.Pages {
		if p.Number != i+1 || p.OCR || p.OCRConfidence != nil || !strings.Contains(p.Text, payslip[i][0]) || p.Chars < 20 {
			t.Errorf("page %d: %+v", i+1, p)
		}
	}
	if !strings.Contains(res.Pages[0].Text, "Nettobezug 3.250,00 EUR") || res.Metadata["Pages"] != "3" {
		t.Errorf("page 1 text %q, metadata %v", res.Pages[0].Text, res.Metadata)
	}
}

// A scanned PDF (pages that are only images) goes through OCR, page by page.
func TestScannedPDF(t *testing.T) {
	needTools(t)
	jpegs, w, h := scanOf(t, makePDF(payslip[:2]), 200)
	path := writeTemp(t, "scan.pdf", imagePDF(jpegs, w, h, 200))
	res, err := File(context.Background(), path, PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 2 {
		t.Fatalf("%d pages", len(res.Pages))
	}
	for i, p := range res.Pages {
		if !p.OCR || p.OCRConfidence == nil || *p.OCRConfidence < 0.6 || !strings.Contains(p.Text, "Gehaltsabrechnung") || !strings.Contains(p.Text, "Nettobezug") {
			t.Errorf("page %d: ocr %v conf %v text %q", i+1, p.OCR, p.OCRConfidence, p.Text)
		}
	}
}

func TestImage(t *testing.T) {
	needTools(t)
	jpegs, _, _ := scanOf(t, makePDF(payslip[:1]), 200)
	path := writeTemp(t, "id.jpg", jpegs[0])
	res, err := File(context.Background(), path, JPEG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentType != JPEG || len(res.Pages) != 1 || !res.Pages[0].OCR || !strings.Contains(res.Pages[0].Text, "Beispiel GmbH") {
		t.Fatalf("image: %+v", res)
	}
	checkGeometry(t, res)
	if p := res.Pages[0]; p.Width != float64(612*200/72) || len(p.Words) < 8 {
		t.Errorf("image page %vx%v with %d words", p.Width, p.Height, len(p.Words))
	}
	wantFailure(t, func() error {
		_, err := File(context.Background(), writeTemp(t, "bad.png", []byte("\x89PNG\r\n\x1a\nbroken")), PNG, Options{})
		return err
	}(), CodeCorrupt)
}

func TestDOCX(t *testing.T) {
	path := writeTemp(t, "a.docx", makeDOCX(t, [][]string{{"Selbstauskunft", "Straße 1, Köln"}, {"Seite zwei: Übersicht"}}))
	res, err := File(context.Background(), path, DOCX, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.PageCount != 2 || res.Pages[0].Text != "Selbstauskunft\nStraße 1, Köln" || res.Pages[1].Text != "Seite zwei: Übersicht" {
		t.Fatalf("docx: %+v", res.Pages)
	}
	checkGeometry(t, res)
	// One line per paragraph, down the page; each page starts at its top again.
	p1, p2 := res.Pages[0].Words, res.Pages[1].Words
	if len(p1) != 4 || len(p2) != 3 || p1[1].Line != 1 || p1[1].Box.Y0 <= p1[0].Box.Y1 || p2[0].Box.Y0 != p1[0].Box.Y0 {
		t.Errorf("docx words: %+v", res.Pages)
	}
}

// A legacy Word document (written by a word processor, see testdata) is read with
// antiword, umlauts included.
func TestDOC(t *testing.T) {
	res, err := File(context.Background(), "testdata/payslip.doc", DOC, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.PageCount != 1 || len(res.Pages) != 1 {
		t.Fatalf("doc pages: %+v", res)
	}
	text := res.Pages[0].Text
	for _, want := range []string{"Gehaltsabrechnung März 2026", "Hauptstraße 1", "Mitarbeiter: Jürgen Müller", "Auszahlungsbetrag 2.876,43 EUR", "ohne Unterschrift gültig"} {
		if !strings.Contains(text, want) {
			t.Errorf("doc text lacks %q:\n%s", want, text)
		}
	}
	if res.Pages[0].Chars < 500 || res.Pages[0].OCR || res.Pages[0].Words != nil {
		t.Errorf("doc page: %d chars, ocr %v, %d words (antiword gives no geometry)", res.Pages[0].Chars, res.Pages[0].OCR, len(res.Pages[0].Words))
	}
	// The declared type is checked against the bytes: a DOC declared as PDF fails.
	_, err = File(context.Background(), "testdata/payslip.doc", PDF, Options{})
	wantFailure(t, err, CodeMismatch)
}

// A zip bomb fails fast with bounded memory: 256 MiB of zeros compresses to 256 KiB.
func TestDOCXZipBomb(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("_rels/.rels")
	w.Write([]byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`))
	w, _ = z.Create("word/document.xml")
	zeros := make([]byte, 1<<20)
	for range 256 {
		w.Write(zeros)
	}
	z.Close()
	path := writeTemp(t, "bomb.docx", buf.Bytes())
	start := time.Now()
	_, err := File(context.Background(), path, DOCX, Options{})
	wantFailure(t, err, CodeCorrupt)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestBadInput(t *testing.T) {
	needTools(t)
	ctx := context.Background()
	cases := []struct {
		name, declared string
		body           []byte
		code           string
	}{
		{"empty", PDF, nil, CodeEmpty},
		{"corrupt pdf", PDF, []byte("%PDF-1.4\nthis is not a pdf at all\n"), CodeCorrupt}, // see TestPDFRefusalsAsPdfinfoGives
		{"png declared pdf", PDF, []byte("\x89PNG\r\n\x1a\nxxxx"), CodeMismatch},
		{"unknown bytes", PDF, []byte("hello world"), CodeUnsupported},
		{"not a zip", DOCX, []byte("PK\x03\x04garbage"), CodeCorrupt},
		{"corrupt doc", DOC, append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, bytes.Repeat([]byte{1}, 600)...), CodeCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := File(ctx, writeTemp(t, "f", tc.body), tc.declared, Options{})
			wantFailure(t, err, tc.code)
		})
	}
	// An encrypted PDF and one of too many pages: TestPDFRefusalsAsPdfinfoGives.
	t.Run("timeout", func(t *testing.T) {
		jpegs, w, h := scanOf(t, makePDF(payslip), 200)
		_, err := File(ctx, writeTemp(t, "f.pdf", imagePDF(jpegs, w, h, 200)), PDF, Options{Timeout: 300 * time.Millisecond})
		wantFailure(t, err, CodeTimeout)
	})
}

// A PDF refused is refused as pdfinfo always told it, though pdfinfo now runs only
// when the one pdftotext run fails or cannot count the pages: the same code and
// message for a broken file, an encrypted one and one with too many pages.
func TestPDFRefusalsAsPdfinfoGives(t *testing.T) {
	needTools(t)
	ctx := context.Background()
	check := func(t *testing.T, err error, code, message string) {
		t.Helper()
		var f *Failure
		if !errors.As(err, &f) || f.Code != code || f.Message != message {
			t.Errorf("error %v, want %s: %s", err, code, message)
		}
	}
	_, err := File(ctx, writeTemp(t, "f.pdf", []byte("%PDF-1.4\nthis is not a pdf at all\n")), PDF, Options{})
	check(t, err, CodeCorrupt, "the PDF cannot be read")
	_, err = File(ctx, writeTemp(t, "f.pdf", makePDF(payslip)), PDF, Options{MaxPages: 2})
	check(t, err, CodeTooMany, "3 pages; at most 2 are processed")
	// Exactly MaxPages is read.
	res, err := File(ctx, writeTemp(t, "f.pdf", makePDF(payslip)), PDF, Options{MaxPages: 3})
	if err != nil || res.PageCount != 3 || res.Metadata["Pages"] != "3" {
		t.Errorf("three pages of at most 3: %v", err)
	}
	if _, err := exec.LookPath("qpdf"); err != nil {
		t.Skip("qpdf is not installed")
	}
	src := writeTemp(t, "plain.pdf", makePDF(payslip[:1]))
	dst := src + ".enc.pdf"
	if out, err := exec.Command("qpdf", "--encrypt", "user", "owner", "256", "--", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v %s", err, out)
	}
	_, err = File(ctx, dst, PDF, Options{})
	check(t, err, CodeEncrypted, "the PDF is encrypted")
}

// The document information is kept as pdfinfo showed it (dates in local time), from
// the pdftotext run.
func TestPDFMetadata(t *testing.T) {
	needTools(t)
	pdf := samplepdf.Assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
		"<< /Title (A & B <c> \"q\") /Author (M\\374ller) /CreationDate (D:20180206092734-01'00') /Producer (p\\nq) /Subject () >>",
	})
	if !bytes.Contains(pdf, []byte("/Root 1 0 R")) {
		t.Fatalf("no catalog in %s", pdf)
	}
	pdf = bytes.Replace(pdf, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Info 4 0 R"), 1)
	path := writeTemp(t, "info.pdf", pdf)
	res, err := File(context.Background(), path, PDF, Options{MinTextChars: 1, MaxOCRPages: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{}.withDefaults()
	info, err := readPDFInfo(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(res.Metadata, info.meta) {
		t.Errorf("metadata %q, pdfinfo's %q", res.Metadata, info.meta)
	}
	want := map[string]string{"Title": `A & B <c> "q"`, "Author": "Müller", "Producer": "p", "Subject": "", "Pages": "1",
		"CreationDate": time.Date(2018, 2, 6, 10, 27, 34, 0, time.UTC).In(time.Local).Format("Mon Jan _2 15:04:05 2006 MST")}
	if !maps.Equal(res.Metadata, want) {
		t.Errorf("metadata %q, want %q", res.Metadata, want)
	}
}

// A tiny PDF declaring a huge blank page is rendered within a pixel budget: quickly,
// and not refused as corrupt.
func TestHugePage(t *testing.T) {
	needTools(t)
	huge := samplepdf.Assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] >>",
	})
	start := time.Now()
	res, err := File(context.Background(), writeTemp(t, "huge.pdf", huge), PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 1 || res.Pages[0].Chars != 0 {
		t.Errorf("pages %+v", res.Pages)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestClean(t *testing.T) {
	if got := clean("a\x00b\r\nc  \t\n\x07d\xff\re"); got != "ab\nc\nd\uFFFD\ne" {
		t.Errorf("clean = %q", got)
	}
	r := parseTSV("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n1\t1\t0\t0\t0\t0\t0\t0\t200\t100\t-1\t\n5\t1\t1\t1\t1\t1\t10\t10\t40\t10\t90\tNetto\n5\t1\t1\t1\t1\t2\t60\t10\t50\t10\t70\t3.250,00\n5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t-1\t\n5\t1\t1\t1\t2\t2\t10\t30\t30\t10\t80\tEUR\n")
	if r.text != "Netto 3.250,00\nEUR" || math.Abs(r.conf-0.8) > 1e-9 || r.width != 200 || r.height != 100 {
		t.Errorf("parseTSV = %q, %v, %dx%d", r.text, r.conf, r.width, r.height)
	}
	want := []document.Word{
		{Text: "Netto", Box: document.Box{X0: 0.05, Y0: 0.1, X1: 0.25, Y1: 0.2}, Conf: 0.9, Block: 1, Line: 0},
		{Text: "3.250,00", Box: document.Box{X0: 0.3, Y0: 0.1, X1: 0.55, Y1: 0.2}, Conf: 0.7, Block: 1, Line: 0},
		{Text: "EUR", Box: document.Box{X0: 0.05, Y0: 0.3, X1: 0.2, Y1: 0.4}, Conf: 0.8, Block: 1, Line: 1},
	}
	if len(r.words) != len(want) {
		t.Fatalf("words %+v", r.words)
	}
	for i, w := range want {
		g := r.words[i]
		if g.Text != w.Text || g.Block != w.Block || g.Line != w.Line || math.Abs(g.Conf-w.Conf) > 1e-9 ||
			math.Abs(g.Box.X0-w.Box.X0)+math.Abs(g.Box.Y0-w.Box.Y0)+math.Abs(g.Box.X1-w.Box.X1)+math.Abs(g.Box.Y1-w.Box.Y1) > 1e-9 {
			t.Errorf("word %d = %+v, want %+v", i, g, w)
		}
	}
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{"%PDF-1.7", "\x89PNG\r\n\x1a\n", "\xff\xd8\xff\xe0", "PK\x03\x04", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		switch Detect(b) {
		case "", PDF, PNG, JPEG, DOC, DOCX:
		default:
			t.Fatal("unknown type")
		}
	})
}

// Any bytes as a DOCX: a result or a Failure, never a panic or another error.
func FuzzDOCX(f *testing.F) {
	f.Add(makeDOCX(f, [][]string{{"a"}, {"b"}}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := docx(context.Background(), writeTemp(t, "f.docx", b))
		var fl *Failure
		if err != nil && !errors.As(err, &fl) {
			t.Fatalf("error %v is not a Failure", err)
		}
		if err == nil && res.PageCount != len(res.Pages) {
			t.Fatal("page count")
		}
	})
}

// Any bytes after a PDF header: a result or a Failure.
func FuzzPDF(f *testing.F) {
	if CheckTools() != nil {
		f.Skip("tools missing")
	}
	f.Add(makePDF([][]string{{"hello"}}))
	f.Add([]byte("%PDF-1.4\n1 0 obj << >> endobj trailer << /Root 1 0 R >>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = append([]byte("%PDF-"), b...)
		res, err := File(context.Background(), writeTemp(t, "f.pdf", b), PDF, Options{Timeout: 3 * time.Second, MaxPages: 5, MinTextChars: 1})
		var fl *Failure
		if err != nil && !errors.As(err, &fl) {
			t.Fatalf("error %v is not a Failure", err)
		}
		if err == nil && len(res.Pages) != res.PageCount {
			t.Fatal("page count")
		}
	})
}

// Any bytes after an image or Word signature: a result or a Failure.
func FuzzImageAndDOC(f *testing.F) {
	if CheckTools() != nil {
		f.Skip("tools missing")
	}
	f.Add(uint8(0), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	f.Add(uint8(1), []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F'})
	f.Add(uint8(2), append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...))
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		types := []struct {
			ct  string
			sig []byte
		}{{PNG, []byte("\x89PNG\r\n\x1a\n")}, {JPEG, []byte{0xFF, 0xD8, 0xFF}}, {DOC, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}}}
		tc := types[int(kind)%len(types)]
		if !bytes.HasPrefix(b, tc.sig) {
			b = append(append([]byte{}, tc.sig...), b...)
		}
		res, err := File(context.Background(), writeTemp(t, "f", b), tc.ct, Options{Timeout: 5 * time.Second})
		var fl *Failure
		if err != nil && !errors.As(err, &fl) {
			t.Fatalf("error %v is not a Failure", err)
		}
		if err == nil && len(res.Pages) != res.PageCount {
			t.Fatal("page count")
		}
	})
}

// A DOCX nested thousands of elements deep is refused without growing memory.
func TestDOCXDeepNesting(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("_rels/.rels")
	w.Write([]byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`))
	w, _ = z.CreateHeader(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store})
	w.Write(bytes.Repeat([]byte("<a>"), 1<<20))
	z.Close()
	_, err := File(context.Background(), writeTemp(t, "deep.docx", buf.Bytes()), DOCX, Options{})
	wantFailure(t, err, CodeCorrupt)
}

// An image declaring gigapixels never reaches tesseract.
func TestHugeImage(t *testing.T) {
	needTools(t)
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 30000)
	binary.BigEndian.PutUint32(ihdr[4:], 30000)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grayscale
	var png bytes.Buffer
	png.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&png, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	png.Write(chunk)
	binary.Write(&png, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	start := time.Now()
	_, err := File(context.Background(), writeTemp(t, "huge.png", png.Bytes()), PNG, Options{})
	wantFailure(t, err, CodeError)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// A few kilobytes of blank pages cannot buy minutes of OCR: the page past MaxOCRPages
// fails the file (too_many_pages) before it is rendered.
func TestOCRPageCap(t *testing.T) {
	needTools(t)
	blank := writeTemp(t, "blank.pdf", samplepdf.Blank(40))
	start := time.Now()
	_, err := File(context.Background(), blank, PDF, Options{MaxOCRPages: 3})
	wantFailure(t, err, CodeTooMany)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("refusing took %v: pages past the cap were read", d)
	}
	// Within the cap the same pages are read (as blank).
	few := writeTemp(t, "few.pdf", samplepdf.Blank(2))
	res, err := File(context.Background(), few, PDF, Options{MaxOCRPages: 3})
	if err != nil || len(res.Pages) != 2 {
		t.Fatalf("two blank pages under a cap of 3: %v %+v", err, res)
	}
}

// A PDF whose words with their boxes would pass the output cap is still read, as text
// without words (pdftotext -layout), rather than refused.
func TestTextPDFPastTheBoxesCap(t *testing.T) {
	needTools(t)
	res, err := File(context.Background(), writeTemp(t, "a.pdf", makePDF(payslip)), PDF, Options{MaxOutputBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 3 || !strings.Contains(res.Pages[0].Text, "Nettobezug 3.250,00 EUR") || res.Pages[0].Words != nil || res.Pages[0].Width != 612 {
		t.Errorf("pages %+v", res.Pages)
	}
	// Past the cap even as text, the file fails as before.
	_, err = File(context.Background(), writeTemp(t, "a.pdf", makePDF(payslip)), PDF, Options{MaxOutputBytes: 64})
	wantFailure(t, err, CodeError)
}

// A text PDF costs one tool run, pdftotext's: its words, their boxes, the page text,
// the page count and the document information come from the same -bbox-layout output,
// and pdfinfo does not run.
func TestTextPDFOnePdftotextRun(t *testing.T) {
	needTools(t)
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "runs")
	for _, tool := range []string{"pdftotext", "pdfinfo"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho \"" + tool + " $*\" >> " + log + "\nexec " + real + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	res, err := File(context.Background(), writeTemp(t, "a.pdf", makePDF(payslip)), PDF, Options{Limits: Limits{Confinement: Unconfined}})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// One page more than are read, to know a longer PDF without pdfinfo.
	if n := strings.Count(string(runs), "\n"); n != 1 || !strings.HasPrefix(string(runs), "pdftotext -bbox-layout -enc UTF-8 -l 501 ") {
		t.Errorf("%d tool runs: %s", n, runs)
	}
	if len(res.Pages) != 3 || res.PageCount != 3 || !strings.Contains(res.Pages[0].Text, "Nettobezug 3.250,00 EUR") || len(res.Pages[0].Words) == 0 {
		t.Errorf("pages %+v", res.Pages)
	}
}
