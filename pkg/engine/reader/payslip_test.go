package reader

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

func payslipFacts(t *testing.T, pages ...string) map[string][]any {
	t.Helper()
	doc := document("salary_statement", pages...)
	fs := Facts(doc, []string{"salary_statement"})
	for _, f := range fs {
		require.True(t, doc.Verify(f.Citation), "%s cites %q", f.Key, f.Citation.Excerpt)
	}
	return factsByKey(fs)
}

func money(cents int64, cur string) parse.Money { return parse.Money{Cents: cents, Currency: cur} }

func day(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }

// A DATEV-style payslip: the personnel data in a header row with the values under it,
// the birth date before the entry date; "Nettobetrag" is the net pay and the
// "Auszahlungsbetrag" after the savings plan the payout.
func TestDatevHeaderRowAndPayout(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Nordlicht Maschinenbau GmbH · Hafenstraße 4 · 24103 Kiel
Frau
Petra Beispiel
Lindenweg 7
24105 Kiel
Abrechnung der Brutto/Netto-Bezüge                                   Oktober 2025
Pers.-Nr.   Geburtsdatum    Eintritt      StKl   Konf.   KK
00417       14.02.1988      01.09.2016    1      ev      TK
Lohnart  Bezeichnung                                                       Betrag
2000     Gehalt                                                          4.100,00
Gesamt-Brutto                                                            4.100,00
         Lohnsteuer                                                        612,41
         Sozialversicherung                                                840,52
Nettobetrag                                                              2.647,07
         VL-Sparen                                                         -40,00
Auszahlungsbetrag                                                        2.607,07
`)
	require.Equal(t, []any{day(2016, 9, 1)}, got["employment_start_date"], "the entry date, not the birth date")
	require.Equal(t, []any{day(1988, 2, 14)}, got["applicant_date_of_birth"])
	require.Equal(t, []any{money(264707, "EUR")}, got["net_monthly_income"])
	require.Equal(t, []any{money(260707, "EUR")}, got[FactPayout])
	require.Equal(t, []any{money(410000, "EUR")}, got["gross_monthly_income"])
	require.Equal(t, []any{"Nordlicht Maschinenbau GmbH"}, got["employer_name"])
	require.Equal(t, []any{day(2025, 10, 1)}, got[evidence.FactPayPeriod])
}

// A header row whose entry column is empty gives no employment start: the row's first
// date is the birth date.
func TestHeaderRowWithoutEntryDate(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Abrechnung der Brutto/Netto-Bezüge März 2025
Pers.-Nr.   Geburtsdatum    Eintritt      StKl
00417       14.02.1988                    1
Nettoverdienst                                      2.100,00 €
`)
	require.Empty(t, got["employment_start_date"])
	require.Equal(t, []any{money(210000, "EUR")}, got["net_monthly_income"])
}

// A SAP-style payslip with the month beside a cumulated column: never the cumulated
// figure.
func TestYearToDateColumnIsNotMonthly(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Entgeltnachweis
Abrechnungszeitraum 01.06.2025 - 30.06.2025
Bezeichnung                 aktueller Monat          kumuliert
Gesamtbrutto                      3.800,00           22.800,00
Nettoverdienst                    2.450,10           14.700,60
Auszahlung                        2.450,10           14.700,60
`)
	require.Equal(t, []any{money(380000, "EUR")}, got["gross_monthly_income"])
	require.Equal(t, []any{money(245010, "EUR")}, got["net_monthly_income"])
	require.Equal(t, []any{day(2025, 6, 1)}, got[evidence.FactPayPeriod])
}

// A Sage PAYE payslip: the net pay in the middle of a totals line, in pounds; the
// to-date gross is no monthly gross.
func TestUKNetPayMidLine(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Harbour Logistics Ltd                     PAYSLIP
Name: Sam Example                          Employee No: 0042
Period 7                                   Pay Date: 31/10/2025
Payments            Amount      Deductions          Amount
Basic Pay         2,900.00      PAYE Tax            340.20
                                National Insurance  150.80
Total Gross Pay TD   20,300.00   Tax paid TD        2,381.40
Total Payments £2,900.00    Total Deductions £491.00    Net Pay £2,409.00
`)
	require.Equal(t, []any{money(240900, "GBP")}, got["net_monthly_income"])
	require.Equal(t, []any{money(290000, "GBP")}, got["gross_monthly_income"])
	require.Equal(t, []any{day(2025, 10, 1)}, got[evidence.FactPayPeriod])
}

