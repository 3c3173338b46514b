package parse

import "strings"

// Area finds the first area in square meters in s: "85,5 m²", "85.5 m2", "85 m^2",
// "85,50 qm", "85 sqm", "85 sq m", "85 Quadratmeter", "85 square metres", "ca. 120 m²".
// Numbers read as in Amount, so "1.250 m²" is 1250. Cubic meters and negative numbers
// are not areas.
func Area(s string) (float64, Span, bool) {
	return quantity{unit: areaUnit}.find(s)
}

// Percent finds the first percentage in s: "80 %", "80,5%", "80.5 percent", "80,5
// Prozent", "80,5 v. H.", "80.5 pct", "-0,5 %". 80.5 means 80.5 %. Unlike Amount, a lone
// separator before three digits is a decimal point, since rates like "3,125 %" are
// common and percentages over a thousand are not.
func Percent(s string) (float64, Span, bool) {
	return quantity{preferDecimal: true, signed: true, unit: percentUnit}.find(s)
}

// Years finds the first duration in years in s: "10 Jahre", "10 Jahren", "1 Jahr",
// "10 years", "10 yrs", "10-year", "10 J.", "10-jährige", "2,5 Jahre", and number words
// up to twenty and the round tens up to fifty ("zehn Jahre", "ten years"). Only the
// first number counts: "3 Jahre 6 Monate" is 3.
func Years(s string) (float64, Span, bool) {
	return quantity{unit: yearsUnit, words: numberWords}.find(s)
}

// quantity is a number followed by a unit.
type quantity struct {
	preferDecimal bool // a lone separator before three digits is a decimal point
	signed        bool // a minus sign counts; otherwise a negative number is skipped
	// unit reads the unit at or after token i, where the number ended, and returns
	// its last token.
	unit  func(t *text, i int) (int, bool)
	words map[string]float64 // number words that may stand for the number
}

func (q quantity) find(s string) (float64, Span, bool) {
	t := lex(s)
	for i := 0; i < len(t.toks); i++ {
		switch t.kind(i) {
		case digits:
			n := t.number(i)
			if v, sp, ok := q.at(t, n); ok {
				return v, sp, true
			}
			i = n.last
		case word:
			if v, ok := q.words[t.fold(i)]; ok {
				if last, ok := q.unit(t, i+1); ok {
					return v, t.span(i, last), true
				}
			}
		}
	}
	return 0, Span{}, false
}

func (q quantity) at(t *text, n num) (float64, Span, bool) {
	if t.glued(n.first) || t.afterPoint(n.first) || t.spacedGroup(n) {
		return 0, Span{}, false
	}
	v, ok := t.float(n, q.preferDecimal)
	if !ok {
		return 0, Span{}, false
	}
	last, ok := q.unit(t, n.last+1)
	if !ok {
		return 0, Span{}, false
	}
	start := n.first
	if at, neg, ok := t.leadingSign(n.first); ok {
		switch {
		case q.signed:
			start = at
			if neg {
				v = -v
			}
		case neg:
			return 0, Span{}, false
		}
	}
	return v, t.span(start, last), true
}

// areaUnit reads a unit of square meters at or after token i.
func areaUnit(t *text, i int) (int, bool) {
	i = t.skipSpace(i)
	switch t.fold(i) {
	case "m":
		if t.is(i+1, "²", "2") { // the token "2" is all the digits there are
			return i + 1, true
		}
		if t.is(i+1, "^") && t.is(i+2, "2") {
			return i + 2, true
		}
	case "qm", "sqm", "quadratmeter", "quadratmetern":
		return i, true
	case "sq": // "sq m", "sq. m", "sq.m", "sq metres"
		j := i + 1
		if t.is(j, ".") {
			j++
		}
		if j = t.skipSpace(j); metre(t.fold(j)) {
			return j, true
		}
	case "square":
		if j := t.skipSpace(i + 1); j == i+2 && metre(t.fold(j)) {
			return j, true
		}
	}
	if t.is(i, "㎡") {
		return i, true
	}
	return 0, false
}

func metre(w string) bool {
	switch w {
	case "m", "meter", "meters", "metre", "metres":
		return true
	}
	return false
}

// percentUnit reads a percent sign or word at or after token i.
func percentUnit(t *text, i int) (int, bool) {
	i = t.skipSpace(i)
	if t.is(i, "%", "％") {
		return i, true
	}
	switch t.fold(i) {
	case "prozent", "percent", "vh":
		return i, true
	case "pct":
		return t.optDot(i), true
	case "per": // "per cent"
		if j := t.skipSpace(i + 1); j == i+2 && t.fold(j) == "cent" {
			return j, true
		}
	case "vom": // "vom Hundert"
		if j := t.skipSpace(i + 1); j == i+2 && t.fold(j) == "hundert" {
			return j, true
		}
	case "v": // "v. H.", "v.H."
		if t.is(i+1, ".") {
			if j := t.skipSpace(i + 2); t.fold(j) == "h" {
				return t.optDot(j), true
			}
		}
	}
	return 0, false
}

// yearsUnit reads a unit of years at or after token i, spaced or hyphenated.
func yearsUnit(t *text, i int) (int, bool) {
	if t.is(i, "-") && t.kind(i+1) == word { // "10-year", "10-jährige"
		i++
	} else {
		i = t.skipSpace(i)
	}
	switch w := t.fold(i); w {
	case "jahr", "jahre", "jahren", "jahres", "year", "years":
		return i, true
	case "yr", "yrs":
		return t.optDot(i), true
	case "j": // "J." only: a lone "J" is too common to mean years
		if t.is(i+1, ".") {
			return i + 1, true
		}
	default:
		// "jährig", "jährige", "10-jaehrigen", … as an adjective
		w = umlauts.Replace(w)
		if rest, ok := strings.CutPrefix(w, "jahrig"); ok && len(rest) <= 2 {
			switch rest {
			case "", "e", "em", "en", "er", "es":
				return i, true
			}
		}
	}
	return 0, false
}

// umlauts spells "ä" and its OCR and ASCII stand-in "ae" as "a".
var umlauts = strings.NewReplacer("ä", "a", "ae", "a")

// numberWords are the German and English number words Years accepts.
var numberWords = map[string]float64{
	"ein": 1, "eins": 1, "einem": 1, "einen": 1, "one": 1,
	"zwei": 2, "two": 2, "drei": 3, "three": 3, "vier": 4, "four": 4,
	"fünf": 5, "fuenf": 5, "funf": 5, "five": 5, "sechs": 6, "six": 6,
	"sieben": 7, "seven": 7, "acht": 8, "eight": 8, "neun": 9, "nine": 9,
	"zehn": 10, "ten": 10, "elf": 11, "eleven": 11, "zwölf": 12, "zwoelf": 12, "zwolf": 12, "twelve": 12,
	"dreizehn": 13, "thirteen": 13, "vierzehn": 14, "fourteen": 14,
	"fünfzehn": 15, "fuenfzehn": 15, "funfzehn": 15, "fifteen": 15, "sechzehn": 16, "sixteen": 16,
	"siebzehn": 17, "seventeen": 17, "achtzehn": 18, "eighteen": 18,
	"neunzehn": 19, "nineteen": 19, "zwanzig": 20, "twenty": 20,
	"dreißig": 30, "dreissig": 30, "thirty": 30, "vierzig": 40, "forty": 40,
	"fünfzig": 50, "fuenfzig": 50, "funfzig": 50, "fifty": 50,
}
