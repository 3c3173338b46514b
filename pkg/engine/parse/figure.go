package parse

import (
	"regexp"
	"strings"
)

// Figure is an amount as a statement or payslip prints it, with what stands around it.
type Figure struct {
	Money Money
	// Span covers the number with its sign, currency marker and the side marker or
	// parentheses that gave its sign.
	Span Span
	// Currency says a currency marker stands next to the number. Without one,
	// Money.Currency is only Amount's default ("EUR"): the caller decides the currency
	// from the document, and a figure on a document without any currency is no money.
	Currency bool
	// Signed says the sign was printed: a minus or plus, a debit or credit marker
	// ("S"/"H", "Soll"/"Haben", "DR"/"CR"), or parentheses (an accountant's negative).
	// An unsigned figure takes its sign from its column.
	Signed bool
}

// sideMarks are the markers after an amount that say which side of an account it is
// on: -1 debit, +1 credit. "S" and "H" (Soll, Haben) count in capitals only; "CR" and
// "DR" also in the title case some banks print; "OD" is a British bank's overdrawn
// balance.
var sideMarks = map[string]int{
	"S": -1, "Soll": -1, "DR": -1, "Dr": -1, "OD": -1,
	"H": 1, "Haben": 1, "CR": 1, "Cr": 1,
}

// Figures returns the amounts of s, left to right, as Amounts does, each with its
// currency evidence and printed sign. A side marker after an amount ("1.234,56 S",
// "1,234.56 DR", "250.00CR") gives its sign, as do parentheses around it ("(1,234.56)"
// is negative); a figure that already carries a minus and a credit marker keeps the
// marker's side.
func Figures(s string) []Figure { return FiguresIn(s, StrictSpaces) }

// Grouping says whether an ordinary space groups thousands in a document's amounts.
type Grouping uint8

const (
	// StrictSpaces: only typographic spaces group thousands ("1 234,56" with a
	// no-break space); "3 250,00" is a count of 3 and an amount of 250,00, or nothing.
	StrictSpaces Grouping = iota
	// PlainSpaces: an ordinary space groups them too, in the shape "2 665,44" (a
	// leading group of one to three digits, groups of three, a decimal comma and two
	// decimals), where no number stands a single space before it. For documents that
	// print their amounts so (see SpaceGrouped), as French ones do.
	PlainSpaces
)

// spaceGroupedRe and markGroupedRe find amounts grouped by an ordinary space and by a
// dot, comma or apostrophe.
var (
	spaceGroupedRe = regexp.MustCompile(`(?m)(?:(?:^|[^\d.,'\s])\s*|\s{2,})\d{1,3}(?: \d{3})+,\d{2}(?:[^\d]|$)`)
	markGroupedRe  = regexp.MustCompile(`\d{1,3}(?:[.,'’]\d{3})+[.,]\d{2}(?:[^\d]|$)`)
)

// SpaceGrouped reports whether a document's text groups its amounts' thousands by
// ordinary spaces: it prints two such amounts ("2 665,44"), each after a word or a
// cell gap (two spaces), and none grouped by a mark ("2.665,44", "2,665.44",
// "2'665.44"). Its figures are then read with PlainSpaces.
func SpaceGrouped(s string) bool {
	return len(spaceGroupedRe.FindAllStringIndex(s, 2)) == 2 && !markGroupedRe.MatchString(s)
}

// FiguresIn is Figures with the document's grouping of thousands.
func FiguresIn(s string, g Grouping) []Figure {
	var out []Figure
	for c := range moneys(s, g) {
		f := Figure{Money: c.money, Span: c.span, Currency: c.marked, Signed: c.signed}
		if side, end, ok := sideMarkAfter(s, c.span.End); ok {
			f.Money.Cents = abs64(f.Money.Cents) * int64(side)
			f.Span.End, f.Signed = end, true
		} else if open, close, ok := parenthesized(s, c.span); ok && !c.signed {
			f.Money.Cents = -abs64(f.Money.Cents)
			f.Span, f.Signed = Span{open, close}, true
		} else if at, ok := detachedMinus(s, c.span.Start); ok && !c.signed {
			f.Money.Cents = -abs64(f.Money.Cents)
			f.Span.Start, f.Signed = at, true
		}
		if len(out) > 0 && f.Span.Start < out[len(out)-1].Span.End {
			continue // a marker or parenthesis already taken by the figure before
		}
		out = append(out, f)
	}
	return out
}

// detachedMinus reads a minus sign a space before the amount at s[i:] that starts its
// cell: at the line's start or after a gap of two or more spaces ("   - 82,40 €", as
// French banks print a debit). A dash between words ("Miete - 950,00") is no sign. It
// returns where the sign stands.
func detachedMinus(s string, i int) (int, bool) {
	if i < 2 || s[i-1] != ' ' || s[i-2] != '-' {
		return 0, false
	}
	before := s[:i-2]
	return i - 2, before == "" || strings.HasSuffix(before, "  ") || strings.TrimRight(before, " ") == ""
}

// sideMarkAfter reads a side marker at s[i:], after optional spaces, that is a word of
// its own; it returns the side and where the marker ends.
func sideMarkAfter(s string, i int) (int, int, bool) {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	k := j
	for k < len(s) && (s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z') {
		k++
	}
	if k == j || k < len(s) && s[k] >= 0x80 {
		return 0, 0, false // no word, or one that goes on in letters beyond ASCII
	}
	side := sideMarks[s[j:k]]
	if side == 0 {
		return 0, 0, false
	}
	return side, k, true
}

// parenthesized reports an amount standing in parentheses of its own, perhaps with
// spaces inside: "(1,234.56)", "( 45,00 € )".
func parenthesized(s string, sp Span) (int, int, bool) {
	before := strings.TrimRight(s[:sp.Start], " \t")
	after := strings.TrimLeft(s[sp.End:], " \t")
	if !strings.HasSuffix(before, "(") || !strings.HasPrefix(after, ")") {
		return 0, 0, false
	}
	return len(before) - 1, len(s) - len(after) + 1, true
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
