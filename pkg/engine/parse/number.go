package parse

import (
	"math"
	"strconv"
	"strings"
)

// num is a number as written: digit groups joined by separators, "1.234.567,89". first
// and last are token indices of its first and last digit group.
type num struct{ first, last int }

// groupSpaces are the typographic spaces that group thousands ("1 234,56" with a
// no-break space). An ordinary space is not one of them: in a table row "3 250,00" is
// as likely a count of 3 next to an amount. Only on a document that groups its amounts
// so (see SpaceGrouped, PlainSpaces) does it group them, in one shape (plainGrouped).
var groupSpaces = map[string]bool{"\u00a0": true, "\u2007": true, "\u2009": true, "\u202f": true}

// plainGrouped reports whether the digits from token i are a number grouped by single
// ordinary spaces with a decimal comma: "2 665,44", "12 500,00", "1 234 567,89": a
// leading group of one to three digits, groups of three, two decimals, and nothing
// numeric glued on either side.
func (t *text) plainGrouped(i int) bool {
	if len(t.str(i)) > 3 || t.kind(i-1) == other && t.kind(i-2) == digits {
		return false
	}
	// A whole number a single space before: a count in the cell before ("16 8 164,87");
	// an amount with decimals there ends its own cell ("16,40 2 500,57").
	if t.kind(i-1) == space && t.str(i-1) == " " && t.kind(i-2) == digits &&
		!(t.kind(i-3) == other && (t.str(i-3) == "," || t.str(i-3) == ".") && t.kind(i-4) == digits) {
		return false
	}
	j, groups := i, 0
	for t.kind(j+1) == space && t.str(j+1) == " " && t.kind(j+2) == digits && len(t.str(j+2)) == 3 {
		j += 2
		groups++
	}
	if groups == 0 || t.str(j+1) != "," || t.kind(j+2) != digits || len(t.str(j+2)) != 2 {
		return false
	}
	after := j + 3
	return t.kind(after) != digits && !(t.kind(after) == other && (t.str(after) == "," || t.str(after) == ".") && t.kind(after+1) == digits)
}

// number reads the number whose first digit group is token i.
func (t *text) number(i int) num {
	n := num{first: i, last: i}
	// A space may group thousands only after a short leading group and before any
	// other separator, so that it does not join two numbers that merely stand apart.
	spaced := len(t.str(i)) <= 3
	plain := t.plainSpaces && spaced && t.plainGrouped(i)
	for t.kind(n.last+2) == digits {
		sep := n.last + 1
		switch {
		case t.kind(sep) == other && sepKind(t.str(sep)) != 0:
			spaced = false
		case spaced && t.kind(sep) == space && (groupSpaces[t.str(sep)] || plain && t.str(sep) == " ") && len(t.str(sep+1)) == 3:
		default:
			return n
		}
		n.last = sep + 1
	}
	return n
}

// sepKind returns the kind of a separator token: '.', ',', an apostrophe (the Swiss
// grouping mark, either spelling) or ' ' for a grouping space; 0 for anything else.
func sepKind(s string) byte {
	switch {
	case s == "." || s == ",":
		return s[0]
	case s == "'" || s == "’":
		return '\''
	case groupSpaces[s] || s == " ":
		return ' '
	}
	return 0
}

// value returns the integer and fraction digits of n, without separators.
//
// When both '.' and ',' occur the last one is the decimal separator. A lone '.' or ','
// groups thousands when exactly three digits follow it and the leading group can start
// a grouped number, unless preferDecimal; otherwise it is the decimal separator.
// Grouping must be consistent (one kind of separator, groups of three digits) or n has
// no reading at all: "15.03.2026" is not a number.
func (t *text) value(n num, preferDecimal bool) (whole, frac string, ok bool) {
	var groups []string
	var seps []byte
	for i := n.first; i <= n.last; i += 2 {
		groups = append(groups, t.str(i))
		if i < n.last {
			seps = append(seps, sepKind(t.str(i+1)))
		}
	}
	if len(seps) > 0 {
		last := seps[len(seps)-1]
		lone := (last == '.' || last == ',') && strings.Count(string(seps), string(last)) == 1
		if lone && (len(seps) > 1 || preferDecimal || len(groups[1]) != 3 || !leadingGroup(groups[0])) {
			frac = groups[len(groups)-1]
			groups, seps = groups[:len(groups)-1], seps[:len(seps)-1]
		}
	}
	if len(seps) > 0 {
		if !leadingGroup(groups[0]) {
			return "", "", false
		}
		for i, g := range groups[1:] {
			if len(g) != 3 || seps[i] != seps[0] {
				return "", "", false
			}
		}
	}
	return strings.Join(groups, ""), frac, true
}

// leadingGroup reports whether g can be the first group of a number grouped in
// thousands: one to three digits, not starting with 0.
func leadingGroup(g string) bool { return len(g) <= 3 && g[0] != '0' }

