package parse

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFigures(t *testing.T) {
	t.Parallel()
	type want struct {
		cents            int64
		currency, signed bool
	}
	for in, ws := range map[string][]want{
		"03.03. Miete 850,00 S 4.150,00 H": {{-85000, false, true}, {415000, false, true}},
		"Gehalt 3.250,00 H":                {{325000, false, true}},
		"Card payment 45.10DR 1,204.90CR":  {{-4510, false, true}, {120490, false, true}},
		"Direct debit 120.00 Dr":           {{-12000, false, true}},
		"Fees (12.50) Balance 1,000.00":    {{-1250, false, true}, {100000, false, false}},
		"Refund ( $ 40.00 )":               {{-4000, true, true}},
		"Überweisung 1.234,56- 3.000,00 €": {{-123456, false, true}, {300000, true, false}},
		"Lastschrift -89,90 EUR":           {{-8990, true, true}},
		"Salary £2,450.00":                 {{245000, true, false}},
		"Gutschrift 500,00 Haben":          {{50000, false, true}},
		"Summe 500,00 Schlusssaldo 1,00":   {{50000, false, false}, {100, false, false}},
	} {
		fs := Figures(in)
		require.Len(t, fs, len(ws), in)
		for i, w := range ws {
			require.Equal(t, w.cents, fs[i].Money.Cents, "%q #%d", in, i)
			require.Equal(t, w.currency, fs[i].Currency, "%q #%d currency", in, i)
			require.Equal(t, w.signed, fs[i].Signed, "%q #%d signed", in, i)
		}
	}
}

func TestDateOrder(t *testing.T) {
	t.Parallel()
	us := "Statement period 03/01/2025 - 03/31/2025\n03/04/2025 Payroll 2,000.00"
	o, ok := DateOrderOf(us)
	require.True(t, ok)
	require.Equal(t, MonthFirst, o)
	d, _, ok := DateIn("03/04/2025 Payroll", o)
	require.True(t, ok)
	require.Equal(t, time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC), d)
	// Day first is the default and what a 13 or more in front says.
	o, ok = DateOrderOf("Zeitraum 01/03/2025 - 31/03/2025")
	require.True(t, ok)
	require.Equal(t, DayFirst, o)
	d, _, _ = Date("03/04/2025")
	require.Equal(t, time.April, d.Month())
	// A dotted date is day first even in US order; dates either order can read are no
	// evidence.
	d, _, _ = DateIn("03.04.2025", MonthFirst)
	require.Equal(t, time.April, d.Month())
	_, ok = DateOrderOf("01/02/2025 and 03/04/2025, 15.03.2025")
	require.False(t, ok)
	m, _, ok := MonthIn("Pay period 03/01/2025", MonthFirst)
	require.True(t, ok)
	require.Equal(t, time.March, m.Month())
}

func TestCurrencies(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Net Pay $2,345.67 YTD $12,000.00":      "USD",
		"Nettoverdienst 2.345,67 € Währung EUR": "EUR",
		"Net Pay £1,800.00":                     "GBP",
		"Betrag in CHF 1'200.00":                "CHF",
	} {
		got, ok := MainCurrency(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	_, ok := MainCurrency("Net Pay 2,345.67")
	require.False(t, ok, "no marker, no currency")
	_, ok = MainCurrency("1,00 € and $1.00")
	require.False(t, ok, "a tie names none")
}

func FuzzFigures(f *testing.F) {
	for _, s := range []string{"850,00 S 4.150,00 H", "45.10DR 1,204.90CR", "(12.50)", "( $ 40.00 )", "1.234,56- 3.000,00 €", "16,40 2 500,57 1 234 567,89 €"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		SpaceGrouped(s)
		for _, grouping := range []Grouping{StrictSpaces, PlainSpaces} {
			prev := 0
			for _, g := range FiguresIn(s, grouping) {
				got := requireSpan(t, s, g.Span, true)
				require.GreaterOrEqual(t, g.Span.Start, prev, "overlapping figures")
				prev = g.Span.End
				require.True(t, strings.ContainsAny(got, "0123456789"), "%q has no digits", got)
				require.Len(t, g.Money.Currency, 3)
			}
		}
	})
}

