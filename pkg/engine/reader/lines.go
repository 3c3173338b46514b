package reader

import (
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// line is one line of a page, with its byte range in the page text.
type line struct {
	page       int // page number
	idx        int // index in the document's lines
	start, end int // byte range in the page text
	text       string
	f          folded
}

// text is a document split into lines, every line remembering where it came from.
type text struct {
	doc   *evidence.Document
	lines []line
	pages map[int]string
	// pairs maps a label line to its value line where OCR split a table into a label
	// column and a value column (see pairColumns).
	pairs map[[2]int]line
	ocr   bool // some page's text came from OCR
}

func newText(doc *evidence.Document) *text {
	t := &text{doc: doc, pages: map[int]string{}}
	ocr := false
	for _, p := range doc.Pages {
		t.pages[p.Number] = p.Text
		off := 0
		for _, l := range strings.SplitAfter(p.Text, "\n") {
			content := strings.TrimRight(l, "\r\n")
			if strings.TrimSpace(content) != "" {
				t.lines = append(t.lines, line{page: p.Number, idx: len(t.lines), start: off, end: off + len(content), text: content, f: fold(content)})
			}
			off += len(l)
		}
		if p.OCR {
			ocr = true
		}
	}
	if ocr {
		t.ocr = true
		t.pairs = t.pairColumns()
	}
	return t
}

// next returns the line after l on the same page, if any.
func (t *text) next(l line) (line, bool) {
	if l.idx+1 < len(t.lines) && t.lines[l.idx+1].page == l.page {
		return t.lines[l.idx+1], true
	}
	return line{}, false
}

// cite quotes the page text from line a to line b (same page) inclusive.
func (t *text) cite(a, b line) evidence.Citation {
	return t.doc.Cite(a.page, t.pages[a.page][a.start:b.end])
}

// citeLine quotes one line.
func (t *text) citeLine(l line) evidence.Citation { return t.cite(l, l) }

// labelHit is a label found on a line: rest is the original text after it.
type labelHit struct {
	l    line
	end  int // byte offset in l.text where the label ends
	rest string
}

// find returns every line where the label pattern matches, in order, the first match
// per line.
func (t *text) find(spec string) []labelHit {
	re := labelPattern(spec)
	var out []labelHit
	for _, l := range t.lines {
		loc := re.FindStringIndex(l.f.s)
		if loc == nil {
			continue
		}
		end := l.f.orig[loc[1]]
		out = append(out, labelHit{l: l, end: end, rest: l.text[end:]})
	}
	return out
}

// findStart is find restricted to labels at the start of a line (after white space,
// numbering like "1." and bullets).
func (t *text) findStart(spec string) []labelHit {
	var out []labelHit
	re := labelPattern(spec)
	for _, l := range t.lines {
		s := l.f.s
		trimmed := strings.TrimLeft(s, " \t-•*0123456789.")
		off := len(s) - len(trimmed)
		loc := re.FindStringIndex(trimmed)
		if loc == nil || loc[0] != 0 {
			continue
		}
		end := l.f.orig[off+loc[1]]
		out = append(out, labelHit{l: l, end: end, rest: l.text[end:]})
	}
	return out
}

// valueAfter reads a value after a label: on the rest of the label's line, else on
// the next line (value under its label, or a Word table cell). It returns the value,
// the citation, and whether the value was on the label's line.
func valueAfter[T any](t *text, h labelHit, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	var zero T
	if h.l.idx < 0 {
		return zero, evidence.Citation{}, false
	}
	if v, ok := read(h.rest); ok {
		return v, t.citeLine(h.l), true
	}
	if n, ok := t.next(h.l); ok {
		if v, ok := read(n.text); ok {
			return v, t.cite(h.l, n), true
		}
	}
	if v, c, ok := pairedValue(t, h.l, read); ok {
		return v, c, true
	}
	return zero, evidence.Citation{}, false
}

// lineValue reads a value on the rest of the label's line only.
func lineValue[T any](t *text, h labelHit, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	if v, ok := read(h.rest); ok && h.l.idx >= 0 {
		return v, t.citeLine(h.l), true
	}
	if h.l.idx >= 0 {
		if v, c, ok := pairedValue(t, h.l, read); ok {
			return v, c, true
		}
	}
	var zero T
	return zero, evidence.Citation{}, false
}

// onPage is the document restricted to one page (a file of several payslips or
// monthly statements has one per page).
func (t *text) onPage(n int) *text {
	p := &text{doc: t.doc, pages: t.pages, pairs: t.pairs, ocr: t.ocr}
	for _, l := range t.lines {
		if l.page == n {
			l.idx = len(p.lines)
			p.lines = append(p.lines, l)
		}
	}
	return p
}

// pageNumbers lists the document's page numbers that have text.
func (t *text) pageNumbers() []int {
	var out []int
	for _, l := range t.lines {
		if len(out) == 0 || out[len(out)-1] != l.page {
			out = append(out, l.page)
		}
	}
	return out
}

// pairedValue reads the value OCR moved away from the label line l.
func pairedValue[T any](t *text, l line, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	var zero T
	v, ok := t.pairs[[2]int{l.page, l.start}]
	if !ok {
		return zero, evidence.Citation{}, false
	}
	x, ok := read(v.text)
	if !ok {
		return zero, evidence.Citation{}, false
	}
	return x, t.doc.Cite(l.page, t.citeSpan(l, v)), true
}
