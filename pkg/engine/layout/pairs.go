package layout

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// Matcher finds a label in the text of a segment (words joined by single spaces). It
// returns the label's byte range in s, ok false when s holds no such label. Readers
// build one from their own folded label patterns; Regexp wraps a plain expression.
type Matcher func(s string) (start, end int, ok bool)

// Regexp is a Matcher for a regular expression over the segment text as it is (add
// (?i) to ignore case).
func Regexp(re *regexp.Regexp) Matcher {
	return func(s string) (int, int, bool) {
		loc := re.FindStringIndex(s)
		if loc == nil || loc[1] == loc[0] {
			return 0, 0, false
		}
		return loc[0], loc[1], true
	}
}

// Pairing says where a value stood relative to its label.
type Pairing int

const (
	// SameLine: after the label on its line, in the label's cell or the next cell.
	SameLine Pairing = iota + 1
	// Below: under the label, overlapping it horizontally (a form or an ID card).
	Below
	// HeaderRow: the label is a cell of a header row and the value stands under that
	// cell in the row below (a DATEV payslip's personnel row, a table header).
	HeaderRow
)

func (h Pairing) String() string {
	switch h {
	case SameLine:
		return "same_line"
	case Below:
		return "below"
	case HeaderRow:
		return "header_row"
	}
	return "unknown"
}

// Label is a label found on a page.
type Label struct {
	Line  int   // index into Page.Lines
	Words []int // the label's words; a multilingual label's translations included
	// seg is the label's segment; inline the byte offset in its text where what
	// follows the label starts.
	seg    Segment
	inline int
}

// Text is the label as printed (words joined by single spaces).
func (l Label) Text() string { return strings.TrimSpace(l.seg.Text[:l.inline]) }

// Candidate is a value a label may have, with where it was found.
type Candidate struct {
	Text  string // the value as printed, words joined by single spaces
	Words []int  // indices into Page.Words
	Box   evidence.Box
	// Conf is the lowest confidence of the value's words.
	Conf float64
	How  Pairing
	// Lines is how many lines the value spans (more than one only for a value under its
	// label that continues on the next lines, such as an address).
	Lines int
	Label Label
}

// farRight is how far (a fraction of the page width) the next cell may stand from a
// label before the value under the label is preferred to it.
const farRight = 0.3

// Find returns every label m matches on the page, top to bottom. A match must start at
// a word boundary ("name" does not match inside "Vorname").
func (p *Page) Find(m Matcher) []Label {
	var out []Label
	for li := range p.Lines {
		for _, seg := range p.Lines[li].Segments {
			s := seg.Text
			for from := 0; from < len(s); {
				start, end, ok := m(s[from:])
				if !ok {
					break
				}
				start, end = start+from, end+from
				if start > 0 && isLetter(lastRune(s[:start])) {
					from = max(end, start+1)
					continue
				}
				out = append(out, p.label(seg, start, end))
				break
			}
		}
	}
	return out
}

// LabelOf returns the label made of the given words (on one line), as a reader that
// found the label in the page text knows it.
func (p *Page) LabelOf(words []int) (Label, bool) {
	if len(words) == 0 {
		return Label{}, false
	}
	li := p.LineOf(words[0])
	if li < 0 {
		return Label{}, false
	}
	for _, seg := range p.Lines[li].Segments {
		first := slices.Index(seg.Words, words[0])
		if first < 0 {
			continue
		}
		last := first
		for k, i := range seg.Words {
			if slices.Contains(words, i) && k > last {
				last = k
			}
		}
		end := seg.offs[last] + len(strings.TrimSpace(p.Words[seg.Words[last]].Text))
		return p.label(seg, seg.offs[first], end), true
	}
	return Label{}, false
}