func FuzzDateIn(f *testing.F) {
	for _, c := range dateCases {
		f.Add(c.in)
	}
	f.Add("03/04/2025")
	f.Add("210679")
	f.Fuzz(func(t *testing.T, s string) {
		today := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
		if c, ok := CompactDate(s, DayFirst, today); ok {
			require.False(t, c.After(today), "%q is after today", s)
			require.Equal(t, c, c.Truncate(24*time.Hour), "not midnight")
		}
		d, sp, ok := DateIn(s, MonthFirst)
		got := requireSpan(t, s, sp, ok)
		DateOrderOf(s)
		if !ok {
			return
		}
		require.Equal(t, d, d.Truncate(24*time.Hour), "not midnight")
		requireAlone(t, func(s string) (time.Time, Span, bool) { return DateIn(s, MonthFirst) }, got, d)
		requireReads(t, func(s string) (time.Time, Span, bool) { return DateIn(s, MonthFirst) }, d.Format("01/02/2006"), d)
	})
}

func FuzzCurrencies(f *testing.F) {
	f.Add("Net Pay $2,345.67 YTD US$12,000.00 £ EUR Euro")
	f.Fuzz(func(t *testing.T, s string) {
		for code, n := range Currencies(s) {
			require.Len(t, code, 3)
			require.Positive(t, n)
		}
		MainCurrency(s)
	})
}

func TestFiguresPlainSpaces(t *testing.T) {
	cents := func(fs []Figure) []int64 {
		var out []int64
		for _, f := range fs {
			out = append(out, f.Money.Cents)
		}
		return out
	}
	for _, c := range []struct {
		in     string
		strict []int64
		plain  []int64
	}{
		{"SALAIRE BRUT     2 665,44", nil, []int64{266544}},
		{"Salaire de base   151,67   16,4870   2 500,57", []int64{15167}, []int64{15167, 250057}},
		{"NET PAYÉ EN EUROS 1 234 567,89 €", nil, []int64{123456789}},
		// Strictly two cells or one number, so nothing; on a document that groups by
		// spaces, one number.
		{"Heures 8 164,87", nil, []int64{816487}},
		// A number a single space before: two cells.
		{"Heures 16 8 164,87", nil, nil},
		{"Total 16,40 2 500,57", []int64{1640}, []int64{1640, 250057}},
		// Not the shape: no decimals, a group of two, a decimal point.
		{"N° SS 1 85 04 69 123 456 78", nil, nil},
		{"Réf 12 345", nil, nil},
		{"2 665.44", nil, nil}, // a count and an amount, or nothing
		// A debit's minus a space before it at the start of its cell, after a value date.
		{"PRLV SEPA EDF     04/11     - 82,40 €", []int64{-8240}, []int64{-8240}},
		{"VIR SALAIRE     27/11     - 2 480,00 €", nil, []int64{-248000}},
	} {
		require.Equal(t, c.strict, cents(Figures(c.in)), "strict %q", c.in)
		require.Equal(t, c.plain, cents(FiguresIn(c.in, PlainSpaces)), "plain %q", c.in)
	}
}

func TestSpaceGrouped(t *testing.T) {
	require.True(t, SpaceGrouped("SALAIRE BRUT 2 665,44\nNET PAYÉ 2 176,33"))
	require.False(t, SpaceGrouped("SALAIRE BRUT 2 665,44"), "one amount is no habit")
	require.True(t, SpaceGrouped("SOLDE AU 30/09/2026   1 250,00\nSOLDE AU 31/10/2026   3 483,60"), "after a cell gap")
	require.False(t, SpaceGrouped("Pos. 3 250,00 €\nPos. 4 120,00 €"), "positions and amounts")
	require.False(t, SpaceGrouped("Gesamt-Brutto 3.565,00\nPos. 3 250,00 €"), "a document that groups by dots")
	require.False(t, SpaceGrouped("Total 2,665.44\n1 250,00"))
	require.False(t, SpaceGrouped("Betrag 250,00"), "no grouped amount at all")
}
