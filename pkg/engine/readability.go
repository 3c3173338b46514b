package engine

import "github.com/doceval/doceval/pkg/engine/evidence"

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

func pageReadable(p evidence.Page) bool {
	if p.Chars < minPageChars {
		return false
	}
	return !p.OCR || p.OCRConfidence == nil || *p.OCRConfidence >= minOCRConfidence
}
