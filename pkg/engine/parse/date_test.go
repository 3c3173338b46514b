package parse

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type dateCase struct {
	in    string
	want  string // YYYY-MM-DD; "" when nothing is found
	match string // s[span]
}

func noDate(in string) dateCase { return dateCase{in: in} }

var dateCases = []dateCase{
	{"15.03.2026", "2026-03-15", "15.03.2026"},
	{"15.3.2026", "2026-03-15", "15.3.2026"},
	{"1.3.2026", "2026-03-01", "1.3.2026"},
	{"15.03.26", "2026-03-15", "15.03.26"},
	{"15.03.69", "2069-03-15", "15.03.69"},
	{"15.03.70", "1970-03-15", "15.03.70"},
	{"01.01.00", "2000-01-01", "01.01.00"},
	{"31.12.99", "1999-12-31", "31.12.99"},
	{"2026-03-15", "2026-03-15", "2026-03-15"},
	{"2026/03/15", "2026-03-15", "2026/03/15"},
	{"2026-03-15T10:00:00Z", "2026-03-15", "2026-03-15"},
	{"15/03/2026", "2026-03-15", "15/03/2026"},
	{"15-03-2026", "2026-03-15", "15-03-2026"},
	{"15. März 2026", "2026-03-15", "15. März 2026"},
	{"15 März 2026", "2026-03-15", "15 März 2026"},
	{"15.März 2026", "2026-03-15", "15.März 2026"},
	{"15.März.2026", "2026-03-15", "15.März.2026"},
	{"15. MÄRZ 2026", "2026-03-15", "15. MÄRZ 2026"},
	{"15. Ma\u0308rz 2026", "2026-03-15", "15. Ma\u0308rz 2026"},
	{"15. Maerz 2026", "2026-03-15", "15. Maerz 2026"},
	{"15. Marz 2026", "2026-03-15", "15. Marz 2026"},
	{"15. Mrz. 2026", "2026-03-15", "15. Mrz. 2026"},
	{"15. Mär 2026", "2026-03-15", "15. Mär 2026"},
	{"1. Jänner 2026", "2026-01-01", "1. Jänner 2026"},
	{"3. Jan. 2026", "2026-01-03", "3. Jan. 2026"},
	{"28. Feb 2026", "2026-02-28", "28. Feb 2026"},
	{"1. Mai 2026", "2026-05-01", "1. Mai 2026"},
	{"30. Juni 2026", "2026-06-30", "30. Juni 2026"},
	{"31. Juli 2026", "2026-07-31", "31. Juli 2026"},
	{"15. Sept. 2026", "2026-09-15", "15. Sept. 2026"},
	{"15. Okt 2026", "2026-10-15", "15. Okt 2026"},
	{"24. Dez. 2026", "2026-12-24", "24. Dez. 2026"},
	{"15 March 2026", "2026-03-15", "15 March 2026"},
	{"15 march 2026", "2026-03-15", "15 march 2026"},
	{"15 Mar 2026", "2026-03-15", "15 Mar 2026"},
	{"March 15, 2026", "2026-03-15", "March 15, 2026"},
	{"March 15 2026", "2026-03-15", "March 15 2026"},
	{"Mar. 15, 2026", "2026-03-15", "Mar. 15, 2026"},
	{"March 15th, 2026", "2026-03-15", "March 15th, 2026"},
	{"December 1st, 2026", "2026-12-01", "December 1st, 2026"},
	{"15-Mar-2026", "2026-03-15", "15-Mar-2026"},
	{"15-Mar-26", "2026-03-15", "15-Mar-26"},
	{"1st March 2026", "2026-03-01", "1st March 2026"},
	{"2nd May 2026", "2026-05-02", "2nd May 2026"},
	{"15th of March 2026", "2026-03-15", "15th of March 2026"},
	{"29.02.2028", "2028-02-29", "29.02.2028"},
	{"Berlin, den 15. März 2026", "2026-03-15", "15. März 2026"},
	{"Datum: 15.03.2026, Uhrzeit 10.30", "2026-03-15", "15.03.2026"},
	{"Zeitraum 01.03.2026 - 31.03.2026", "2026-03-01", "01.03.2026"},
	{"31.02.2026 oder 01.03.2026", "2026-03-01", "01.03.2026"},
	{"Betrag 1.234,56 EUR am 15.03.2026", "2026-03-15", "15.03.2026"},
	{"Dienstag, 3. Februar 2026", "2026-02-03", "3. Februar 2026"},

	noDate(""),
	noDate("31.02.2026"),
	noDate("29.02.2026"),
	noDate("31.04.2026"),
	noDate("00.03.2026"),
	noDate("15.13.2026"),
	noDate("32.01.2026"),
	noDate("2026-02-30"),
	noDate("31. Februar 2026"),
	noDate("March 32, 2026"),
	noDate("03/15/2026"),
	noDate("900115"),
	noDate("P<D<<MUSTERMANN<<ERIKA 6408125F2702283D"),
	noDate("20260315"),
	noDate("15.03."),
	noDate("03/2026"),
	noDate("März 2026"),
	noDate("15.03.202"),
	noDate("15.03.20260"),
	noDate("1.15.03.2026"),
	noDate("15.03.2026.1"),
	noDate("15März2026"),
	noDate("1.234.567"),
	noDate("1.2.3"),
	noDate("15.03.0999"),
	noDate("Mail 15 2026"),
	noDate("\xff15.03\xff2026"),
}

