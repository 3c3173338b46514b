// Package document holds what extraction makes of a document: the text of each page,
// with its words and their boxes where the source gives geometry. Extraction makes it,
// the extractor service sends it, ingest stores it, and the engine reads it as it is
// (evidence.Page is this Page): one type from the file to the evaluation.
package document

// Page is the text of one page.
type Page struct {
	Number        int
	Text          string
	Chars         int      // non-space characters
	OCR           bool     // the text came from OCR
	OCRConfidence *float64 // mean word confidence in [0, 1] when OCR ran
	// Width and Height are the page's size in its source's unit: points for a PDF page
	// (OCRed or not), pixels for an image, a nominal A4 in points for DOCX; zero when
	// unknown. They give boxes their aspect ratio.
	Width, Height float64
	// Words are the page's words with their boxes, in the extractor's reading order; every
	// word's Text occurs in Text. Nil when there is no geometry (a DOC file, or a page
	// stored before geometry was kept); readers fall back to the lines of Text then.
	Words []Word
}

// Word is one word on a page.
type Word struct {
	Text string
	Box  Box
	// Conf is the OCR engine's confidence in the word, in [0, 1]; 1 for a text layer.
	Conf float64
	// Block and Line are the extractor's own grouping (tesseract's block and line,
	// poppler's flow and line, a DOCX paragraph or table row); words sharing both stand on
	// one line. -1 when the extractor gave none.
	Block, Line int
}

// Box is a rectangle in page-relative coordinates: (X0, Y0) the top-left corner and
// (X1, Y1) the bottom-right one, each a fraction in [0, 1] of the page's width or height.
type Box struct{ X0, Y0, X1, Y1 float64 }
