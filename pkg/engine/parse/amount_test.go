package parse

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type amountCase struct {
	in    string
	cents int64
	cur   string
	match string // s[span]; "" when nothing is found
}

func eur(in string, cents int64, match string) amountCase {
	return amountCase{in, cents, "EUR", match}
}

func noAmount(in string) amountCase { return amountCase{in: in} }

var amountCases = []amountCase{
	// German and English formats with a marker.
	eur("3.250,00 €", 325000, "3.250,00 €"),
	eur("3.250,00 EUR", 325000, "3.250,00 EUR"),
	eur("EUR 3.250,00", 325000, "EUR 3.250,00"),
	eur("€3,250.00", 325000, "€3,250.00"),
	eur("3,250.00 EUR", 325000, "3,250.00 EUR"),
	eur("3.250,00€", 325000, "3.250,00€"),
	eur("EUR3250", 325000, "EUR3250"),
	eur("3250 Euro", 325000, "3250 Euro"),
	eur("3250 euro", 325000, "3250 euro"),
	eur("3250 eur", 325000, "3250 eur"),
	eur("Gehalt: 3.250 € brutto", 325000, "3.250 €"),
	eur("3,250 EUR", 325000, "3,250 EUR"),
	eur("12,5 EUR", 1250, "12,5 EUR"),
	eur("€ 0,05", 5, "€ 0,05"),
	eur("1\u00a0234,56 €", 123456, "1\u00a0234,56 €"),
	eur("1\u202f234\u202f567,89 EUR", 123456789, "1\u202f234\u202f567,89 EUR"),
	{"USD 1,000.00", 100000, "USD", "USD 1,000.00"},
	{"$1,000.00", 100000, "USD", "$1,000.00"},
	{"US$ 1,000", 100000, "USD", "US$ 1,000"},
	{"1.000,00 USD", 100000, "USD", "1.000,00 USD"},
	{"CHF 1'234.50", 123450, "CHF", "CHF 1'234.50"},
	{"CHF 1’234.50", 123450, "CHF", "CHF 1’234.50"},
	{"GBP 99.99", 9999, "GBP", "GBP 99.99"},
	{"£1,000", 100000, "GBP", "£1,000"},
	{"1.000 PLN", 100000, "PLN", "1.000 PLN"},

	// Bare numbers.
	eur("1.234.567,89", 123456789, "1.234.567,89"),
	eur("12,345.67", 1234567, "12,345.67"),
	eur("3250", 325000, "3250"),
	eur("  3250\n", 325000, "3250"),
	eur("3250,5", 325050, "3250,5"),
	eur("3.250", 325000, "3.250"),
	eur("3,250", 325000, "3,250"),
	eur("0,5", 50, "0,5"),
	eur("Gesamtbrutto 3.250,00", 325000, "3.250,00"),
	eur("Steuerklasse 1 Kinderfreibetrag 0,5 Brutto 3.250,00", 325000, "3.250,00"),
	eur("Betrag (EUR): 1.234,56", 123456, "1.234,56"),

	// Signs.
	eur("- 1.234,56", -123456, "- 1.234,56"),
	eur("-1.234,56", -123456, "-1.234,56"),
	eur("1.234,56-", -123456, "1.234,56-"),
	eur("−1.234,56", -123456, "−1.234,56"),
	eur("–1.234,56 €", -123456, "–1.234,56 €"),
	eur("Miete – 500,00 €", 50000, "500,00 €"),
	eur("100–200 €", 20000, "200 €"),
	eur("+1.234,56", 123456, "+1.234,56"),
	eur("Saldo -1.234,56 EUR", -123456, "-1.234,56 EUR"),
	eur("Lastschrift 1.234,56- EUR", -123456, "1.234,56- EUR"),
	eur("EUR -1.234,56", -123456, "EUR -1.234,56"),
	eur("-€3.00", -300, "-€3.00"),
	eur("1.234,56 €-", -123456, "1.234,56 €-"),
	eur("Gutschrift 1.234,56 H", 123456, "1.234,56"),
	eur("Lastschrift 99,00 S", 9900, "99,00"),
	eur("- EUR 3,00", -300, "- EUR 3,00"),
	eur("€ -0,05", -5, "€ -0,05"),
	eur("1.000 - 2.000 €", 200000, "2.000 €"), // a range, not a negative amount
	eur("Closing balance 31/10/2025 -1,110.51", -111051, "-1,110.51"),
	eur("Pos. 4 -1.234,56 €", -123456, "-1.234,56 €"),
	eur("10-20 €", 2000, "20 €"),
	eur("Saldo-5,00 €", 500, "5,00 €"), // a hyphen, not a sign

	// Whole euros.
	eur("3.250,-", 325000, "3.250,-"),
	eur("3.250,–", 325000, "3.250,–"),
	eur("3.250,—", 325000, "3.250,—"),
	eur("3.250,--", 325000, "3.250,--"),
	eur("€ 3.250,-", 325000, "€ 3.250,-"),
	eur("Kaufpreis 250.000,- zzgl. Nebenkosten", 25000000, "250.000,-"),

	// Scales.
	eur("1,5 Mio. €", 150000000, "1,5 Mio. €"),
	eur("EUR 1,5 Mio.", 150000000, "EUR 1,5 Mio."),
	eur("2 Mrd. EUR", 200000000000, "2 Mrd. EUR"),
	eur("120 TEUR", 12000000, "120 TEUR"),
	eur("120 T€", 12000000, "120 T€"),
	eur("120 Tsd. EUR", 12000000, "120 Tsd. EUR"),
	eur("1.5 k€", 150000, "1.5 k€"),
	eur("1,234567 Mio. €", 123456700, "1,234567 Mio. €"),
	{"$2bn", 200000000000, "USD", "$2bn"},
	{"$150k", 15000000, "USD", "$150k"},

	// The marked number wins over earlier bare ones.
	eur("am 15.03.2026 wurden 1.234,56 EUR gebucht", 123456, "1.234,56 EUR"),
	eur("Kontostand 15.03.2026: 1.234,56 EUR", 123456, "1.234,56 EUR"),
	eur("Rate 2,50 Zins 80 % Betrag 100 EUR", 10000, "100 EUR"),
	eur("IBAN DE89370400440532013000 Betrag 100,00 EUR", 10000, "100,00 EUR"),
	eur("DE89 3704 0044 0532 0130 00 EUR 1.000,00", 100000, "EUR 1.000,00"),
	eur("Tel. 030 12345-678, Überweisung 99,00", 9900, "99,00"),
	eur("3 x 100,00 €", 10000, "100,00 €"),
	eur("500,00 € 1.234,56 €", 50000, "500,00 €"),
	{"EUR 500 USD 600", 50000, "EUR", "EUR 500"},
	{"€100 $200", 10000, "EUR", "€100"},

	// Largest and smallest.
	eur("92.233.720.368.547.758,07 EUR", math.MaxInt64, "92.233.720.368.547.758,07 EUR"),
	eur("-92.233.720.368.547.758,07 EUR", -math.MaxInt64, "-92.233.720.368.547.758,07 EUR"),

	// Not amounts.
	noAmount(""),
	noAmount("keine Zahl"),
	noAmount("IBAN DE89370400440532013000"),
	noAmount("IBAN DE89 3704 0044 0532 0130 00"),
	noAmount("DE89370400440532013000"),
	noAmount("Konto DE89 3704 0044 0532 0130 00 EUR"),
	noAmount("GB29\u00a0NWBK\u00a06016\u00a01331\u00a09268\u00a019 GBP"),
	noAmount("15.03.2026"),
	noAmount("am 15.03.2026"),
	noAmount("2026-03-15"),
	noAmount("15.03."),
	noAmount("vom 01.03. bis 31.03."),
	noAmount("80 %"),
	noAmount("80,50 %"),
	noAmount("Zins 3,25 Prozent"),
	noAmount("Wohnfläche 85,50 m²"),
	noAmount("Laufzeit 10,5 Jahre"),
	noAmount("12.30 Uhr"),
	noAmount("Tel. +49 30 1234567"),
	noAmount("Hausnummer 12 in 10115 Berlin"),
	noAmount("Version 1.5"),
	noAmount("Seite 4b"),
	noAmount("EUR 99999999999999999999,99"),
	noAmount("99.999.999.999.999.999.999 EUR"),
	noAmount("EUR " + strings.Repeat("9", 30)),
	noAmount("EUR " + strings.Repeat("1.000", 10)),
	noAmount("1,5 Billionen €"),
	noAmount("$1.5 billion"),
	noAmount("C$ 100,00"),
	noAmount("100,00 C$"),
	noAmount("EUR 3.250,000"),
	noAmount("EUR 15.03.2026"),
	noAmount("Mio. EUR 1,5"),
	noAmount("Umsatz 1,5 Mio."),
	noAmount(".50 €"),
	noAmount("€ 1.23.45"),
	noAmount("1 234,56 €"), // 1234.56, or 234.56 after a count of 1
	noAmount("Pos. 3 250,00 €"),
	noAmount("€ 12 345,67"),
	noAmount("3,25,-"),
	noAmount("-1.234,56-"),
	noAmount("\x00\xff\xfe"),
}

