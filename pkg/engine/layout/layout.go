// Package layout rebuilds the geometry of a page from its words: lines, the cells
// (segments) of a line, blocks, and which value stands next to which label — on the
// label's line, under it, or under its cell in a header row. Readers use it to pair
// labels and values by position instead of by the order of the text, which breaks on
// forms with values under their labels and on table header rows.
//
// Everything here is pure: no I/O, no clock, the same words give the same answer.
package layout

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// Page is the geometry of one page, built by New.
type Page struct {
	// Words are the page's words as given, with boxes clamped into the page, turned
	// upright when the text ran sideways and straightened when it stood askew (see frame).
	Words []evidence.Word
	frame frame
	// Lines are the page's lines, top to bottom.
	Lines []Line
	// Blocks group neighbouring lines that share a column, top to bottom.
	Blocks []Block
	// charWidth is the median width of one character, as a fraction of the page width;
	// lineHeight the median word height.
	charWidth, lineHeight float64
	lineOf                []int // word index → line index
	// ordered are the word indices line by line, orderedWords those words (built by
	// LocateNth when first needed).
	ordered      []int
	orderedWords []evidence.Word
}

// Line is one line of words: words whose boxes overlap vertically, left to right.
type Line struct {
	Words    []int // indices into Page.Words, left to right
	Box      evidence.Box
	Segments []Segment
}

// Segment is a cell of a line: words separated by gaps narrower than about two
// characters. A form's label and the value at its tab stop, or the cells of a table
// row, are separate segments.
type Segment struct {
	Line  int   // index into Page.Lines
	Words []int // indices into Page.Words, left to right
	Box   evidence.Box
	// Text is the words joined by single spaces; offs[i] is where word i starts in it.
	Text string
	offs []int
}

// Block is a run of lines that stand close together and overlap horizontally: a
// paragraph, an address field, a column of a form.
type Block struct {
	Lines []int
	Box   evidence.Box
}

// segmentGap is how many character widths a gap between words must exceed to start a
// new segment: a space is about half a character, a tab stop or a column gap several.
const segmentGap = 1.6

// New builds the geometry of a page from its words. Words with empty text are kept in
// Words but belong to no line.
func New(words []evidence.Word) *Page { return newPage(words, 0, 0) }

// FromPage builds the geometry of a page with its size known: its aspect ratio makes
// the straightening of a page that stands askew exact.
func FromPage(pg *evidence.Page) *Page { return newPage(pg.Words, pg.Width, pg.Height) }

func newPage(words []evidence.Word, width, height float64) *Page {
	p := &Page{Words: make([]evidence.Word, len(words)), lineOf: make([]int, len(words))}
	for i, w := range words {
		w.Box = clampBox(w.Box)
		p.Words[i] = w
		p.lineOf[i] = -1
	}
	p.frame = frame{turn: detectTurn(p.Words), aspect2: 1}
	if width > 0 && height > 0 {
		a := height / width
		if p.frame.turn != upright {
			a = width / height
		}
		p.frame.aspect2 = a * a
	}
	for i := range p.Words {
		p.Words[i].Box = p.frame.turn.upright(p.Words[i].Box)
	}
	if p.frame.slope = detectSlope(p.Words); p.frame.slope != 0 {
		straight := frame{slope: p.frame.slope, aspect2: p.frame.aspect2}
		for i := range p.Words {
			p.Words[i].Box = straight.upright(p.Words[i].Box)
		}
	}
	return p.build()
}

// newUpright builds the geometry of words already upright (a subset of a Page's).
func newUpright(words []evidence.Word) *Page {
	p := &Page{Words: make([]evidence.Word, len(words)), lineOf: make([]int, len(words))}
	for i, w := range words {
		w.Box = clampBox(w.Box)
		p.Words[i] = w
		p.lineOf[i] = -1
	}
	return p.build()
}