func TestDate(t *testing.T) {
	t.Parallel()
	for _, c := range dateCases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			d, sp, ok := Date(c.in)
			if c.want == "" {
				require.False(t, ok, "read %s from %q", FormatDate(d), c.in[sp.Start:sp.End])
				return
			}
			require.True(t, ok)
			require.Equal(t, c.want, FormatDate(d))
			require.Equal(t, time.UTC, d.Location())
			require.Equal(t, d, d.Truncate(24*time.Hour), "not midnight")
			require.Equal(t, c.match, c.in[sp.Start:sp.End])
		})
	}
}

var monthCases = []dateCase{
	{"März 2026", "2026-03-01", "März 2026"},
	{"Maerz 2026", "2026-03-01", "Maerz 2026"},
	{"Mrz. 2026", "2026-03-01", "Mrz. 2026"},
	{"Mrz.2026", "2026-03-01", "Mrz.2026"},
	{"MÄRZ 2026", "2026-03-01", "MÄRZ 2026"},
	{"March 2026", "2026-03-01", "March 2026"},
	{"March, 2026", "2026-03-01", "March, 2026"},
	{"Dezember 2025", "2025-12-01", "Dezember 2025"},
	{"03/2026", "2026-03-01", "03/2026"},
	{"3/2026", "2026-03-01", "3/2026"},
	{"03.2026", "2026-03-01", "03.2026"},
	{"03-2026", "2026-03-01", "03-2026"},
	{"Abrechnungsmonat 2026-03", "2026-03-01", "2026-03"},
	{"Abrechnung für März 2026", "2026-03-01", "März 2026"},
	{"Gehaltsabrechnung 03/2026 Personalnummer 12345", "2026-03-01", "03/2026"},
	{"15.03.2026", "2026-03-01", "15.03.2026"},
	{"15. März 2026", "2026-03-01", "15. März 2026"},
	{"2026-03-15", "2026-03-01", "2026-03-15"},
	{"March 15, 2026", "2026-03-01", "March 15, 2026"},
	{"erstellt 01.04.2026 für März 2026", "2026-04-01", "01.04.2026"},
	{"Abrechnung März 2026, erstellt 01.04.2026", "2026-03-01", "März 2026"},
	{"31.02.2026 Februar 2026", "2026-02-01", "Februar 2026"},

	noDate(""),
	noDate("März"),
	noDate("März 26"),
	noDate("03/26"),
	noDate("13/2026"),
	noDate("00/2026"),
	noDate("2026-13"),
	noDate("31.02.2026"),
	noDate("2026-02-30"),
	noDate("31. Februar 2026"),
	noDate("03/0999"),
	noDate("1.234.567"),
	noDate("Mail 2026"),
	noDate("März2026"),
}