// label makes the label for the byte range [start, end) of a segment: whole words, and
// a multilingual label's translations ("Name / Surname / Nom", "Gültig bis/Date of
// expiry") all belong to it, so that none of them is taken for the value.
func (p *Page) label(seg Segment, start, end int) Label {
	s := seg.Text
	// Whole words.
	for start > 0 && s[start-1] != ' ' {
		start--
	}
	for end < len(s) && s[end] != ' ' {
		end++
	}
	// Translations before ("Name / Surname" when "Surname" matched) and after.
	if strings.HasSuffix(strings.TrimRight(s[:start], " "), "/") || strings.Contains(s[start:end], "/") {
		if i := strings.LastIndex(s[:start], ": "); i >= 0 {
			start = i + 2
		} else {
			start = 0
		}
	}
	if rest := strings.TrimLeft(s[end:], " "); strings.HasPrefix(rest, "/") || strings.Contains(lastField(s[start:end]), "/") {
		end = translationsEnd(s, start, end)
	}
	l := Label{Line: seg.Line, seg: seg, inline: end}
	for k, i := range seg.Words {
		if seg.offs[k] < end && seg.offs[k]+len(strings.TrimSpace(p.Words[i].Text)) > start {
			l.Words = append(l.Words, i)
		}
	}
	return l
}

