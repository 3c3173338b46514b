package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	imgpkg "image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/engine/mrz"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// checkGeometry asserts what every reader of Page.Words relies on: each word's text
// occurs in the page text, boxes are ordered corners within [0, 1], confidences in
// [0, 1].
func checkGeometry(t *testing.T, res *Result) {
	t.Helper()
	for _, p := range res.Pages {
		for _, w := range p.Words {
			b := w.Box
			if w.Text == "" || !strings.Contains(p.Text, w.Text) {
				t.Errorf("page %d: word %q not in the page text", p.Number, w.Text)
			}
			if !(0 <= b.X0 && b.X0 <= b.X1 && b.X1 <= 1 && 0 <= b.Y0 && b.Y0 <= b.Y1 && b.Y1 <= 1) {
				t.Errorf("page %d: word %q box %+v outside [0,1]", p.Number, w.Text, b)
			}
			if w.Conf < 0 || w.Conf > 1 {
				t.Errorf("page %d: word %q conf %v", p.Number, w.Text, w.Conf)
			}
		}
	}
}

func wordNamed(p document.Page, text string) (document.Word, bool) {
	for _, w := range p.Words {
		if w.Text == text {
			return w, true
		}
	}
	return document.Word{}, false
}

func TestTextPDFWords(t *testing.T) {
	needTools(t)
	res, err := File(context.Background(), writeTemp(t, "a.pdf", makePDF(payslip)), PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGeometry(t, res)
	p := res.Pages[0]
	if p.Width != 612 || p.Height != 792 || len(p.Words) != 9 {
		t.Fatalf("page 1: %vx%v, words %+v", p.Width, p.Height, p.Words)
	}
	netto, ok1 := wordNamed(p, "Nettobezug")
	amount, ok2 := wordNamed(p, "3.250,00")
	title, ok3 := wordNamed(p, "Gehaltsabrechnung")
	if !ok1 || !ok2 || !ok3 || netto.Line != amount.Line || amount.Box.X0 <= netto.Box.X1 || title.Box.Y1 > netto.Box.Y0 || netto.Conf != 1 {
		t.Errorf("Nettobezug %+v, amount %+v, title %+v", netto, amount, title)
	}
}

func TestScanWords(t *testing.T) {
	needTools(t)
	jpegs, w, h := scanOf(t, makePDF(payslip[:1]), 200)
	res, err := File(context.Background(), writeTemp(t, "scan.pdf", imagePDF(jpegs, w, h, 200)), PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGeometry(t, res)
	p := res.Pages[0]
	netto, ok1 := wordNamed(p, "Nettobezug")
	amount, ok2 := wordNamed(p, "3.250,00")
	if !p.OCR || p.Width != 612 || p.Height != 792 || !ok1 || !ok2 || netto.Line != amount.Line || amount.Box.X0 <= netto.Box.X1 || netto.Conf < 0.6 {
		t.Errorf("page %vx%v ocr %v: Nettobezug %+v, amount %+v", p.Width, p.Height, p.OCR, netto, amount)
	}
}

// A DOCX table reads as a printed one: each row one line, its cells side by side by
// the grid's column widths, the header row above the value row; the text is the same
// as without geometry (each cell's paragraph a line of its own).
func TestDOCXGeometry(t *testing.T) {
	needTools(t)
	body := `<w:p><w:r><w:t>Gehaltsabrechnung</w:t></w:r></w:p>` +
		`<w:tbl><w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="1000"/><w:gridCol w:w="2000"/></w:tblGrid>` +
		`<w:tr><w:tc><w:p><w:r><w:t>Bezeichnung</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Menge</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Betrag</w:t></w:r></w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:p><w:r><w:t>Netto Bezug</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>3.250,00</w:t></w:r></w:p></w:tc></w:tr>` +
		`<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Summe</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>3.250,00</w:t></w:r></w:p></w:tc></w:tr>` +
		`</w:tbl><w:p><w:r><w:t>Name:</w:t></w:r><w:r><w:tab/><w:t>Max Müller</w:t></w:r></w:p>`
	res, err := File(context.Background(), writeTemp(t, "t.docx", docxBody(t, body)), DOCX, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGeometry(t, res)
	p := res.Pages[0]
	if want := "Gehaltsabrechnung\nBezeichnung\nMenge\nBetrag\nNetto Bezug\n1\n3.250,00\nSumme\n3.250,00\nName:\tMax Müller"; p.Text != want {
		t.Fatalf("text %q, want %q", p.Text, want)
	}
	var line = map[string]document.Word{}
	for _, w := range p.Words {
		if _, seen := line[w.Text]; !seen {
			line[w.Text] = w
		}
	}
	head, qty, label, value, name, max := line["Betrag"], line["Menge"], line["Netto"], line["3.250,00"], line["Name:"], line["Max"]
	switch {
	case len(p.Words) != 13:
		t.Errorf("%d words: %+v", len(p.Words), p.Words)
	case label.Line != value.Line || head.Line != qty.Line || head.Line >= value.Line:
		t.Errorf("lines: head %d, label %d, value %d", head.Line, label.Line, value.Line)
	case head.Box.Y1 > value.Box.Y0 || value.Box.X0 < head.Box.X0-1e-9 || value.Box.X0 > head.Box.X0+1e-9:
		t.Errorf("the value %+v is not under its header %+v", value.Box, head.Box)
	case label.Box.X1 >= qty.Box.X0 || math.Abs(qty.Box.X0-(docxMargin+0.5*(a4Width-2*docxMargin))/a4Width) > 1e-9:
		t.Errorf("columns by the grid: label %+v, quantity %+v", label.Box, qty.Box)
	case name.Line != max.Line || max.Box.X0 <= name.Box.X1:
		t.Errorf("tabbed paragraph: %+v %+v", name, max)
	}
	// The spanning cell covers the first two columns: its value stands in the third.
	var sum document.Word
	for _, w := range p.Words {
		if w.Text == "3.250,00" && w.Line != value.Line {
			sum = w
		}
	}
	if sum.Box.X0 != value.Box.X0 {
		t.Errorf("the total %+v is not under the amount %+v", sum.Box, value.Box)
	}
}

// docxBody writes a Word document whose body is the given WordprocessingML.
func docxBody(t *testing.T, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	add("_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`)
	add("word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`+body+`</w:body></w:document>`)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upright renders a page of the payslip to gray pixels at 200 dpi.
func uprightPage(t *testing.T) *imgpkg.Gray {
	t.Helper()
	jpegs, _, _ := scanOf(t, makePDF(payslip[:1]), 200)
	m, err := jpeg.Decode(bytes.NewReader(jpegs[0]))
	if err != nil {
		t.Fatal(err)
	}
	return toGray(m)
}

func encodePNG(t *testing.T, g *imgpkg.Gray) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wantUprightPayslip: the page was read and its words stand upright (the long title
// in a box wider than tall), near the top of the page.
func wantUprightPayslip(t *testing.T, res *Result) {
	t.Helper()
	checkGeometry(t, res)
	p := res.Pages[0]
	title, ok := wordNamed(p, "Gehaltsabrechnung")
	if !strings.Contains(p.Text, "Nettobezug 3.250,00 EUR") || !ok || title.Box.X1-title.Box.X0 <= (title.Box.Y1-title.Box.Y0)*p.Height/p.Width || title.Box.Y0 > 0.2 || title.Box.X0 > 0.3 {
		t.Errorf("text %q, title %+v, page %vx%v", p.Text, title, p.Width, p.Height)
	}
}

// A page scanned upside down, or turned either way by 90°, is turned upright after
// tesseract's orientation detection and read again. Turned by 90° clockwise tesseract
// reads the text anyway, in vertical boxes: the page is turned too, for the geometry.
func TestRotatedScanReadAfterOSD(t *testing.T) {
	needTools(t)
	if langs, _ := exec.Command("tesseract", "--list-langs").CombinedOutput(); !strings.Contains(string(langs), "\nosd") {
		t.Skip("tesseract has no orientation data (Debian: tesseract-ocr-osd)")
	}
	g := uprightPage(t)
	for _, o := range []int{3, 6, 8} {
		t.Run(fmt.Sprint("orientation", o), func(t *testing.T) {
			res, err := File(context.Background(), writeTemp(t, "turned.png", encodePNG(t, orient(g, o))), PNG, Options{})
			if err != nil {
				t.Fatal(err)
			}
			wantUprightPayslip(t, res)
		})
	}
}

// withEXIFOrientation puts an APP1 Exif segment with the orientation tag right after a
// JPEG's start marker, big- or little-endian.
func withEXIFOrientation(j []byte, o uint16, order binary.ByteOrder) []byte {
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08")
	if order == binary.LittleEndian {
		tiff = []byte("II\x2a\x00\x08\x00\x00\x00")
	}
	ifd := make([]byte, 2+12+4)
	order.PutUint16(ifd[0:], 1)
	order.PutUint16(ifd[2:], 0x0112)
	order.PutUint16(ifd[4:], 3)
	order.PutUint32(ifd[6:], 1)
	order.PutUint16(ifd[10:], o)
	payload := append(append([]byte("Exif\x00\x00"), tiff...), ifd...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, j[:2]...)
	out = append(append(out, seg...), payload...)
	return append(out, j[2:]...)
}

// A phone photo stored sideways with EXIF orientation 6 (turn 90° clockwise to show)
// is read upright, and so is a transposed one (7), which no turning alone can fix.
func TestJPEGWithEXIFOrientation(t *testing.T) {
	needTools(t)
	g := uprightPage(t)
	for _, tc := range []struct {
		exif, stored int
		order        binary.ByteOrder
	}{{6, 8, binary.BigEndian}, {7, 7, binary.LittleEndian}} {
		t.Run(fmt.Sprint("orientation", tc.exif), func(t *testing.T) {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, orient(g, tc.stored), &jpeg.Options{Quality: 90}); err != nil {
				t.Fatal(err)
			}
			j := withEXIFOrientation(buf.Bytes(), uint16(tc.exif), tc.order)
			if got := exifOrientation(bytes.NewReader(j)); got != tc.exif {
				t.Fatalf("orientation read as %d", got)
			}
			res, err := File(context.Background(), writeTemp(t, "photo.jpg", j), JPEG, Options{})
			if err != nil {
				t.Fatal(err)
			}
			wantUprightPayslip(t, res)
		})
	}
}

func TestEXIFOrientationAbsentOrBroken(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, imgpkg.NewGray(imgpkg.Rect(0, 0, 4, 4)), nil); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	for name, b := range map[string][]byte{
		"none":      plain,
		"truncated": withEXIFOrientation(plain, 6, binary.BigEndian)[:20],
		"bad value": withEXIFOrientation(plain, 9, binary.BigEndian),
		"not jpeg":  []byte("\x89PNG\r\n"),
	} {
		if got := exifOrientation(bytes.NewReader(b)); got != 1 {
			t.Errorf("%s: orientation %d, want 1", name, got)
		}
	}
}

// garbledPDF is a scan whose invisible text layer is consonant soup, as a PDF with a
// font lacking a Unicode mapping reads.
func garbledPDF(t *testing.T, layer string) []byte {
	t.Helper()
	jpegs, _, _ := scanOf(t, makePDF(payslip[:1]), 200)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(jpegs[0]))
	if err != nil {
		t.Fatal(err)
	}
	w, h := cfg.Width, cfg.Height
	colorSpace := "/DeviceRGB"
	if cfg.ColorModel == color.GrayModel {
		colorSpace = "/DeviceGray"
	}
	pw, ph := w*72/200, h*72/200
	content := fmt.Sprintf("q %d 0 0 %d 0 0 cm /Im0 Do Q BT /F1 12 Tf 3 Tr 72 700 Td (%s) Tj ET", pw, ph, layer)
	return samplepdf.Assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject << /Im0 4 0 R >> /Font << /F1 6 0 R >> >> /Contents 5 0 R >>", pw, ph),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream", w, h, colorSpace, len(jpegs[0]), jpegs[0]),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// A text layer that is not the printed text is replaced by the page's OCR.
func TestGarbledTextLayerIsOCRed(t *testing.T) {
	needTools(t)
	soup := "Jhkdowvdeuhfkqxqj Mdqxdu Dueht Ehlvslhc JpeK Qhwwrehcxj Hxur Vfkplgw Wkrpdv Nrhoq Ehuolq"
	res, err := File(context.Background(), writeTemp(t, "garbled.pdf", garbledPDF(t, soup)), PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGeometry(t, res)
	if p := res.Pages[0]; !p.OCR || !strings.Contains(p.Text, "Nettobezug 3.250,00 EUR") || strings.Contains(p.Text, "Jhkdowvdeuhfkqxqj") {
		t.Errorf("ocr %v, text %q", p.OCR, p.Text)
	}
	// A plausible text layer over the same image is kept as it is.
	res, err = File(context.Background(), writeTemp(t, "layer.pdf", garbledPDF(t, "Gehaltsabrechnung Januar 2026 Arbeitgeber Beispiel GmbH")), PDF, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Pages[0]; p.OCR || !strings.Contains(p.Text, "Arbeitgeber Beispiel") {
		t.Errorf("ocr %v, text %q", p.OCR, p.Text)
	}
}

func TestGarbled(t *testing.T) {
	for text, want := range map[string]bool{
		"Gehaltsabrechnung Januar 2026\nArbeitgeber: Beispiel GmbH\nNettobezug 3.250,00 EUR":                                                                                                false,
		"Buchungstag Valuta Verwendungszweck Betrag\n02.01.2026 02.01.2026 SEPA Lastschrift Stadtwerke Koeln GmbH -84,20\nIBAN DE89 3704 0044 0532 0130 00":                                 false,
		"Statement of account\nOpening balance 1,234.56 USD\nClosing balance 2,345.67 USD\nPayroll ACME Inc deposit":                                                                        false,
		"(cid:3)(cid:36)(cid:72)(cid:75)(cid:68)(cid:79)(cid:87)(cid:86) (cid:68)(cid:69)(cid:85)(cid:72)(cid:70)(cid:75)":                                                                  true,
		"\ue001\ue002\ue003\ue004 \ue005\ue006\ue007 \ue008\ue009 Netto":                                                                                                                    true,
		"\ufffd\ufffd\ufffd\ufffd \ufffd\ufffd\ufffd 3.250,00":                                                                                                                              true,
		"Jhkdowvdeuhfkqxqj Mdqxdu Dueht Ehlvslhc JpeK Qhwwrehcxj Hxur Vfkplgw Wkrpdv Nrhoq":                                                                                                 true,
		"#$%& '()* +,-./ !\"#$ %&'( )*+, -./! \"#$% &'() *+,- ./!\" #$%& '()*":                                                                                                              true,
		"Table of Contents\n1 Introduction . . . . . . . . . . . . . . . . . . . . . 1\n2 Structure handling . . . . . . . . . . . . . . . . 3\nIndex . . . . . . . . . . . . . . . . . 33": false,
		"hEkLo wOrLd tHiS iS vErY sTrAnGe cAsInG fOr A rEaL dOcUmEnT":                                                                                                                       true,
	} {
		if got := garbled(text); got != want {
			t.Errorf("garbled(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestParseOSD(t *testing.T) {
	for out, want := range map[string]int{
		"Page number: 0\nOrientation in degrees: 270\nRotate: 90\nOrientation confidence: 3.57\nScript: Latin\n": 90,
		"Rotate: 180\nOrientation confidence: 9.1\n":                                                             180,
		"Rotate: 270\nOrientation confidence: 0.4\n":                                                             0, // unsure
		"Rotate: 0\nOrientation confidence: 12\n":                                                                0,
		"Rotate: 45\nOrientation confidence: 12\n":                                                               0,
		"": 0,
	} {
		if got := parseOSD(out); got != want {
			t.Errorf("parseOSD(%q) = %d, want %d", out, got, want)
		}
	}
}

// idCardMRZ is a TD1 zone with valid check digits.
func idCardMRZ() []string {
	num, birth, expiry := "CF2R4H8K1", "840812", "311031"
	l1 := "IDD<<" + num + string(mrz.CheckDigit(num)) + strings.Repeat("<", 15)
	l2 := birth + string(mrz.CheckDigit(birth)) + "F" + expiry + string(mrz.CheckDigit(expiry)) + "D" + strings.Repeat("<", 13)
	l2 += string(mrz.CheckDigit(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]))
	l3 := "MUSTERFRAU<<ANNA<LENA"
	return []string{l1, l2, l3 + strings.Repeat("<", 30-len(l3))}
}

// idCardScan is an identity card with the zone at the bottom, as a 300 dpi scan of a
// card of 420×270 points. It is drawn with the Go fonts, which the test ships (in
// golang.org/x/image), not rendered from a PDF: a PDF's base fonts are whatever
// fontconfig maps them to on the machine (URW's Nimbus Mono reads "8" as "S").
func idCardScan(t *testing.T, dir string) string {
	t.Helper()
	const dpi = 300
	scale := dpi / 72.0
	card := imgpkg.NewGray(imgpkg.Rect(0, 0, int(420*scale), int(270*scale)))
	draw.Draw(card, card.Bounds(), imgpkg.White, imgpkg.Point{}, draw.Src)
	face := func(ttf []byte) font.Face {
		f, err := opentype.Parse(ttf)
		if err != nil {
			t.Fatal(err)
		}
		fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 11, DPI: dpi, Hinting: font.HintingFull})
		if err != nil {
			t.Fatal(err)
		}
		return fc
	}
	regular, bold, mono := face(goregular.TTF), face(gobold.TTF), face(gomono.TTF)
	lines := []struct {
		face font.Face
		text string
	}{
		{bold, "BUNDESREPUBLIK DEUTSCHLAND"}, {regular, "PERSONALAUSWEIS / IDENTITY CARD"},
		{regular, "Name: MUSTERFRAU"}, {regular, "Vornamen: ANNA LENA"}, {regular, "Geburtstag: 12.08.1984"},
		{regular, "Staatsangehoerigkeit: DEUTSCH"}, {regular, "Gueltig bis: 31.10.2031"}, {}, {}, {},
	}
	for _, l := range idCardMRZ() {
		lines = append(lines, struct {
			face font.Face
			text string
		}{mono, l})
	}
	for i, l := range lines {
		if l.face == nil {
			continue
		}
		d := font.Drawer{Dst: card, Src: imgpkg.Black, Face: l.face, Dot: fixed.P(int(20*scale), int((30+float64(i)*16)*scale))}
		d.DrawString(l.text)
	}
	path := filepath.Join(dir, "card.png")
	if err := os.WriteFile(path, encodePNG(t, card), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The MRZ pass reads the bottom band of an identity document with the zone's alphabet
// and hands back its lines with boxes in the band; through File, the page text carries
// a zone whose check digits hold.
func TestMRZPass(t *testing.T) {
	needTools(t)
	path := idCardScan(t, t.TempDir())
	opt, in, dir := inJob(t, Options{}.withDefaults(), path)
	zone, err := readMRZ(context.Background(), dir, &pageImage{path: in}, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, z := range zone {
		got = append(got, z.text)
		if z.box.Y0 < mrzBandFrom || z.box.Y1 > 1 || z.box.X0 > 0.3 {
			t.Errorf("line %q box %+v", z.text, z.box)
		}
	}
	// The zone is judged as the engine reads it: OCR may read a filler as a letter, and
	// the reader must still find every field, confirmed by its check digit.
	wantZone(t, got)
	res, err := File(context.Background(), path, PNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGeometry(t, res)
	wantZone(t, strings.Split(res.Pages[0].Text, "\n"))
}

// A band of scanner noise on blank paper holds no print: the MRZ pass skips it (it
// cost tesseract minutes on the blank lower half of a card's front). A band with print
// is cut to it, with a margin, and a faint print still counts.
func TestInkBounds(t *testing.T) {
	noise := func() *imgpkg.Gray {
		g := imgpkg.NewGray(imgpkg.Rect(0, 100, 1600, 900)) // a band: rows 100 to 900
		for i := range g.Pix {
			g.Pix[i] = uint8(226 + (i*7919+i/1600*104729)%20) // paper 226 to 245
		}
		return g
	}
	if r, ok := inkBounds(noise()); ok {
		t.Errorf("blank noise: ink at %v", r)
	}
	for _, gray := range []uint8{0, 190} { // black print, and a faded photo's
		g := noise()
		draw.Draw(g, imgpkg.Rect(300, 500, 1100, 540), imgpkg.NewUniform(color.Gray{Y: gray}), imgpkg.Point{}, draw.Src)
		r, ok := inkBounds(g)
		if want := imgpkg.Rect(300-inkMargin, 500-inkMargin, 1100+inkMargin, 540+inkMargin); !ok || r != want {
			t.Errorf("print of gray %d: %v %v, want %v", gray, r, ok, want)
		}
	}
	// A few specks of dust are not print.
	g := noise()
	draw.Draw(g, imgpkg.Rect(10, 110, 20, 120), imgpkg.NewUniform(color.Gray{}), imgpkg.Point{}, draw.Src)
	if r, ok := inkBounds(g); ok {
		t.Errorf("a speck: ink at %v", r)
	}
}

// An MRZ pass is bounded by a multiple of the page's first reading; one that runs out
// of time keeps the page's reading instead of failing the file.
func TestMRZPassOverBudget(t *testing.T) {
	needTools(t)
	if mrzBudget(time.Second) != minMRZBudget || mrzBudget(time.Minute) != mrzBudgetFactor*time.Minute {
		t.Errorf("budgets %v %v", mrzBudget(time.Second), mrzBudget(time.Minute))
	}
	path := idCardScan(t, t.TempDir())
	opt, in, dir := inJob(t, Options{}.withDefaults(), path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	zone, err := readMRZ(ctx, dir, &pageImage{path: in}, nil, opt)
	if err != nil || zone != nil {
		t.Errorf("out of time: %v %v", zone, err)
	}
}

// wantZone fails unless lines hold idCardMRZ's zone, every field read and confirmed.
func wantZone(t *testing.T, lines []string) {
	t.Helper()
	zones := mrz.Find(lines)
	if len(zones) != 1 {
		t.Fatalf("%d zones in %q", len(zones), lines)
	}
	z := zones[0]
	if z.Format != mrz.TD1 || z.Number != "CF2R4H8K1" || z.Birth != "840812" || z.Expiry != "311031" ||
		!z.NumberOK || !z.BirthOK || !z.ExpiryOK || z.Surname != "MUSTERFRAU" || z.Given != "ANNA LENA" || z.Kind() != "id_card" {
		t.Errorf("zone %+v read from %q", z, lines)
	}
}

// The pass's zone is added when the first reading has none, or when only the pass's
// check digits hold; never next to a valid first zone or a just as broken one.
func TestMRZToAppend(t *testing.T) {
	valid := idCardMRZ()
	broken := slices.Clone(valid)
	broken[0] = strings.Replace(broken[0], "CF2", "CF7", 1)
	band := func(lines []string) []mrzBand {
		var out []mrzBand
		for _, l := range lines {
			out = append(out, mrzBand{text: l})
		}
		return out
	}
	head := "PERSONALAUSWEIS\nName: MUSTERFRAU\n"
	for _, tc := range []struct {
		name  string
		first string
		pass  []string
		add   bool
	}{
		{"no zone read", head, broken, true},
		{"only the pass valid", head + strings.Join(broken, "\n"), valid, true},
		{"first valid", head + strings.Join(valid, "\n"), broken, false},
		{"both broken", head + strings.Join(broken, "\n"), broken[:2], false},
		{"same zone", head + strings.Join(valid, "\n"), valid, false},
		{"nothing in the band", head, nil, false},
	} {
		if got := mrzToAppend(tc.first, band(tc.pass)); (len(got) > 0) != tc.add {
			t.Errorf("%s: appended %v, want %v", tc.name, got, tc.add)
		}
	}
}

func TestLooksLikeIDDocument(t *testing.T) {
	for text, want := range map[string]bool{
		"P<DEUMUSTERMANN<<ERIKA":                 true,
		"IDD<<T22000129":                         true,
		"REISEPASS / PASSPORT":                   true,
		"Personalausweis":                        true,
		"Gehaltsabrechnung Januar 2026\nNetto 1": false,
		"IDEE GmbH\nRechnung":                    true, // a line starting "ID" plus a capital: one band pass more, no harm
		"Kunden-ID: 12345":                       false,
		"CARTA DI IDENTITÀ / IDENTITY CARD":      true,
		"DOCUMENTO NACIONAL DE IDENTIDAD":        true,
		"TITRE DE SÉJOUR":                        true,
		"CKITACA00000AA4KKKKKKKKKKKKKKK":         true, // a zone line with its fillers read as K
		"IBAN DE89 3704 0044 0532 0130 00":       false,
	} {
		if got := looksLikeIDDocument(text); got != want {
			t.Errorf("looksLikeIDDocument(%q) = %v, want %v", text, got, want)
		}
	}
}

// A page that reads with low confidence at the rendering resolution is rendered again
// at 300 dpi and the better reading kept.
func TestLowConfidencePageReadAgainAtHigherResolution(t *testing.T) {
	needTools(t)
	small := samplepdf.TextLayout([][]string{{"Gehaltsabrechnung Januar 2026", "Arbeitgeber: Beispiel GmbH", "Nettobezug 3.250,00 EUR"}}, samplepdf.Layout{FontSize: 6, Width: 612, Height: 792})
	jpegs, w, h := scanOf(t, small, 300)
	path := writeTemp(t, "scan.pdf", imagePDF(jpegs, w, h, 300))
	opt, in, dir := inJob(t, Options{DPI: 100}.withDefaults(), path)
	low, err := renderPage(context.Background(), in, dir, "low", 1, 792, opt.DPI, opt)
	if err != nil {
		t.Fatal(err)
	}
	first, err := tesseract(context.Background(), low, opt)
	if err != nil {
		t.Fatal(err)
	}
	if first.conf >= hiResBelow {
		t.Fatalf("at %d dpi the page reads with confidence %v: no test", opt.DPI, first.conf)
	}
	res, err := File(context.Background(), path, PDF, Options{DPI: opt.DPI})
	if err != nil {
		t.Fatal(err)
	}
	checkGeometry(t, res)
	p := res.Pages[0]
	if !strings.Contains(p.Text, "Nettobezug 3.250,00 EUR") || *p.OCRConfidence < hiResBelow || p.Width != 612 {
		t.Errorf("conf %v (first reading %v), text %q", *p.OCRConfidence, first.conf, p.Text)
	}
}

// The band for the MRZ pass stands around the first reading's traces of a zone (a card
// scanned on the top half of an A4 sheet), else at the bottom of the page.
func TestMRZBandOf(t *testing.T) {
	words := []document.Word{
		{Text: "PERSONALAUSWEIS", Box: document.Box{X0: 0.1, Y0: 0.05, X1: 0.4, Y1: 0.07}},
		{Text: "IDD<<R47N651H77<<<<<", Box: document.Box{X0: 0.1, Y0: 0.30, X1: 0.6, Y1: 0.32}},
		{Text: "9408078F3304237D<<<<<<<<<<<<<2", Box: document.Box{X0: 0.1, Y0: 0.33, X1: 0.6, Y1: 0.35}},
		{Text: "Anschrift", Box: document.Box{X0: 0.1, Y0: 0.10, X1: 0.3, Y1: 0.12}},
	}
	top, bottom := mrzBandOf(words)
	if math.Abs(top-0.26) > 1e-9 || math.Abs(bottom-0.39) > 1e-9 {
		t.Errorf("band %v–%v, want 0.26–0.39", top, bottom)
	}
	if top, bottom := mrzBandOf(words[:1]); top != mrzBandFrom || bottom != 1 {
		t.Errorf("band without traces %v–%v", top, bottom)
	}
}

// A valid zone from the MRZ pass takes the place of the first reading's broken one at
// the end of the page text, with its own words; the rest of the page stays as read.
func TestMRZPassReplacesBrokenZone(t *testing.T) {
	valid := idCardMRZ()
	broken := []string{"IDD<<CF7R4H8K1" + valid[0][14:], valid[1], valid[2]}
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t10\t40\t5\t95\tPERSONALAUSWEIS\n"
	for i, l := range broken {
		tsv += fmt.Sprintf("5\t1\t2\t1\t%d\t1\t10\t%d\t80\t5\t80\t%s\n", i+1, 70+8*i, l)
	}
	var zone []mrzBand
	for i, l := range valid {
		zone = append(zone, mrzBand{text: l, box: document.Box{X0: 0.1, Y0: 0.7 + 0.08*float64(i), X1: 0.9, Y1: 0.75 + 0.08*float64(i)}})
	}
	p := scanReading{tsv: parseTSV(tsv), mrz: zone}.page()
	if want := "PERSONALAUSWEIS\n" + strings.Join(valid, "\n"); p.Text != want {
		t.Fatalf("text %q, want %q", p.Text, want)
	}
	if len(p.Words) != 4 || p.Words[0].Text != "PERSONALAUSWEIS" || p.Words[1].Text != valid[0] || p.Words[1].Box != zone[0].box {
		t.Errorf("words %+v", p.Words)
	}
	// A first reading without a zone keeps all its lines; the zone follows.
	p = scanReading{tsv: parseTSV(tsv[:strings.Index(tsv, "PERSONALAUSWEIS")+len("PERSONALAUSWEIS\n")]), mrz: zone}.page()
	if want := "PERSONALAUSWEIS\n" + strings.Join(valid, "\n"); p.Text != want {
		t.Errorf("text %q, want %q", p.Text, want)
	}
}
