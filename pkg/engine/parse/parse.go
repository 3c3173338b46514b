// Package parse reads values out of German and English document text: amounts of money,
// dates, areas, percentages and durations in years. Each function finds the first such
// value in s and reports where it was, so the caller can cite the text it came from.
//
// The parsers work on any input: they never panic, run in time linear in len(s), and
// report spans that start and end on rune boundaries. When a reading is doubtful they
// rather find nothing than guess: a credit decision is made on these numbers. Values
// do not continue across a line break, and "first" means the leftmost, except that
// Amount prefers an amount with a currency marker (see Amounts for all of them).
package parse

import (
	"fmt"
	"time"
)

// Money is an amount of money in minor units (cents) and its ISO 4217 currency.
type Money struct {
	Cents    int64
	Currency string
}

// Amount returns the amount as a decimal string with exactly two decimals, "-" first
// when negative: "3250.00", "-0.05".
func (m Money) Amount() string {
	sign, u := "", uint64(m.Cents)
	if m.Cents < 0 {
		sign, u = "-", -u // in unsigned arithmetic, so that math.MinInt64 works too
	}
	return fmt.Sprintf("%s%d.%02d", sign, u/100, u%100)
}

// String returns the amount and its currency, "3250.00 EUR".
func (m Money) String() string { return m.Amount() + " " + m.Currency }

// Span is the byte range [Start, End) of s a value was read from.
type Span struct{ Start, End int }

// FormatDate formats t's calendar date as "YYYY-MM-DD".
func FormatDate(t time.Time) string { return t.Format(time.DateOnly) }
