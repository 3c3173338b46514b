// Package slug makes the keys of custom catalog entries and templates from their names:
// lowercase a-z, 0-9 and underscores, German umlauts transliterated (ä → ae), other
// accents dropped, and made unique with a numeric suffix.
package slug

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// MaxLen bounds a key's base; the numeric suffix comes on top, and keys stay within the
// 64 characters that ids may have.
const MaxLen = 56

var german = strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "Ä", "ae", "Ö", "oe", "Ü", "ue", "ß", "ss", "ẞ", "ss")

// Make returns the slug of name, or fallback when name has no letter or digit.
func Make(name, fallback string) string {
	s := german.Replace(name)
	// Decompose (compatibility forms too: ² → 2) and drop combining marks: é → e.
	if t, _, err := transform.String(transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s); err == nil {
		s = t
	}
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToLower(s) {
		if b.Len() >= MaxLen {
			break
		}
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if underscore && b.Len() > 0 {
				b.WriteByte('_')
			}
			underscore = false
			b.WriteRune(r)
		default:
			underscore = true
		}
	}
	out := strings.TrimRight(b.String(), "_")
	if len(out) > MaxLen {
		out = strings.TrimRight(out[:MaxLen], "_")
	}
	if out == "" {
		return fallback
	}
	return out
}

// Unique returns base when it is not taken, else base_2, base_3, … — the first free one.
func Unique(base string, taken []string) string {
	set := make(map[string]bool, len(taken))
	for _, k := range taken {
		set[k] = true
	}
	if !set[base] {
		return base
	}
	for n := 2; ; n++ {
		if k := base + "_" + strconv.Itoa(n); !set[k] {
			return k
		}
	}
}