// float returns the value of n.
func (t *text) float(n num, preferDecimal bool) (float64, bool) {
	whole, frac, ok := t.value(n, preferDecimal)
	if !ok {
		return 0, false
	}
	if frac != "" {
		whole += "." + frac
	}
	v, err := strconv.ParseFloat(whole, 64)
	return v, err == nil // err is a range error for absurdly long numbers
}

// cents returns whole.frac × 10^exp in hundredths, false when it has more than two
// decimals at that scale or does not fit in an int64.
func cents(whole, frac string, exp int) (int64, bool) {
	pad := 2 + exp - len(frac)
	if pad < 0 {
		return 0, false
	}
	var v int64
	for _, part := range [2]string{whole, frac} {
		for i := 0; i < len(part); i++ {
			d := int64(part[i] - '0')
			if v > (math.MaxInt64-d)/10 {
				return 0, false
			}
			v = v*10 + d
		}
	}
	for ; pad > 0; pad-- {
		if v > math.MaxInt64/10 {
			return 0, false
		}
		v *= 10
	}
	return v, true
}

// leadingSign finds a sign before the number or currency marker at token i, perhaps
// with space between ("- 1.234,56"), and returns its token index. An en dash counts
// as a minus only when glued to the number ("–500"), as word processors set it: with
// space after it, it is a dash ("Miete – 500 €").
func (t *text) leadingSign(i int) (at int, neg, ok bool) {
	at = t.skipSpaceBack(i - 1)
	switch t.str(at) {
	case "-", "−":
		neg = true
	case "–":
		neg = at == i-1
		if !neg {
			return 0, false, false
		}
	case "+":
	default:
		return 0, false, false
	}
	// A sign glued to a word is a hyphen ("Saldo-5"). Between two numbers it is a
	// range or an operator when glued to the first ("2026-03", "10-20") or standing
	// apart from both ("1.000 - 2.000"); glued to the second only, it is its sign
	// ("31/10/2025 -1,110.51").
	if t.kind(at-1) == word || t.kind(at-1) == digits || at != i-1 && t.kind(t.skipSpaceBack(at-1)) == digits {
		return 0, false, false
	}
	return at, neg, true
}

// trailingSign reports a sign glued to the end of a number at token i, the German
// bank-statement way of marking debits ("1.234,56-"). A dash that goes on into a word
// or a number is a hyphen or a range instead ("100-Euro-Schein", "10-20").
func (t *text) trailingSign(i int) (neg, ok bool) {
	if !t.is(i, "-", "−", "+") || t.kind(i+1) == digits || t.kind(i+1) == word {
		return false, false
	}
	return !t.is(i, "+"), true
}

// glued reports whether the number at token i is stuck to a word before it, as in the
// check digits of an IBAN ("DE89") or a code ("A4").
func (t *text) glued(i int) bool { return t.kind(i-1) == word }

// spacedGroup reports whether n may be part of a number grouped with ordinary spaces,
// as its head or its tail: "1 234,56" is 1234.56, or 234.56 next to a count of 1.
func (t *text) spacedGroup(n num) bool {
	head := n.first == n.last && len(t.str(n.first)) <= 3 &&
		t.is(n.last+1, " ") && len(t.str(n.last+2)) == 3 && t.kind(n.last+2) == digits
	before := t.kind(n.first - 3)
	tail := len(t.str(n.first)) == 3 && t.is(n.first-1, " ") && t.kind(n.first-2) == digits &&
		len(t.str(n.first-2)) <= 3 && (before == none || before == space || before == word)
	return head || tail
}

// inIBAN reports whether n is the last block of an IBAN written in blocks of four, as
// in "DE89 3704 0044 0532 0130 00 EUR", where "00 EUR" is no amount.
func (t *text) inIBAN(n num) bool {
	if n.first != n.last || len(t.str(n.first)) > 4 {
		return false
	}
	i := n.first
	for range 9 { // an IBAN has at most 34 characters
		end := i - 2
		if t.kind(i-1) != space {
			return false
		}
		first, ok := t.block(end)
		if !ok {
			return false
		}
		switch b := t.s[t.toks[first].start:t.toks[end].end]; {
		case len(b) == 4 && isUpper(b[0]) && isUpper(b[1]) && isDigit(b[2]) && isDigit(b[3]):
			return true // the country code and check digits: "DE89"
		case len(b) != 4 || !upperAlnum(b):
			return false
		}
		i = first
	}
	return false
}

// block returns the first token of the run of glued letters and digits, at most four
// bytes long, that ends at token end.
func (t *text) block(end int) (int, bool) {
	k := end
	for t.kind(k) == digits || t.kind(k) == word {
		if t.toks[end].end-t.toks[k].start > 4 {
			return 0, false
		}
		k--
	}
	return k + 1, k < end
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }

func upperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isUpper(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// afterPoint reports whether the number at token i follows a lone decimal point: in
// ".5" or ",50" the digits are a fraction whose integer part was left out. After an
// abbreviation ("ca.120") they are not.
func (t *text) afterPoint(i int) bool {
	return t.is(i-1, ".", ",") && t.kind(i-2) != word
}
