package layout

import (
	"strings"
	"unicode"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// Regions returns the boxes of words on page number page, one region per line they
// stand on (a Citation's regions), top to bottom.
func Regions(page int, words []evidence.Word) []evidence.Region {
	return regions(page, words, frame{aspect2: 1})
}

// regions are the line boxes of upright, straight words, mapped back into the page's
// coordinates.
func regions(page int, words []evidence.Word, f frame) []evidence.Region {
	if len(words) == 0 {
		return nil
	}
	g := newUpright(words)
	var out []evidence.Region
	for _, l := range g.Lines {
		b := f.original(l.Box)
		out = append(out, evidence.Region{Page: page, X: b.X0, Y: b.Y0, Width: b.X1 - b.X0, Height: b.Y1 - b.Y0})
	}
	return out
}

// pick returns the words with the given indices.
func (p *Page) pick(idx ...[]int) []evidence.Word {
	var out []evidence.Word
	for _, ws := range idx {
		for _, i := range ws {
			out = append(out, p.Words[i])
		}
	}
	return out
}

// Cite returns a citation of a value read from the page (number n of doc) through its
// label: the excerpt quotes the page text from the line holding the label to the line
// holding the value when the value follows within three lines of text, else the value
// alone; the regions are the boxes of the label's and the value's words. ok is false
// when the value's words cannot be found verbatim in the page text; the caller then
// cites as it did without geometry.
func (p *Page) Cite(doc *evidence.Document, n int, label, value []int) (evidence.Citation, bool) {
	page := doc.Page(n)
	if page == nil || len(value) == 0 {
		return evidence.Citation{}, false
	}
	norm, starts := normalizedLines(page.Text)
	val := evidence.Normalize(p.Text(value))
	lab := evidence.Normalize(p.Text(label))
	// The value's occurrence in the text is the one with as many before it as its words
	// have on the page; the label's, the last one before the value.
	vi := nthIndex(norm, val, p.occurrence(value))
	if vi < 0 {
		vi = strings.Index(norm, val)
	}
	if vi < 0 {
		return evidence.Citation{}, false
	}
	li := -1
	if lab != "" {
		li = strings.LastIndex(norm[:vi], lab)
	}
	excerpt := val
	if li >= 0 && li <= vi {
		first, last := lineAt(starts, li), lineAt(starts, vi+len(val)-1)
		if last-first <= 3 {
			end := len(norm)
			if last+1 < len(starts) {
				end = starts[last+1] - 1
			}
			excerpt = norm[starts[first]:end]
		}
	}
	c := doc.Cite(n, excerpt)
	c.Regions = regions(n, p.pick(label, value), p.frame)
	return c, true
}

// occurrence counts the runs of words before ws (in the order of the page's lines) that
// quote the same text as ws.
func (p *Page) occurrence(ws []int) int {
	text := p.Text(ws)
	for k := 0; ; k++ {
		found := p.LocateNth(text, k)
		if len(found) == 0 || found[0] == ws[0] || k > len(p.Words) {
			return k
		}
	}
}

// nthIndex is the offset of the n-th (from 0) occurrence of sub in s that stands as
// whole words (a space or the text's end on either side), -1 when there are fewer.
func nthIndex(s, sub string, n int) int {
	off := 0
	for {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return -1
		}
		at := off + i
		end := at + len(sub)
		if (at == 0 || s[at-1] == ' ') && (end == len(s) || s[end] == ' ') {
			if n == 0 {
				return at
			}
			n--
		}
		off = at + max(1, len(sub))
	}
}

// normalizedLines is the page text whitespace-normalized as evidence.Normalize does,
// with the offset where each of its non-empty lines starts.
func normalizedLines(text string) (string, []int) {
	var b strings.Builder
	var starts []int
	for _, l := range strings.Split(text, "\n") {
		n := evidence.Normalize(l)
		if n == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		starts = append(starts, b.Len())
		b.WriteString(n)
	}
	return b.String(), starts
}

// lineAt is the index of the line holding byte offset off.
func lineAt(starts []int, off int) int {
	k := 0
	for i, s := range starts {
		if s <= off {
			k = i
		}
	}
	return k
}