// translationsEnd walks over the translations that follow a label in its cell ("/ Nom",
// "/Date de naissance") and returns where they end: after a colon, or before the first
// word that reads as a value — one with a digit, or in capitals after a label in mixed
// case ("Name/Surname/Nom WEIßMÜLLER", as OCR joins an ID card's two columns). The word
// right after a lone slash is always a translation.
func translationsEnd(s string, start, end int) int {
	mixed := strings.ToUpper(s[start:end]) != s[start:end]
	afterSlash := false
	for end < len(s) {
		i := end
		for i < len(s) && s[i] == ' ' {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		tok := s[i:j]
		if tok == "" {
			break
		}
		switch {
		case strings.HasPrefix(tok, "/") || afterSlash || strings.Contains(tok, "/"):
			afterSlash = tok == "/"
		case strings.ContainsAny(tok, "0123456789"), mixed && len([]rune(tok)) >= 2 && strings.ToUpper(tok) == tok && strings.ToLower(tok) != tok:
			return end
		}
		end = j
		if strings.HasSuffix(tok, ":") {
			return end
		}
	}
	return end
}

func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// Lookup returns the candidate values of every label m matches, label by label (top to
// bottom), each label's candidates best first.
func (p *Page) Lookup(m Matcher) []Candidate {
	var out []Candidate
	for _, l := range p.Find(m) {
		out = append(out, p.Values(l)...)
	}
	return out
}

// Values returns the candidate values of a label, best first: the rest of the label's
// cell, the next cell on its line, the words under it. On a header row only the words
// under the label's cell count: the cell to its right is the next heading. A
// multilingual label without a colon (an ID card's) and a label whose next cell stands
// far to the right prefer the value under them to that cell.
func (p *Page) Values(l Label) []Candidate {
	if l.Line < 0 || l.Line >= len(p.Lines) || len(l.Words) == 0 {
		return nil
	}
	if p.headerRow(l.Line) {
		if c, ok := p.under(l, HeaderRow, 1); ok {
			return c
		}
		return nil
	}
	below, _ := p.under(l, Below, 1)
	if c, ok := p.inlineValue(l); ok {
		return append([]Candidate{c}, below...)
	}
	var same []Candidate
	if c, ok := p.rightValue(l); ok {
		same = append(same, c)
	}
	if text := l.Text(); strings.Contains(text, "/") && !strings.HasSuffix(text, ":") {
		return append(below, same...)
	}
	// A cell far to the right belongs to another column of the page more likely than
	// the value under the label does.
	if len(same) > 0 && len(below) > 0 && same[0].Box.X0-p.BoxOf(l.Words).X1 > farRight {
		return append(below, same...)
	}
	return append(same, below...)
}

// inlineValue is what follows the label in its own cell.
func (p *Page) inlineValue(l Label) (Candidate, bool) {
	s := l.seg.Text
	start := l.inline
	for start < len(s) && (s[start] == ' ' || s[start] == ':') {
		start++
	}
	if start >= len(s) {
		return Candidate{}, false
	}
	var ws []int
	for k, i := range l.seg.Words {
		if l.seg.offs[k]+len(strings.TrimSpace(p.Words[i].Text)) > start {
			ws = append(ws, i)
		}
	}
	return p.candidate(strings.TrimSpace(s[start:]), ws, SameLine, 1, l), true
}

// rightValue is the next cell on the label's line, unless it is a label itself.
func (p *Page) rightValue(l Label) (Candidate, bool) {
	segs := p.Lines[l.Line].Segments
	for k, seg := range segs {
		if seg.Words[0] != l.seg.Words[0] {
			continue
		}
		if k+1 >= len(segs) {
			return Candidate{}, false
		}
		next := segs[k+1]
		if looksLikeLabel(next.Text) || p.overprint(l.Words, next.Words) {
			return Candidate{}, false
		}
		return p.candidate(next.Text, next.Words, SameLine, 1, l), true
	}
	return Candidate{}, false
}

// overprintScale is how many times taller than its label's letters a cell's may be
// and still be its value.
const overprintScale = 3

// overprint reports whether the cell's words are not printed in the label's lines: a
// watermark, stamp or background word ("EXEMPLAR", "SPECIMEN" across a card) that OCR
// put beside the label, several times its height.
func (p *Page) overprint(label, cell []int) bool {
	lb, cb := p.BoxOf(label), p.BoxOf(cell)
	lh := lb.Y1 - lb.Y0
	return lh > 0 && cb.Y1-cb.Y0 > overprintScale*lh
}

// Under returns the readings of a value under a label (not a header row's) that goes on
// over up to lines lines, such as an address under "Anschrift / Address": the first
// line, then the first two, and so on, while each next line follows closely in the
// label's column and is no label. Values offers only the first line.
func (p *Page) Under(l Label, lines int) []Candidate {
	if l.Line < 0 || l.Line >= len(p.Lines) || len(l.Words) == 0 || lines < 1 {
		return nil
	}
	out, _ := p.under(l, Below, lines)
	return out
}

// under returns the value under the label: on the first line below (within two line
// heights) that has words in the label's column. In a header row the column runs to
// halfway to the neighbouring headings and the value is the words whose centres fall in
// it; under a lone label it is the cells overlapping the label. Up to maxLines readings
// follow, each one line longer.
func (p *Page) under(l Label, how Pairing, maxLines int) ([]Candidate, bool) {
	span := p.BoxOf(l.Words)
	left, right := p.column(l)
	height := max(p.lineHeight, span.Y1-span.Y0)
	bottom := p.Lines[l.Line].Box.Y1
	var out []Candidate
	var acc []int
	var texts []string
	for li := l.Line + 1; li < len(p.Lines); li++ {
		lb := p.Lines[li].Box
		if lb.Y0-bottom > 2*height {
			break
		}
		var ws []int
		if how == HeaderRow {
			for _, i := range p.Lines[li].Words {
				b := p.Words[i].Box
				// Under the first heading, a word wholly left of it is the row's own label
				// ("CURRENT" before the row's figures), not the column's value.
				if left == 0 && b.X1 < span.X0 && rowLabelWord(p.Words[i].Text) {
					continue
				}
				if c := centreX(b); c >= left && c <= right {
					ws = append(ws, i)
				}
			}
		} else {
			for _, seg := range p.Lines[li].Segments {
				if overlap(seg.Box.X0, seg.Box.X1, span.X0-p.charWidth, span.X1) > 0 && seg.Box.X0 >= left {
					ws = append(ws, seg.Words...)
				}
			}
		}
		if len(ws) == 0 {
			if len(acc) > 0 {
				break
			}
			continue
		}
		text := p.Text(ws)
		if looksLikeLabel(text) {
			break
		}
		acc = append(acc, ws...)
		texts = append(texts, text)
		out = append(out, p.candidate(strings.Join(texts, " "), slices.Clone(acc), how, len(texts), l))
		if how == HeaderRow || len(texts) >= maxLines {
			break
		}
		bottom = p.BoxOf(ws).Y1
		height = max(p.lineHeight, p.BoxOf(ws).Y1-p.BoxOf(ws).Y0)
		// A continuation must follow closely.
		height /= 2
	}
	return out, len(out) > 0
}

// rowLabelWord is a word that can label a table row: letters, no digit.
func rowLabelWord(w string) bool {
	return strings.IndexFunc(w, unicode.IsLetter) >= 0 && !strings.ContainsAny(w, "0123456789")
}

// column is the horizontal extent of a label's column: halfway to the words before and
// after it on its line, or the page edge.
func (p *Page) column(l Label) (float64, float64) {
	ws := p.Lines[l.Line].Words
	span := p.BoxOf(l.Words)
	left, right := 0.0, 1.0
	for _, i := range ws {
		if slices.Contains(l.Words, i) {
			continue
		}
		b := p.Words[i].Box
		if b.X1 <= span.X0 {
			left = max(left, (b.X1+span.X0)/2)
		}
		if b.X0 >= span.X1 {
			right = min(right, (span.X1+b.X0)/2)
		}
	}
	return left, right
}

func (p *Page) candidate(text string, ws []int, how Pairing, lines int, l Label) Candidate {
	c := Candidate{Text: text, Words: ws, Box: p.BoxOf(ws), Conf: 1, How: how, Lines: lines, Label: l}
	for _, i := range ws {
		c.Conf = min(c.Conf, p.Words[i].Conf)
	}
	if len(ws) == 0 {
		c.Conf = 0
	}
	return c
}

// headerRow reports whether a line is a row of headings whose values stand in the row
// below. Its cells are none of them a value (mostly digits) or a label with its value
// ("Name: Max"); either every cell is plainly a label (ends in a colon, or is
// multilingual: "Geburtstag / Date of birth …   Staatsangehörigkeit / Nationality"), or
// there are three or more cells and the row below has a value (digits) under one of
// them — two cells alone ("Arbeitgeber   ACME GmbH") are a label and its value. At least
// two cells must have words under them on the next line.
func (p *Page) headerRow(li int) bool {
	l := p.Lines[li]
	if len(l.Segments) < 2 {
		return false
	}
	labels := 0
	for _, s := range l.Segments {
		if valueLike(s.Text) || hasInlineValue(s.Text) {
			return false
		}
		if looksLikeLabel(s.Text) || bilingual.MatchString(s.Text) {
			labels++
		}
	}
	next := li + 1
	if next >= len(p.Lines) || p.Lines[next].Box.Y0-l.Box.Y1 > 2*p.lineHeight {
		return false
	}
	if len(p.Lines[next].Segments) < 2 {
		return false
	}
	under, values := 0, 0
	for k, s := range l.Segments {
		left, right := 0.0, 1.0
		if k > 0 {
			left = (l.Segments[k-1].Box.X1 + s.Box.X0) / 2
		}
		if k+1 < len(l.Segments) {
			right = (s.Box.X1 + l.Segments[k+1].Box.X0) / 2
		}
		var ws []int
		for _, i := range p.Lines[next].Words {
			if c := centreX(p.Words[i].Box); c >= left && c <= right {
				ws = append(ws, i)
			}
		}
		if len(ws) > 0 {
			under++
			if valueLike(p.Text(ws)) {
				values++
			}
		}
	}
	if under < 2 {
		return false
	}
	return labels == len(l.Segments) || len(l.Segments) >= 3 && values > 0
}

// valueLike: at least half of the letters and digits are digits (an amount, a date, a
// number).
func valueLike(s string) bool {
	digits, alnum := 0, 0
	for _, r := range s {
		if unicode.IsDigit(r) {
			digits++
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		}
	}
	return alnum > 0 && 2*digits >= alnum
}

// hasInlineValue: a colon with text after it ("Name: Max").
func hasInlineValue(s string) bool {
	i := strings.Index(s, ":")
	return i >= 0 && strings.TrimSpace(s[i+1:]) != ""
}

// multilingual matches a label printed in several languages: words of letters
// separated by slashes, at least two slashes ("Name / Surname / Nom").
var multilingual = regexp.MustCompile(`^\p{L}[\p{L}.' -]*(?:\s*/\s*\p{L}[\p{L}.' -]*){2,}:?$`)

// bilingual is a label in two or more languages ("Staatsangehörigkeit / Nationality"):
// taken as a label among headings, but not enough to refuse a value ("Müller/Schmidt").
var bilingual = regexp.MustCompile(`^\p{L}[\p{L}.' -]*(?:\s*/\s*\p{L}[\p{L}.' -]*)+:?$`)

// looksLikeLabel: a cell that is a label, not a value: it ends in a colon or is a
// multilingual label.
func looksLikeLabel(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasSuffix(s, ":") || multilingual.MatchString(s)
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }

func lastRune(s string) rune {
	r := []rune(s)
	if len(r) == 0 {
		return 0
	}
	return r[len(r)-1]
}
