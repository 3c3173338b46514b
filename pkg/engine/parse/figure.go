package parse

import "strings"

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
func Figures(s string) []Figure {
	var out []Figure
	for c := range moneys(s) {
		f := Figure{Money: c.money, Span: c.span, Currency: c.marked, Signed: c.signed}
		if side, end, ok := sideMarkAfter(s, c.span.End); ok {
			f.Money.Cents = abs64(f.Money.Cents) * int64(side)
			f.Span.End, f.Signed = end, true
		} else if open, close, ok := parenthesized(s, c.span); ok && !c.signed {
			f.Money.Cents = -abs64(f.Money.Cents)
			f.Span, f.Signed = Span{open, close}, true
		}
		if len(out) > 0 && f.Span.Start < out[len(out)-1].Span.End {
			continue // a marker or parenthesis already taken by the figure before
		}
		out = append(out, f)
	}
	return out
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
