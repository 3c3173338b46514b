package reader

import (
	"regexp"
	"slices"
	"strings"
	"sync"
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

// The characters OCR reads for one another in labels, each set matched as one by
// labelPattern and keyRune: l, i, 1, | and !; o and 0.
const (
	ocrLikeL = "li1|!"
	ocrLikeO = "o0"
)

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
				b.WriteString("[" + ocrLikeL + "]")
			case 'o':
				b.WriteString("[" + ocrLikeO + "]")
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

// keyedPattern is a label pattern with the keys that let a line be passed over without
// running it (see labelKeys).
type keyedPattern struct {
	re   *regexp.Regexp
	keys []string
}

// keyedPatterns caches keyed label patterns by spec: the readers and the classifier
// look for the same labels on every line of every document.
var keyedPatterns sync.Map

func keyed(spec string) keyedPattern {
	if k, ok := keyedPatterns.Load(spec); ok {
		return k.(keyedPattern)
	}
	k := keyedPattern{re: labelPattern(spec), keys: labelKeys(spec)}
	keyedPatterns.Store(spec, k)
	return k
}

// match reports whether the line holds the label; bare is the line's fold without
// white space.
func (k keyedPattern) match(l line) bool {
	if k.keys != nil && !slices.ContainsFunc(k.keys, func(key string) bool { return strings.Contains(l.bare, key) }) {
		return false
	}
	return k.re.MatchString(l.f.s)
}

// minKey is the shortest key worth checking.
const minKey = 3

// keyRune is how a character stands in a key and in a line's bare form: the letters
// and digits labelPattern lets OCR confuse as one (l, i, 1, |, ! as l; o and 0 as o),
// other letters and digits as themselves, white space, dots and hyphens (which the
// pattern lets go missing) dropped (-1), anything else a break (0).
func keyRune(r rune) rune {
	switch {
	case strings.ContainsRune(ocrLikeL, r):
		return 'l'
	case strings.ContainsRune(ocrLikeO, r):
		return 'o'
	case r >= 'a' && r <= 'z' || r >= '2' && r <= '9':
		return r
	case unicode.IsSpace(r) || r == '.' || r == '-' || r == '#':
		return -1
	}
	return 0
}

// bareOf is the fold of s as keys are checked against it (see keyRune): breaks kept
// as spaces, so that no key runs across them.
func bareOf(s string) string {
	var b strings.Builder
	for _, r := range foldString(s) {
		switch k := keyRune(r); k {
		case -1:
		case 0:
			b.WriteByte(' ')
		default:
			b.WriteRune(k)
		}
	}
	return b.String()
}

// labelKeys are, per alternative of a plain label spec, its longest run of characters
// the pattern requires (see keyRune), in the form bareOf gives a line: a line whose bare
// form contains no key cannot match. nil when some alternative has no such run of
// minKey characters, or for a "re:" spec: then every line must be tried.
func labelKeys(spec string) []string {
	if strings.HasPrefix(spec, "re:") {
		return nil
	}
	var keys []string
	for _, alt := range strings.Split(spec, "|") {
		best, cur := "", ""
		escaped := false
		for _, r := range alt + "\x00" {
			k := keyRune(r)
			switch {
			case escaped:
				escaped = false
				k = 0
			case r == '\\':
				escaped = true
				k = 0
			}
			switch k {
			case -1:
			case 0:
				if len(cur) > len(best) {
					best = cur
				}
				cur = ""
			default:
				cur += string(k)
			}
		}
		if len(best) < minKey {
			return nil
		}
		keys = append(keys, best)
	}
	return keys
}
