package parse

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// requireSpan checks what every parser promises about its span, and returns the text
// the value was read from.
func requireSpan(t *testing.T, s string, sp Span, ok bool) string {
	t.Helper()
	if !ok {
		require.Equal(t, Span{}, sp)
		return ""
	}
	require.True(t, 0 <= sp.Start && sp.Start < sp.End && sp.End <= len(s), "span %v of %d bytes", sp, len(s))
	got := s[sp.Start:sp.End]
	if utf8.ValidString(s) {
		require.True(t, utf8.ValidString(got), "span %v splits a rune: %q", sp, got)
	}
	return got
}

// requireAlone checks that the text a value was read from reads the same on its own.
func requireAlone[V any](t *testing.T, parse func(string) (V, Span, bool), got string, want V) {
	t.Helper()
	v, sp, ok := parse(got)
	require.True(t, ok, "%q alone reads as nothing", got)
	require.Equal(t, want, v, "%q alone", got)
	require.Equal(t, Span{0, len(got)}, sp, "%q alone", got)
}

// requireReads checks that s reads as want.
func requireReads[V any](t *testing.T, parse func(string) (V, Span, bool), s string, want V) {
	t.Helper()
	v, _, ok := parse(s)
	require.True(t, ok, "%q reads as nothing", s)
	require.Equal(t, want, v, "%q", s)
}

func FuzzAmount(f *testing.F) {
	for _, c := range amountCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, sp, ok := Amount(s)
		got := requireSpan(t, s, sp, ok)
		ms, spans := Amounts(s)
		require.Len(t, spans, len(ms))
		for i := range spans {
			requireSpan(t, s, spans[i], true)
			require.True(t, i == 0 || spans[i-1].End <= spans[i].Start, "overlapping spans %v", spans)
		}
		if !ok {
			require.Empty(t, ms)
			return
		}
		require.Contains(t, spans, sp, "Amount's pick is one of Amounts")
		require.Equal(t, m, ms[slices.Index(spans, sp)])
		require.True(t, strings.ContainsAny(got, "0123456789"), "%q has no digits", got)
		require.Len(t, m.Currency, 3)
		requireAlone(t, Amount, got, m)
		requireReads(t, Amount, formatMoney(m, '.', ',')+" "+m.Currency, m)
		requireReads(t, Amount, m.Currency+" "+formatMoney(m, ',', '.'), m)
	})
}

// formatMoney writes m grouped in thousands: "-1.234,56" or "-1,234.56".
func formatMoney(m Money, group, point byte) string {
	whole, frac, _ := strings.Cut(m.Amount(), ".")
	var b strings.Builder
	if w, ok := strings.CutPrefix(whole, "-"); ok {
		b.WriteByte('-')
		whole = w
	}
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(group)
		}
		b.WriteByte(whole[i])
	}
	b.WriteByte(point)
	b.WriteString(frac)
	return b.String()
}

func FuzzDate(f *testing.F) {
	for _, c := range dateCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, sp, ok := Date(s)
		got := requireSpan(t, s, sp, ok)
		if !ok {
			return
		}
		require.Equal(t, time.UTC, d.Location())
		require.Equal(t, d, d.Truncate(24*time.Hour), "not midnight")
		requireAlone(t, Date, got, d)
		requireReads(t, Date, d.Format("02.01.2006"), d)
		requireReads(t, Date, d.Format("2006-01-02"), d)
		requireReads(t, Date, d.Format("2. January 2006"), d)
	})
}

func FuzzMonth(f *testing.F) {
	for _, c := range monthCases {
		f.Add(c.in)
	}
	for _, c := range dateCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, sp, ok := Month(s)
		got := requireSpan(t, s, sp, ok)
		if !ok {
			return
		}
		require.Equal(t, time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC), d)
		requireAlone(t, Month, got, d)
		requireReads(t, Month, d.Format("01/2006"), d)
		requireReads(t, Month, d.Format("January 2006"), d)
		requireReads(t, Month, d.Format("2006-01"), d)
	})
}

// formatDecimal writes v with point as the decimal separator so that it reads back
// the same: three decimals get a fourth, lest they read as a group of thousands.
func formatDecimal(v float64, point string) string {
	whole, frac, ok := strings.Cut(strconv.FormatFloat(v, 'f', -1, 64), ".")
	if !ok {
		return whole
	}
	if len(frac) == 3 {
		frac += "0"
	}
	return whole + point + frac
}

func fuzzQuantity(f *testing.F, parse func(string) (float64, Span, bool), cases []quantityCase, units ...string) {
	for _, c := range cases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, sp, ok := parse(s)
		got := requireSpan(t, s, sp, ok)
		if !ok {
			return
		}
		requireAlone(t, parse, got, v)
		for _, unit := range units {
			requireReads(t, parse, formatDecimal(v, ".")+unit, v)
			requireReads(t, parse, formatDecimal(v, ",")+unit, v)
		}
	})
}

func FuzzArea(f *testing.F) { fuzzQuantity(f, Area, areaCases, " m²", "qm") }

func FuzzPercent(f *testing.F) { fuzzQuantity(f, Percent, percentCases, " %", " Prozent") }

func FuzzYears(f *testing.F) { fuzzQuantity(f, Years, yearsCases, " Jahre", "-year") }

// Long inputs of the shapes the parsers look at twice take linear time; a quadratic
// parser would not finish these in the test's time.
func TestLongInputs(t *testing.T) {
	t.Parallel()
	const n = 100 << 10
	for _, s := range []string{
		strings.Repeat("1", n),
		strings.Repeat("1.", n/2),
		strings.Repeat("1,", n/2),
		strings.Repeat("1 ", n/2),
		strings.Repeat("1\u00a0", n/3),
		strings.Repeat("- ", n/2),
		strings.Repeat("€ ", n/4),
		strings.Repeat("15.03.", n/6),
		strings.Repeat("März ", n/6),
		strings.Repeat("ä", n/2),
		strings.Repeat("a\u0308", n/3),
		strings.Repeat("\xff", n),
		strings.Repeat("\x00", n),
		strings.Repeat("1 Mio. ", n/7),
		strings.Repeat("10 v. ", n/6),
		strings.Repeat("sq. ", n/4),
	} {
		start := time.Now()
		Amount(s)
		Date(s)
		Month(s)
		Area(s)
		Percent(s)
		Years(s)
		require.Less(t, time.Since(start), 10*time.Second, "%.20q…", s)
	}
}
