package reader

import (
	"strings"
	"sync"
	"unicode"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// OCR garbles the words readers key on ("Geburstag/Date ot brin", "délivrée te"). On
// OCR pages a label or cue that no line spells is looked for again with errors allowed:
// each of a spec's plain alternatives against as many words of a line, each word within
// an edit distance that grows with its length (see tolerance).
// A reading found that way is less sure (see fuzzyPenalty).

// fuzzyAlt is one alternative of a label spec: its folded words.
type fuzzyAlt []string

var fuzzySpecs sync.Map // spec → []fuzzyAlt

// fuzzyAlts are the alternatives of a spec that may be matched with errors: plain ones
// (not "re:") with a word of at least five letters; shorter labels are too easily
// another word.
func fuzzyAlts(spec string) []fuzzyAlt {
	if v, ok := fuzzySpecs.Load(spec); ok {
		return v.([]fuzzyAlt)
	}
	var out []fuzzyAlt
	if !strings.HasPrefix(spec, "re:") {
		for _, alt := range strings.Split(spec, "|") {
			ws := wordsOf(foldString(strings.NewReplacer("#", "", `\`, "").Replace(alt)))
			var a fuzzyAlt
			long := false
			for _, w := range ws {
				a = append(a, w.s)
				long = long || len(w.s) >= 5
			}
			if long {
				out = append(out, a)
			}
		}
	}
	fuzzySpecs.Store(spec, out)
	return out
}

// word is a run of letters or digits in a folded line, with its byte range.
type word struct {
	s          string
	start, end int
}

func wordsOf(s string) []word {
	var out []word
	start := -1
	for i, r := range s + " " {
		in := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, word{s: s[start:i], start: start, end: i})
			start = -1
		}
	}
	return out
}

// tolerance is how many edits OCR may have made in a label of n letters: about one in
// five, none in a word of fewer than five.
func tolerance(n int) int {
	switch {
	case n < 5:
		return 0
	case n < 8:
		return 1
	case n < 13:
		return 2
	}
	return 3
}

// fuzzyMatchWords finds the spec's alternative among a folded line's words (see
// wordsOf) with errors, word by word, each word within its own tolerance (a short word
// exactly): the byte range in the fold and the edits, the fewest first.
func fuzzyMatchWords(spec string, ws []word) (start, end, edits int, ok bool) {
	alts := fuzzyAlts(spec)
	if len(alts) == 0 {
		return 0, 0, 0, false
	}
	if len(ws) > fuzzyMaxWords {
		ws = ws[:fuzzyMaxWords]
	}
	edits = 1 << 30
	for _, a := range alts {
	window:
		for i := 0; i+len(a) <= len(ws); i++ {
			d := 0
			for j, w := range a {
				got := ws[i+j].s
				tol := tolerance(len(w))
				if abs(int64(len(got)-len(w))) > int64(tol) {
					continue window
				}
				e, ok := withinEdits(got, w, tol)
				if !ok {
					continue window
				}
				d += e
			}
			if d < edits {
				start, end, edits, ok = ws[i].start, ws[i+len(a)-1].end, d, true
			}
		}
	}
	return start, end, edits, ok
}

// fuzzyMaxWords is how far into a line a label is looked for with errors: an OCR line
// longer than that is running text, and its labels stand at its start.
const fuzzyMaxWords = 40

// fuzzyPenalty is what a label matched with errors takes from a value's confidence.
const fuzzyPenalty = 0.1

// findFuzzy is find for a label no line of an OCR page spells: the lines where it
// matches with errors, the hits marked fuzzy.
func (t *text) findFuzzy(spec string) []labelHit {
	var out []labelHit
	for _, l := range t.lines {
		if !pageIsOCR(t, l.page) {
			continue
		}
		s, e, _, ok := fuzzyMatchWords(spec, l.fuzzyWords())
		if !ok {
			continue
		}
		end := l.f.orig[e]
		out = append(out, labelHit{l: l, start: l.f.orig[s], end: end, rest: l.text[end:], fuzzy: true})
	}
	return out
}

// fromFuzzy remembers the citation of a value read after a fuzzy label hit, so that
// recording it lowers its confidence (see fromFuzzyLabel); it returns the citation.
func (t *text) fromFuzzy(h labelHit, c evidence.Citation, ok bool) evidence.Citation {
	if ok && h.fuzzy && t.fuzzy != nil {
		t.fuzzy[c.Excerpt] = true
	}
	return c
}

// fromFuzzyLabel reports whether a citation is one of a value read after a label found
// with errors.
func (t *text) fromFuzzyLabel(c evidence.Citation) bool { return t.fuzzy[c.Excerpt] }

// fuzzyFound reports whether the spec matches the line with OCR's errors.
func fuzzyFound(spec string, l line) bool {
	_, _, _, ok := fuzzyMatchWords(spec, l.fuzzyWords())
	return ok
}

// fuzzyWords are the words of the line's fold, computed once for all the labels
// looked for on it.
func (l line) fuzzyWords() []word {
	if l.words == nil {
		return wordsOf(l.f.s)
	}
	return *l.words
}

// maxEditWord is the longest word withinEdits compares without allocating.
const maxEditWord = 40

// withinEdits is the edit distance of a and b when it is at most tol: a band of the
// distance table around its diagonal, given up as soon as a row exceeds tol.
func withinEdits(a, b string, tol int) (int, bool) {
	if len(a) > maxEditWord || len(b) > maxEditWord {
		d := EditDistance(a, b)
		return d, d <= tol
	}
	var prevRow, curRow [maxEditWord + 1]int
	for j := 0; j <= len(b); j++ {
		prevRow[j] = j
	}
	for i := 1; i <= len(a); i++ {
		curRow[0] = i
		best := curRow[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			curRow[j] = min(prevRow[j]+1, curRow[j-1]+1, prevRow[j-1]+cost)
			best = min(best, curRow[j])
		}
		if best > tol {
			return best, false
		}
		prevRow = curRow
	}
	return prevRow[len(b)], prevRow[len(b)] <= tol
}