func TestMonth(t *testing.T) {
	t.Parallel()
	for _, c := range monthCases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			d, sp, ok := Month(c.in)
			if c.want == "" {
				require.False(t, ok, "read %s from %q", FormatDate(d), c.in[sp.Start:sp.End])
				return
			}
			require.True(t, ok)
			require.Equal(t, c.want, FormatDate(d))
			require.Equal(t, time.UTC, d.Location())
			require.Equal(t, c.match, c.in[sp.Start:sp.End])
		})
	}
}

func TestFormatDate(t *testing.T) {
	t.Parallel()
	require.Equal(t, "2026-03-05", FormatDate(time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)))
	require.Equal(t, "0999-12-31", FormatDate(time.Date(999, 12, 31, 23, 59, 0, 0, time.UTC)))
}

func TestCompactDate(t *testing.T) {
	today := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in    string
		order DateOrder
		want  string // "" for none
	}{
		{"210679", DayFirst, "1979-06-21"}, // a DATEV birth date
		{"010111", DayFirst, "2011-01-01"}, // a DATEV entry date
		{"150356", DayFirst, "1956-03-15"}, // 2056 would be after today
		{"271126", DayFirst, "2026-11-27"}, // today itself is this century
		{"281126", DayFirst, "1926-11-28"}, // tomorrow is not
		{"06211979", MonthFirst, "1979-06-21"},
		{"21061979", DayFirst, "1979-06-21"},
		{"310279", DayFirst, ""}, // no 31 February
		{"211379", DayFirst, ""}, // no month 13
		{"2106791", DayFirst, ""},
		{"21.06.79", DayFirst, ""},
		{"00004", DayFirst, ""},
		{" 210679 ", DayFirst, "1979-06-21"},
	} {
		d, ok := CompactDate(c.in, c.order, today)
		if c.want == "" {
			require.False(t, ok, c.in)
			continue
		}
		require.True(t, ok, c.in)
		require.Equal(t, c.want, d.Format(time.DateOnly), c.in)
	}
}

// Months named in French, Italian, Spanish, Dutch and Portuguese.
func TestMonthNamesOfOtherLanguages(t *testing.T) {
	for in, want := range map[string]string{
		"Bulletin de paie octobre 2026": "2026-10-01", "CEDOLINO PAGA Ottobre 2026": "2026-10-01",
		"NÓMINA Octubre 2026": "2026-10-01", "Loonstrook mei 2026": "2026-05-01", "Recibo de vencimento março 2026": "2026-03-01",
		"Paiement le 30 décembre 2026": "2026-12-01", "août 2026": "2026-08-01",
	} {
		m, _, ok := Month(in)
		require.True(t, ok, in)
		require.Equal(t, want, m.Format(time.DateOnly), in)
	}
	d, _, ok := Date("le 15 février 2026")
	require.True(t, ok)
	require.Equal(t, "2026-02-15", d.Format(time.DateOnly))
	// Spanish and Portuguese put "de" between day, month and year.
	for in, want := range map[string]string{
		"del 1 de octubre al 31 de octubre de 2026": "2026-10-31", "Lisboa, 5 de março de 2026": "2026-03-05",
	} {
		d, _, ok := Date(in)
		require.True(t, ok, in)
		require.Equal(t, want, d.Format(time.DateOnly), in)
	}
	m, _, ok := Month("Nómina de octubre de 2026")
	require.True(t, ok)
	require.Equal(t, "2026-10-01", m.Format(time.DateOnly))
	_, _, ok = Date("Tasa de 3 de interés")
	require.False(t, ok, "no month")
}