// An ADP bi-weekly stub states its frequency, which makes its figures monthly ones by
// 26 pays a year (rounded half up to the cent); its dates are month first.
func TestUSBiWeeklyStub(t *testing.T) {
	t.Parallel()
	stub := `ACME WIDGETS INC
Earnings Statement      Period Beginning: 09/15/2025   Period Ending: 09/28/2025
Pay Date: 10/03/2025    Pay Frequency: Bi-Weekly
JOHN Q SAMPLE
Earnings           rate    hours    this period    year to date
Regular                              2,400.00      45,600.00
Gross Pay                           $2,400.00     $45,600.00
Federal Income Tax                    -310.00       5,890.00
Net Pay                             $1,790.01
`
	got := payslipFacts(t, stub)
	require.Equal(t, []any{money(520000, "USD")}, got["gross_monthly_income"], "2,400.00 × 26 / 12, not the year to date")
	require.Equal(t, []any{money(387836, "USD")}, got["net_monthly_income"], "1,790.01 × 26 / 12 = 3,878.355")
	require.Equal(t, []any{day(2025, 9, 1)}, got[evidence.FactPayPeriod], "the month the period ends in, read month first")
	require.Equal(t, []any{money(179001, "USD")}, got[FactPayout], "what the bank statement shows credited each period")
	_, _, ok := monthlyFigure(money(179000, "USD"), ratio{26, 12}, true, false)
	require.False(t, ok, "not converted when conversion is off")
}

// A stub for two weeks that does not state its frequency gives no monthly figure.
func TestStubOfUnstatedFrequency(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `ACME WIDGETS INC
Period Beginning: 09/15/2025   Period Ending: 09/28/2025
Gross Pay                           $2,400.00
Net Pay                             $1,790.00
`)
	require.Empty(t, got["net_monthly_income"])
	require.Empty(t, got["gross_monthly_income"])
}

// Figures on a document that names no currency are no money: not assumed to be euros.
func TestNoCurrencyNoMoney(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Salary statement
Period: March 2025
Total gross        3,100.00
Net salary         2,200.00
`)
	require.Empty(t, got["net_monthly_income"])
}

// Where a payslip prints both, the net pay and the payout after a garnishment differ.
func TestNetPayAndPayoutAfterGarnishment(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Gehaltsabrechnung Mai 2025
Arbeitgeber: Beispiel Handel GmbH
Gesamtbrutto                 3.000,00 EUR
Netto                        2.050,00 EUR
Lohnpfändung Az. 81 M 2217/24  -300,00 EUR
Überweisung                  1.750,00 EUR
`)
	require.Equal(t, []any{money(205000, "EUR")}, got["net_monthly_income"])
	require.Equal(t, []any{money(175000, "EUR")}, got[FactPayout])
	require.Equal(t, []any{"Beispiel Handel GmbH"}, got["employer_name"])
}

// Any payslip text reads without a panic, and every fact cites its page.
func FuzzPayslip(f *testing.F) {
	f.Add("Pers.-Nr.   Geburtsdatum    Eintritt\n00417       14.02.1988      01.09.2016\nNettobetrag  2.647,07\nAuszahlungsbetrag 2.607,07")
	f.Add("Period Beginning: 09/15/2025 Period Ending: 09/28/2025\nPay Frequency: Bi-Weekly\nNet Pay $1,790.00")
	f.Fuzz(func(t *testing.T, s string) {
		doc := document("salary_statement", s)
		for _, fact := range Facts(doc, []string{"salary_statement"}) {
			require.True(t, doc.Verify(fact.Citation), "%s cites %q", fact.Key, fact.Citation.Excerpt)
		}
	})
}

func FuzzCells(f *testing.F) {
	f.Add("Pers.-Nr.   Geburtsdatum\tEintritt  ä  ")
	f.Add("\xc3")
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		for _, c := range cellsOf(s) {
			require.GreaterOrEqual(t, c.from, prev)
			require.Greater(t, c.to, c.from)
			require.True(t, strings.HasPrefix(s[c.start:], c.text))
			prev = c.to
		}
	})
}

// OCR puts a Sage payslip's "Period 7" and its pay date on lines of their own: the month
// paid is the pay date's.
func TestPeriodFromPayDate(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Harbour Logistics Ltd
PAYSLIP
Period 7
Tax Code: 1257L
Pay Date: 31/10/2025
Net Pay £2,409.00
`)
	require.Equal(t, []any{day(2025, 10, 1)}, got[evidence.FactPayPeriod])
}

// "Employee No:" labels the personnel number: what OCR put after it is no name.
func TestEmployeeNumberIsNoNameLabel(t *testing.T) {
	t.Parallel()
	got := payslipFacts(t, `Thames Valley Software plc
Name: Zeynep Meissner
Employee No: 36810
NI Number: QQ 67 04 41 C
Pay Date: 31/10/2025
Net Pay £5,351.84
`)
	require.Equal(t, []any{"Zeynep Meissner"}, got["applicant_full_name"])
}

// A net pay above the gross pay shows a misreading: both figures stay doubtful.
func TestNetAboveGrossIsDoubtful(t *testing.T) {
	t.Parallel()
	doc := &evidence.Document{Pages: []evidence.Page{{Number: 1, Text: "Gehaltsabrechnung Oktober 2026\nGesamtbrutto 32,45 EUR\nNettoverdienst 2.088,40 EUR"}}}
	facts := Facts(doc, []string{"salary_statement"})
	n := 0
	for _, f := range facts {
		if f.Key == "gross_monthly_income" || f.Key == "net_monthly_income" {
			n++
			require.Less(t, f.Confidence, 0.6, "%s %v", f.Key, f.Value)
		}
	}
	require.Equal(t, 2, n)
}
