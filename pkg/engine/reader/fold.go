package reader

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// folded is a lowercase, diacritic-free copy of a text with a map back to the
// original byte offsets, so that a label found in the fold can be cut from the
// original (citations must quote the page as it is).
type folded struct {
	s    string
	orig []int // orig[i] is the original offset of folded byte i; len(s)+1 entries
}

// fold lowercases s and maps every rune to one rune: diacritics dropped (ä → a), ß → s,
// typographic dashes and quotes to ASCII.
func fold(s string) folded {
	var b strings.Builder
	orig := make([]int, 0, len(s)+1)
	for i, r := range s {
		f := foldRune(r)
		n := utf8.RuneLen(f)
		for range n {
			orig = append(orig, i)
		}
		b.WriteRune(f)
	}
	orig = append(orig, len(s))
	return folded{s: b.String(), orig: orig}
}

func foldRune(r rune) rune {
	switch r {
	case 'ß', 'ẞ':
		return 's'
	case '–', '—', '‐', '‑':
		return '-'
	case '’', '‘', '´', '`':
		return '\''
	case '“', '”', '„':
		return '"'
	case '«':
		return '<'
	}
	r = unicode.ToLower(r)
	if r < 128 {
		return r
	}
	if d := norm.NFD.String(string(r)); d != "" {
		if base, _ := utf8.DecodeRuneInString(d); base < 128 {
			return base
		}
	}
	return r
}

// foldString is the folded text alone.
func foldString(s string) string { return fold(s).s }

// labelPattern compiles a label written in folded form into a regular expression that
// tolerates OCR and spelling noise: umlauts may be spelled with e ("ä" matches a, ae),
// ß as s, ss or b, l and i as 1 | ! or each other, o as 0, a space as any (or no)
// white space, a dot as optional. "|" separates alternatives; "#" is a word boundary
// ("#nom#" is the French label, not the start of "nome" or "nombre").
//
// A spec starting with "re:" is a plain regular expression (the whole spec); a backslash makes the next
// character literal.
func labelPattern(spec string) *regexp.Regexp {
	if raw, ok := strings.CutPrefix(spec, "re:"); ok {
		return regexp.MustCompile(raw)
	}
	var alts []string
	for _, alt := range strings.Split(spec, "|") {
		var b strings.Builder
		escaped := false
		for _, r := range alt {
			if escaped {
				b.WriteString(regexp.QuoteMeta(string(r)))
				escaped = false
				continue
			}
			switch r {
			case '\\':
				escaped = true
			case '#':
				b.WriteString(`\b`)
			case 'ä':
				b.WriteString("ae?")
			case 'ö':
				b.WriteString("oe?")
			case 'ü':
				b.WriteString("(?:ue?|ii)")
			case 'ß':
				b.WriteString("(?:ss|s|b)")
			case 'l', 'i':
				b.WriteString("[li1|!]")
			case 'o':
				b.WriteString("[o0]")
			case ' ':
				b.WriteString(`\s*`)
			case '.':
				b.WriteString(`\.?`)
			case '-':
				b.WriteString(`[-\s]?`)
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
			if unicode.IsLetter(r) {
				b.WriteString(` ?`) // OCR splits words: "S urname"
			}
		}
		alts = append(alts, strings.TrimSuffix(b.String(), ` ?`))
	}
	return regexp.MustCompile(`(?:` + strings.Join(alts, "|") + `)`)
}
