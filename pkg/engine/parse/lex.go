package parse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind classifies a token.
type kind uint8

const (
	none   kind = iota // before or after s
	digits             // a run of ASCII digits
	word               // a run of letters, with the combining marks on them
	space              // a run of horizontal white space
	other              // one rune of anything else; one byte when s is not valid UTF-8
)

type token struct {
	kind       kind
	start, end int // byte offsets in s
}

// text is s cut into tokens. The matchers work on token indices, so every span they
// report starts and ends on a token boundary, which is always a rune boundary. Runs are
// maximal: a digits token is never followed by another digit, a word by a letter.
type text struct {
	s    string
	toks []token
	// usOrder reads numeric dates with '/' or '-' month first, as US documents
	// print them (see DateIn).
	usOrder bool
	// plainSpaces lets an ordinary space group thousands (see PlainSpaces).
	plainSpaces bool
}

func lex(s string) *text {
	t := &text{s: s}
	for i := 0; i < len(s); {
		start := i
		r, size := utf8.DecodeRuneInString(s[i:])
		k := other
		switch {
		case isDigit(s[i]):
			k = digits
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		case unicode.IsLetter(r):
			k = word
			for i < len(s) {
				r, size := utf8.DecodeRuneInString(s[i:])
				if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) {
					break
				}
				i += size
			}
		case isSpace(r):
			k = space
			for i < len(s) {
				r, size := utf8.DecodeRuneInString(s[i:])
				if !isSpace(r) {
					break
				}
				i += size
			}
		default:
			i += size
		}
		t.toks = append(t.toks, token{k, start, i})
	}
	return t
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// isSpace reports horizontal white space. Line breaks are not: a value does not continue
// on the next line.
func isSpace(r rune) bool { return r == ' ' || r == '\t' || unicode.Is(unicode.Zs, r) }

// kind returns the kind of token i, none when i is out of range.
func (t *text) kind(i int) kind {
	if i < 0 || i >= len(t.toks) {
		return none
	}
	return t.toks[i].kind
}

// str returns the text of token i, "" when i is out of range.
func (t *text) str(i int) string {
	if i < 0 || i >= len(t.toks) {
		return ""
	}
	return t.s[t.toks[i].start:t.toks[i].end]
}

// is reports whether token i reads one of alts.
func (t *text) is(i int, alts ...string) bool {
	s := t.str(i)
	for _, a := range alts {
		if s == a {
			return true
		}
	}
	return false
}

// skipSpace returns i, or the token after it when i is white space.
func (t *text) skipSpace(i int) int {
	if t.kind(i) == space {
		return i + 1
	}
	return i
}

// skipSpaceBack returns i, or the token before it when i is white space.
func (t *text) skipSpaceBack(i int) int {
	if t.kind(i) == space {
		return i - 1
	}
	return i
}

// optDot returns the index of the "." right after token i, else i: abbreviations such
// as "Mio." and "J." take their dot into the span.
func (t *text) optDot(i int) int {
	if t.is(i+1, ".") {
		return i + 1
	}
	return i
}

// maxKeyword bounds the length in bytes of the words the matchers look up; longer words
// are not folded, which keeps the work per token constant.
const maxKeyword = 24

// fold returns word token i in lower case without combining marks, so that "MÄRZ" and
// an OCR'd "Ma\u0308rz" both look up as month words; "" when i is no word.
func (t *text) fold(i int) string {
	w := t.str(i)
	if t.kind(i) != word || len(w) > maxKeyword {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return unicode.ToLower(r)
	}, w)
}

// span returns the byte range from the start of token first to the end of token last.
func (t *text) span(first, last int) Span {
	return Span{t.toks[first].start, t.toks[last].end}
}

// small returns digits token i as a number when it has 1 to maxLen digits.
func (t *text) small(i, maxLen int) (int, bool) {
	s := t.str(i)
	if t.kind(i) != digits || len(s) > maxLen {
		return 0, false
	}
	n := 0
	for j := 0; j < len(s); j++ {
		n = n*10 + int(s[j]-'0')
	}
	return n, true
}
