package reader

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/layout"
)

// line is one line of a page, with its byte range in the page text.
type line struct {
	page       int // page number
	idx        int // index in the document's lines
	start, end int // byte range in the page text
	text       string
	f          folded
	bare       string  // f without white space, for keyedPattern
	words      *[]word // f's words on an OCR page, for the OCR-tolerant label search
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
	// geo holds the geometry of each page with words, built when first asked for
	// (see geometry); shared by the per-page views of onPage.
	geo map[int]*layout.Page
	// fuzzy holds the excerpts of the citations of values read after a label found
	// with OCR's errors (see findFuzzy); shared by the per-page views.
	fuzzy map[string]bool
}

func newText(doc *evidence.Document) *text {
	t := &text{doc: doc, pages: map[int]string{}, geo: map[int]*layout.Page{}, fuzzy: map[string]bool{}}
	ocr := false
	for _, p := range doc.Pages {
		t.pages[p.Number] = p.Text
		off := 0
		for _, l := range strings.SplitAfter(p.Text, "\n") {
			content := strings.TrimRight(l, "\r\n")
			if strings.TrimSpace(content) != "" {
				l := line{page: p.Number, idx: len(t.lines), start: off, end: off + len(content), text: content, f: fold(content), bare: bareOf(content)}
				if p.OCR {
					ws := wordsOf(l.f.s)
					l.words = &ws
				}
				t.lines = append(t.lines, l)
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
	return t.citeText(a.page, t.pages[a.page][a.start:b.end])
}

// citeText quotes excerpt (copied from page n's text), with the regions of its words
// when the page has geometry.
func (t *text) citeText(n int, excerpt string) evidence.Citation {
	return t.withRegions(t.doc.Cite(n, excerpt))
}

// withRegions adds to a citation the boxes of its excerpt's words, found on its page
// (see layout.Page.RegionsFor), unless it has regions already or its page has no words.
func (t *text) withRegions(c evidence.Citation) evidence.Citation {
	if len(c.Regions) > 0 || len(c.Pages) != 1 {
		return c
	}
	if g := t.geometry(c.Pages[0]); g != nil {
		c.Regions = g.RegionsFor(c.Pages[0], c.Excerpt)
	}
	return c
}

// geometry returns the layout of page n, nil when the page has no words.
func (t *text) geometry(n int) *layout.Page {
	if g, ok := t.geo[n]; ok {
		return g
	}
	var g *layout.Page
	if p := t.doc.Page(n); p != nil && len(p.Words) > 0 {
		g = layout.FromPage(p)
	}
	if t.geo == nil {
		t.geo = map[int]*layout.Page{} // a text made of some lines only
	}
	t.geo[n] = g
	return g
}

// lineWords returns the page geometry and a line's words, found by the line's text (its
// n-th occurrence on the page when the same text stands there more than once); nil
// where the page has no words.
func (t *text) lineWords(l line) (*layout.Page, []int) {
	g := t.geometry(l.page)
	if g == nil || l.text == "" {
		return nil, nil
	}
	return g, g.LocateNth(l.text, occurrences(t.pages[l.page][:l.start], l.text))
}

// labelWords returns the page geometry and the words of the label of a hit: the line's
// words are found by their text (its n-th occurrence on the page when the same text
// stands there more than once), the label's among them by its position in the line.
func (t *text) labelWords(h labelHit) (*layout.Page, []int) {
	if h.end <= h.start {
		return nil, nil
	}
	g, ws := t.lineWords(h.l)
	if g == nil {
		return nil, nil
	}
	a, b := len(layout.Squeeze(h.l.text[:h.start])), len(layout.Squeeze(h.l.text[:h.end]))
	var out []int
	acc := 0
	for _, i := range ws {
		n := len(layout.Squeeze(g.Words[i].Text))
		if acc < b && acc+n > a {
			out = append(out, i)
		}
		acc += n
	}
	return g, out
}

// geoValue reads the value of a label by the page's geometry: the candidates the
// layout finds (the rest of the label's cell, the next cell, the value under the label
// or under its heading in a header row), best first, the first that read accepts.
// sameLine limits it to values on the label's line. The citation quotes the label's
// and the value's lines and carries their regions.
func geoValue[T any](t *text, h labelHit, read func(string) (T, bool), sameLine bool) (T, evidence.Citation, bool) {
	var zero T
	if h.l.idx < 0 {
		return zero, evidence.Citation{}, false
	}
	g, words := t.labelWords(h)
	if len(words) == 0 {
		return zero, evidence.Citation{}, false
	}
	lab, ok := g.LabelOf(words)
	if !ok {
		return zero, evidence.Citation{}, false
	}
	for _, c := range g.Values(lab) {
		if sameLine && c.How != layout.SameLine {
			continue
		}
		v, ok := read(c.Text)
		if !ok {
			continue
		}
		if cit, ok := g.Cite(t.doc, h.l.page, lab.Words, c.Words); ok {
			return v, cit, true
		}
	}
	return zero, evidence.Citation{}, false
}

// citeLine quotes one line.
func (t *text) citeLine(l line) evidence.Citation { return t.cite(l, l) }

// labelHit is a label found on a line: rest is the original text after it.
type labelHit struct {
	l          line
	start, end int // byte range of the label in l.text
	rest       string
	fuzzy      bool // found with OCR's errors (see findFuzzy)
}

// find returns every line where the label pattern matches, in order, the first match
// per line; on OCR pages, when no line spells the label, the lines where OCR garbled it
// (see findFuzzy).
func (t *text) find(spec string) []labelHit {
	if out := t.findExact(spec); len(out) > 0 || !t.ocr {
		return out
	}
	return t.findFuzzy(spec)
}

// findExact is find without OCR's errors: only lines that spell the label.
func (t *text) findExact(spec string) []labelHit {
	k := keyed(spec)
	var out []labelHit
	for _, l := range t.lines {
		if !k.match(l) {
			continue
		}
		loc := labelLoc(k.re, l.f.s)
		if loc == nil {
			continue
		}
		end := l.f.orig[loc[1]]
		out = append(out, labelHit{l: l, start: l.f.orig[loc[0]], end: end, rest: l.text[end:]})
	}
	return out
}

// compoundTail is how many letters may follow a label in the same word: a plural or
// case ending ("Nettobezüge" for "nettobezug", "identité" for "identit") is the label,
// a longer tail makes another word ("Kaufpreisnebenkosten" is no "Kaufpreis").
const compoundTail = 3

// labelLoc is the first match of a label pattern in a folded line that is a word of its
// own, not the head of a longer compound (see compoundTail).
func labelLoc(re *regexp.Regexp, s string) []int {
	for _, loc := range re.FindAllStringIndex(s, -1) {
		tail := 0
		if loc[1] > loc[0] && s[loc[1]-1] == ' ' {
			return loc // the pattern's optional space ended the word
		}
		for _, r := range s[loc[1]:] {
			if !unicode.IsLetter(r) {
				break
			}
			tail++
		}
		if tail <= compoundTail {
			return loc
		}
	}
	return nil
}

// findStart is find restricted to labels at the start of a line (after white space,
// numbering like "1." and bullets) or of a cell (after a gap of two or more spaces).
func (t *text) findStart(spec string) []labelHit {
	var out []labelHit
	re := keyed(spec).re
	for _, l := range t.lines {
		s := l.f.s
		trimmed := strings.TrimLeft(s, " \t-•*0123456789.")
		off := len(s) - len(trimmed)
		loc := labelLoc(re, trimmed)
		for loc == nil || loc[0] != 0 {
			// Else at the start of a later cell: "Empresa: …   Trabajador: …".
			next := strings.Index(s[off:], "  ")
			if next < 0 {
				break
			}
			off += next
			for off < len(s) && (s[off] == ' ' || s[off] == '\t') {
				off++
			}
			loc = labelLoc(re, s[off:])
		}
		if loc == nil || loc[0] != 0 {
			continue
		}
		end := l.f.orig[off+loc[1]]
		out = append(out, labelHit{l: l, start: l.f.orig[off+loc[0]], end: end, rest: l.text[end:]})
	}
	return out
}

// valueAfter reads a value after a label: by the page's geometry when it has words
// (see geoValue), else on the rest of the label's line, else on the next line (value
// under its label, or a Word table cell).
func valueAfter[T any](t *text, h labelHit, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	v, c, ok := valueAfterLabel(t, h, read)
	return v, t.fromFuzzy(h, c, ok), ok
}

func valueAfterLabel[T any](t *text, h labelHit, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	var zero T
	if h.l.idx < 0 {
		return zero, evidence.Citation{}, false
	}
	if v, c, ok := geoValue(t, h, read, false); ok {
		return v, c, true
	}
	if v, ok := read(h.rest); ok {
		return v, t.citeLine(h.l), true
	}
	if n, ok := t.next(h.l); ok && !continuesRest(h, n) {
		if v, ok := read(n.text); ok {
			return v, t.cite(h.l, n), true
		}
	}
	if v, c, ok := pairedValue(t, h.l, read); ok {
		return v, c, true
	}
	return zero, evidence.Citation{}, false
}

// continuesRest reports a next line that goes on with the text after the label: the
// label's line holds text after it, and the next line starts where that text does (a
// description column's sentence wrapping: "Name   The employee's name as stored in the
// Federal Personnel" over "Payroll System (FPPS)"). It is no value under the label.
func continuesRest(h labelHit, n line) bool {
	rest := strings.TrimLeft(h.rest, " \t:")
	if rest == "" || strings.TrimSpace(h.l.text) == "" {
		return false
	}
	col := utf8.RuneCountInString(h.l.text[:len(h.l.text)-len(rest)])
	return abs64i(indent(n.text)-col) <= 2 && len(strings.Fields(rest)) >= 3
}

// lineValue reads a value on the rest of the label's line only.
func lineValue[T any](t *text, h labelHit, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	v, c, ok := lineValueAfter(t, h, read)
	return v, t.fromFuzzy(h, c, ok), ok
}

func lineValueAfter[T any](t *text, h labelHit, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	if v, c, ok := geoValue(t, h, read, true); ok {
		return v, c, true
	}
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

// before is the document's lines before line idx, as a view like onPage.
func (t *text) before(idx int) *text {
	p := t.view()
	p.lines = t.lines[:max(0, min(idx, len(t.lines)))]
	return p
}

// view is the document without its lines, sharing everything else with t.
func (t *text) view() *text {
	return &text{doc: t.doc, pages: t.pages, pairs: t.pairs, ocr: t.ocr, geo: t.geo, fuzzy: t.fuzzy}
}

// onPage is the document restricted to one page (a file of several payslips or
// monthly statements has one per page).
func (t *text) onPage(n int) *text {
	p := t.view()
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
	return x, t.citeText(l.page, t.citeSpan(l, v)), true
}

// occurrences counts how often the words of line stand, in a row, in before.
func occurrences(before, line string) int {
	want := strings.Fields(line)
	if len(want) == 0 {
		return 0
	}
	words := strings.Fields(before)
	n := 0
	for i := 0; i+len(want) <= len(words); i++ {
		if slices.Equal(words[i:i+len(want)], want) {
			n++
		}
	}
	return n
}
