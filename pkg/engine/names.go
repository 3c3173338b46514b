package engine

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/doceval/doceval/pkg/engine/reader"
)

// sameName reports whether two printed names denote the same person: case, umlaut
// transliteration (Müller, Mueller, MULLER), hyphens, "Surname, Given" order, titles
// and a missing middle name do not matter. Every token of the shorter name must be
// among the longer one's tokens, and at least two tokens must match, so a shared
// surname alone is not enough.
func sameName(a, b string) bool {
	ta, tb := nameTokens(a), nameTokens(b)
	if len(ta) == 0 || len(tb) == 0 {
		return false
	}
	if len(ta) > len(tb) {
		ta, tb = tb, ta
	}
	set := map[string]bool{}
	for _, t := range tb {
		set[t] = true
	}
	for _, t := range ta {
		if !set[t] {
			return false
		}
	}
	return len(ta) >= 2 || len(tb) == 1
}

// nameTitles are words that are not part of a name.
var nameTitles = map[string]bool{
	"herr": true, "frau": true, "hr": true, "fr": true, "dr": true, "prof": true, "mr": true, "mrs": true, "ms": true,
	"miss": true, "dipl": true, "ing": true, "med": true,
}

// nameTokens splits a name into comparable tokens: lower case, umlauts written as
// their base vowel (so ü, ue and u compare equal), other diacritics dropped.
func nameTokens(s string) []string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("ä", "a", "ö", "o", "ü", "u", "ß", "ss", "ae", "a", "oe", "o", "ue", "u").Replace(s)
	s, _, _ = transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if !nameTitles[t] {
			out = append(out, t)
		}
	}
	return out
}

// nearName reports whether two names that are not the same person by sameName are
// still within a few misread letters of each other (at most a quarter of the longer
// name's letters differ): what OCR makes of one name, not a second person.
func nearName(a, b string) bool {
	x, y := []rune(strings.Join(nameTokens(a), "")), []rune(strings.Join(nameTokens(b), ""))
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	return 4*reader.EditDistance(string(x), string(y)) <= max(len(x), len(y))
}