// Locate finds the words that an excerpt of the page text quotes, in order: first as a
// run of consecutive words whose text, spaces ignored, is the excerpt's; else each of
// the excerpt's tokens matched to the next word with that text, skipping at most as
// many words as the excerpt has tokens. nil when the excerpt's words are not found.
func Locate(words []evidence.Word, excerpt string) []int { return LocateNth(words, excerpt, 0) }

// LocateNth is Locate taking the n-th (from 0) run of words that quotes the excerpt,
// for an excerpt that occurs more than once on the page (a line "Datum" quoted from its
// second occurrence). With n > 0 there is no token-by-token fallback.
func LocateNth(words []evidence.Word, excerpt string, n int) []int {
	target := squeeze(excerpt)
	if target == "" || n < 0 {
		return nil
	}
	nth := n
	var all strings.Builder
	var owner []int // byte of all → word index
	var wordStart []bool
	for i, w := range words {
		s := squeeze(w.Text)
		for k := range len(s) {
			owner = append(owner, i)
			wordStart = append(wordStart, k == 0)
		}
		all.WriteString(s)
	}
	hay := all.String()
	for from := 0; from < len(hay); {
		j := strings.Index(hay[from:], target)
		if j < 0 {
			break
		}
		at := from + j
		end := at + len(target)
		if wordStart[at] && (end == len(hay) || wordStart[end]) && n > 0 {
			n--
		} else if wordStart[at] && (end == len(hay) || wordStart[end]) {
			var out []int
			for k := at; k < end; k++ {
				if len(out) == 0 || out[len(out)-1] != owner[k] {
					out = append(out, owner[k])
				}
			}
			return out
		}
		from = at + 1
	}
	if nth > 0 {
		return nil
	}
	tokens := strings.Fields(excerpt)
	for start := range words {
		if squeeze(words[start].Text) != tokens[0] {
			continue
		}
		out := []int{start}
		skipped := 0
		i := start + 1
		for _, tok := range tokens[1:] {
			for i < len(words) && squeeze(words[i].Text) != tok && skipped <= len(tokens) {
				i++
				skipped++
			}
			if i >= len(words) || skipped > len(tokens) {
				out = nil
				break
			}
			out = append(out, i)
			i++
		}
		if out != nil {
			return out
		}
	}
	return nil
}

// Squeeze drops white space: the form in which Locate compares words and excerpts.
func Squeeze(s string) string { return squeeze(s) }

// squeeze drops white space.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// RegionsFor returns the regions of an excerpt quoted from the page's text lines (by a
// reader that does not know the words it read): the boxes of the words Locate finds,
// one region per line. nil when the page has no words or the excerpt's are not found.
func RegionsFor(page *evidence.Page, excerpt string) []evidence.Region {
	if page == nil || len(page.Words) == 0 {
		return nil
	}
	return New(page.Words).RegionsFor(page.Number, excerpt)
}

// LocateNth finds the n-th run of words that quotes an excerpt of the page text. It
// looks first in the order of the page's lines (top to bottom, each left to right),
// which is the order of a layout-preserving text such as pdftotext -layout's, then in
// the extractor's own order (a flow order that reads a label column before its value
// column). Indices are into Words.
func (p *Page) LocateNth(excerpt string, n int) []int {
	if p.ordered == nil {
		for _, l := range p.Lines {
			p.ordered = append(p.ordered, l.Words...)
		}
		p.orderedWords = make([]evidence.Word, len(p.ordered))
		for k, i := range p.ordered {
			p.orderedWords[k] = p.Words[i]
		}
	}
	if found := LocateNth(p.orderedWords, excerpt, n); len(found) > 0 {
		out := make([]int, len(found))
		for k, i := range found {
			out[k] = p.ordered[i]
		}
		return out
	}
	return LocateNth(p.Words, excerpt, n)
}

// RegionsFor is the package's RegionsFor on this page's geometry (number n).
func (p *Page) RegionsFor(n int, excerpt string) []evidence.Region {
	idx := p.LocateNth(excerpt, 0)
	if len(idx) == 0 {
		return nil
	}
	return regions(n, p.pick(idx), p.frame)
}