func TestAmount(t *testing.T) {
	t.Parallel()
	for _, c := range amountCases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			m, sp, ok := Amount(c.in)
			if c.match == "" {
				require.False(t, ok, "read %v from %q", m, c.in[sp.Start:sp.End])
				return
			}
			require.True(t, ok)
			require.Equal(t, Money{c.cents, c.cur}, m)
			require.Equal(t, c.match, c.in[sp.Start:sp.End])
		})
	}
}

// Text around an amount with a currency marker does not change how it reads.
func TestAmountInText(t *testing.T) {
	t.Parallel()
	for _, c := range amountCases {
		if c.match == "" || !strings.ContainsAny(c.in, "€$£") && !strings.Contains(c.in, "EUR") {
			continue
		}
		s := "Zeile: " + c.in + "\nnächste Zeile"
		m, sp, ok := Amount(s)
		require.True(t, ok, s)
		require.Equal(t, Money{c.cents, c.cur}, m, s)
		require.Equal(t, c.match, s[sp.Start:sp.End], s)
	}
}

func TestAmounts(t *testing.T) {
	t.Parallel()
	for s, want := range map[string][]string{
		"15.03. Gutschrift 1.234,56 Saldo 5.000,00 EUR, Zins 80 %, 2 x 3,50 $ 1.000 - 2.000": {
			"1234.56 EUR from 1.234,56", "5000.00 EUR from 5.000,00 EUR", "3.50 USD from 3,50 $",
		},
		// A marker after one amount is not the marker before the next.
		"500,00 € 1.234,56 €, 500 EUR 600 USD, €100 $200": {
			"500.00 EUR from 500,00 €", "1234.56 EUR from 1.234,56 €", "500.00 EUR from 500 EUR",
			"600.00 USD from 600 USD", "100.00 EUR from €100", "200.00 USD from $200",
		},
		"3250":                             {"3250.00 EUR from 3250"},
		"IBAN DE89 3704 0044 0532 0130 00": nil,
	} {
		ms, spans := Amounts(s)
		require.Len(t, spans, len(ms))
		var got []string
		for i, m := range ms {
			got = append(got, m.String()+" from "+s[spans[i].Start:spans[i].End])
		}
		require.Equal(t, want, got, s)
	}
}

func TestMoneyAmount(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{
		325000:        "3250.00",
		-5:            "-0.05",
		0:             "0.00",
		1:             "0.01",
		-100:          "-1.00",
		123456789:     "1234567.89",
		math.MaxInt64: "92233720368547758.07",
		math.MinInt64: "-92233720368547758.08",
	} {
		require.Equal(t, want, Money{Cents: cents, Currency: "EUR"}.Amount())
	}
	require.Equal(t, "-12.34 USD", Money{-1234, "USD"}.String())
}