func (p *Page) build() *Page {
	p.charWidth, p.lineHeight = p.metrics()
	p.buildLines()
	p.buildBlocks()
	return p
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// clampBox puts a box into the page and orders its corners.
func clampBox(b evidence.Box) evidence.Box {
	b = evidence.Box{X0: clamp01(b.X0), Y0: clamp01(b.Y0), X1: clamp01(b.X1), Y1: clamp01(b.Y1)}
	if b.X1 < b.X0 {
		b.X0, b.X1 = b.X1, b.X0
	}
	if b.Y1 < b.Y0 {
		b.Y0, b.Y1 = b.Y1, b.Y0
	}
	return b
}

func union(a, b evidence.Box) evidence.Box {
	return evidence.Box{X0: min(a.X0, b.X0), Y0: min(a.Y0, b.Y0), X1: max(a.X1, b.X1), Y1: max(a.Y1, b.Y1)}
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// metrics returns the median character width and word height of the page.
func (p *Page) metrics() (float64, float64) {
	var cws, hs []float64
	for _, w := range p.Words {
		n := utf8.RuneCountInString(strings.TrimSpace(w.Text))
		if n == 0 {
			continue
		}
		cws = append(cws, (w.Box.X1-w.Box.X0)/float64(n))
		hs = append(hs, w.Box.Y1-w.Box.Y0)
	}
	cw, h := median(cws), median(hs)
	if cw <= 0 {
		cw = 0.01
	}
	if h <= 0 {
		h = 0.01
	}
	return cw, h
}

func centreY(b evidence.Box) float64 { return (b.Y0 + b.Y1) / 2 }
func centreX(b evidence.Box) float64 { return (b.X0 + b.X1) / 2 }

// overlap is the length two intervals share (negative when apart).
func overlap(a0, a1, b0, b1 float64) float64 { return min(a1, b1) - max(a0, b0) }

// buildLines clusters words into lines. A word joins the line whose horizontally
// nearest word overlaps it vertically by at least half the smaller height: comparing
// with the nearest word rather than the whole line keeps a slightly skewed scan's
// lines together and its neighbouring lines apart.
func (p *Page) buildLines() {
	var order []int
	for i, w := range p.Words {
		if strings.TrimSpace(w.Text) != "" {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ba, bb := p.Words[a].Box, p.Words[b].Box
		if c := cmpFloat(centreY(ba), centreY(bb)); c != 0 {
			return c
		}
		return cmpFloat(ba.X0, bb.X0)
	})
	var lines [][]int
	for _, i := range order {
		b := p.Words[i].Box
		best, bestRatio, bestDist := -1, 0.0, math.Inf(1)
		// Only lines whose last word is near in height can take the word.
		for li := len(lines) - 1; li >= 0 && li >= len(lines)-12; li-- {
			near, dist, clash := -1, math.Inf(1), false
			for _, j := range lines[li] {
				o := p.Words[j].Box
				d := max(o.X0-b.X1, b.X0-o.X1, 0)
				if ox := overlap(b.X0, b.X1, o.X0, o.X1); ox > 0.3*min(b.X1-b.X0, o.X1-o.X0) && ox > 0 {
					clash = true // a word cannot stand on another word of its line
					break
				}
				if d < dist {
					near, dist = j, d
				}
			}
			if clash || near < 0 {
				continue
			}
			o := p.Words[near].Box
			minH := max(min(b.Y1-b.Y0, o.Y1-o.Y0), 1e-9)
			ratio := overlap(b.Y0, b.Y1, o.Y0, o.Y1) / minH
			if ratio < 0.5 {
				continue
			}
			if ratio > bestRatio+1e-9 || math.Abs(ratio-bestRatio) <= 1e-9 && dist < bestDist {
				best, bestRatio, bestDist = li, ratio, dist
			}
		}
		if best < 0 {
			lines = append(lines, []int{i})
			continue
		}
		lines[best] = append(lines[best], i)
	}
	for _, ws := range lines {
		slices.SortStableFunc(ws, func(a, b int) int { return cmpFloat(p.Words[a].Box.X0, p.Words[b].Box.X0) })
	}
	// Top to bottom by the line's mean centre.
	meanY := func(ws []int) float64 {
		s := 0.0
		for _, i := range ws {
			s += centreY(p.Words[i].Box)
		}
		return s / float64(len(ws))
	}
	slices.SortStableFunc(lines, func(a, b []int) int {
		if c := cmpFloat(meanY(a), meanY(b)); c != 0 {
			return c
		}
		return cmpFloat(p.Words[a[0]].Box.X0, p.Words[b[0]].Box.X0)
	})
	for li, ws := range lines {
		l := Line{Words: ws, Box: p.Words[ws[0]].Box}
		for _, i := range ws {
			l.Box = union(l.Box, p.Words[i].Box)
			p.lineOf[i] = li
		}
		l.Segments = p.segments(li, ws)
		p.Lines = append(p.Lines, l)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// segments splits a line's words at gaps wider than segmentGap character widths.
func (p *Page) segments(li int, ws []int) []Segment {
	var out []Segment
	var cur []int
	flush := func() {
		if len(cur) > 0 {
			out = append(out, p.segment(li, cur))
			cur = nil
		}
	}
	for k, i := range ws {
		if k > 0 {
			prev := p.Words[ws[k-1]].Box
			if p.Words[i].Box.X0-prev.X1 > segmentGap*p.charWidth {
				flush()
			}
		}
		cur = append(cur, i)
	}
	flush()
	return out
}

func (p *Page) segment(li int, ws []int) Segment {
	s := Segment{Line: li, Words: ws, Box: p.Words[ws[0]].Box}
	var b strings.Builder
	for k, i := range ws {
		if k > 0 {
			b.WriteByte(' ')
		}
		s.offs = append(s.offs, b.Len())
		b.WriteString(strings.TrimSpace(p.Words[i].Text))
		s.Box = union(s.Box, p.Words[i].Box)
	}
	s.Text = b.String()
	return s
}

// buildBlocks groups lines that follow each other closely (gap under one line height)
// and overlap horizontally.
func (p *Page) buildBlocks() {
	for li, l := range p.Lines {
		joined := false
		for k := len(p.Blocks) - 1; k >= 0; k-- {
			b := &p.Blocks[k]
			last := p.Lines[b.Lines[len(b.Lines)-1]].Box
			gap := l.Box.Y0 - last.Y1
			if gap < 1.0*p.lineHeight && overlap(l.Box.X0, l.Box.X1, b.Box.X0, b.Box.X1) > 0 {
				b.Lines = append(b.Lines, li)
				b.Box = union(b.Box, l.Box)
				joined = true
				break
			}
		}
		if !joined {
			p.Blocks = append(p.Blocks, Block{Lines: []int{li}, Box: l.Box})
		}
	}
}

// LineOf returns the index of the line word i stands on, or -1.
func (p *Page) LineOf(i int) int {
	if i < 0 || i >= len(p.lineOf) {
		return -1
	}
	return p.lineOf[i]
}

// Text is the words' texts joined by single spaces, in the given order.
func (p *Page) Text(words []int) string {
	parts := make([]string, 0, len(words))
	for _, i := range words {
		parts = append(parts, strings.TrimSpace(p.Words[i].Text))
	}
	return strings.Join(parts, " ")
}

// BoxOf is the union of the words' boxes.
func (p *Page) BoxOf(words []int) evidence.Box {
	if len(words) == 0 {
		return evidence.Box{}
	}
	b := p.Words[words[0]].Box
	for _, i := range words[1:] {
		b = union(b, p.Words[i].Box)
	}
	return b
}

// LayoutText renders the page as a text layer laid out like its print: one text line
// per line of words, top to bottom, each cell (segment) starting at the character
// column of its left edge, cells at least two spaces apart, and an empty line where
// lines stand more than a line height apart. OCR gives a table's columns as blocks of
// their own; here a row's date, text and amounts stand on one line again, each under
// its column's heading, as a born-digital page's text reads.
func (p *Page) LayoutText() string {
	var b strings.Builder
	for li, l := range p.Lines {
		if li > 0 {
			b.WriteByte('\n')
			if l.Box.Y0-p.Lines[li-1].Box.Y1 > p.lineHeight {
				b.WriteByte('\n')
			}
		}
		pos := 0
		for k, s := range l.Segments {
			col := int(math.Round(s.Box.X0 / p.charWidth))
			if k > 0 {
				col = max(col, pos+2)
			}
			b.WriteString(strings.Repeat(" ", max(col-pos, 0)))
			pos = max(col, pos)
			b.WriteString(s.Text)
			pos += utf8.RuneCountInString(s.Text)
		}
	}
	return b.String()
}
