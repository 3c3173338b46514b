package engine

import (
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/mrz"
)

// Readability thresholds. A page is readable when it holds enough characters and, when
// its text came from OCR, tesseract's mean word confidence is high enough that numbers
// and names can be trusted.
const (
	minPageChars     = 20
	minDocumentChars = 50
	minOCRConfidence = 0.6
)

// readability judges a document: passed when every page is readable, partial when some
// are, failed when none is or the whole document holds almost no text.
func readability(d *evidence.Document) string {
	total, readable := 0, 0
	for _, p := range d.Pages {
		total += p.Chars
		if pageReadable(p) {
			readable++
		}
	}
	switch {
	case total < minDocumentChars || readable == 0:
		return ReadabilityFailed
	case readable < len(d.Pages):
		return ReadabilityPartial
	}
	return ReadabilityPassed
}

// pageReadable: enough characters, and a text layer, or OCR confident on the whole or on
// what matters: a photo of a card reads its portrait and guilloches as low-confidence
// scraps, and a machine-readable zone whose check digits hold shows that its data were
// read right all the same.
func pageReadable(p evidence.Page) bool {
	if p.Chars < minPageChars {
		return false
	}
	if !p.OCR || p.OCRConfidence == nil || *p.OCRConfidence >= minOCRConfidence {
		return true
	}
	for _, z := range mrz.Find(strings.Split(p.Text, "\n")) {
		if z.Confirmed() >= 2 {
			return true
		}
	}
	return false
}
