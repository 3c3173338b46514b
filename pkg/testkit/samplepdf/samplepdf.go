// Package samplepdf writes small, valid PDF documents: text pages in Helvetica, or
// pages that are only a JPEG (a scan). make run puts a sample payslip under .data for
// the quickstart, and tests use it to build their fixtures; the synthetic corpus
// (pkg/devtools/corpus) lays out realistic documents with TextLayout.
package samplepdf

import (
	"bytes"
	"fmt"
	"image/color"
	"image/jpeg"
	"strconv"
	"strings"
)

// Text returns a PDF with one page per entry, each line of the entry on its own line,
// in 16 pt Helvetica. Text is encoded in Windows-1252 (umlauts, ß and € print).
func Text(pages [][]string) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	kids := make([]string, len(pages))
	for i, lines := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
		var content strings.Builder
		content.WriteString("BT /F1 16 Tf 72 760 Td 22 TL\n")
		for _, l := range lines {
			fmt.Fprintf(&content, "(%s) Tj T*\n", pdfString(l))
		}
		content.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			stream("", content.String()))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return Assemble(objs)
}

// Scan returns a PDF whose pages are only JPEG images of w×h pixels at dpi. A
// grayscale (one-component) JPEG is declared DeviceGray, any other DeviceRGB.
func Scan(jpegs [][]byte, w, h, dpi int) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	kids := make([]string, len(jpegs))
	pw, ph := w*72/dpi, h*72/dpi
	for i, j := range jpegs {
		kids[i] = fmt.Sprintf("%d 0 R", 3+3*i)
		colorSpace := "/DeviceRGB"
		if cfg, err := jpeg.DecodeConfig(bytes.NewReader(j)); err == nil && cfg.ColorModel == color.GrayModel {
			colorSpace = "/DeviceGray"
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>", pw, ph, 4+3*i, 5+3*i),
			stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /DCTDecode", w, h, colorSpace), string(j)),
			stream("", fmt.Sprintf("q %d 0 0 %d 0 0 cm /Im0 Do Q", pw, ph)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(jpegs))
	return Assemble(objs)
}

func stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// Blank is a PDF of n blank A4 pages with no text layer: every page goes to OCR.
func Blank(n int) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	kids := make([]string, n)
	for i := range n {
		kids[i] = strconv.Itoa(3+i) + " 0 R"
	}
	objs = append(objs, "<< /Type /Pages /Kids ["+strings.Join(kids, " ")+"] /Count "+strconv.Itoa(n)+" >>")
	for range n {
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>")
	}
	return Assemble(objs)
}

// Assemble numbers the objects from 1 (the first is the catalog) and writes the file
// with its cross-reference table.
func Assemble(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
