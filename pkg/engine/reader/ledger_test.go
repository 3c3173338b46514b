package reader

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

func ledgersOf(t *testing.T, doc *evidence.Document) ([]evidence.Ledger, []evidence.Transaction, []evidence.Fact) {
	t.Helper()
	fs := Facts(doc, []string{"bank_statement"})
	var ls []evidence.Ledger
	var txs []evidence.Transaction
	for _, f := range fs {
		require.True(t, doc.Verify(f.Citation), "%s cites %q", f.Key, f.Citation.Excerpt)
		switch f.Key {
		case evidence.FactLedger:
			ls = append(ls, f.Value.(evidence.Ledger))
		case evidence.FactBankCredit:
			txs = append(txs, f.Value.(evidence.Transaction))
		}
	}
	return ls, txs, fs
}

// A Volksbank-style statement: unsigned amounts, the side given by the Soll/Haben
// column they stand in; a booking's text goes on over two lines.
func TestSollHabenColumnsReconcile(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Raiffeisenbank Musterstadt eG                    Kontoauszug 3/2025   Blatt 1/1
Kontoinhaber: Jana Beispiel                     IBAN DE89 3704 0044 0532 0130 00
Kontostand am 28.02.2025                                                1.520,40
Bu-Tag  Wert   Vorgang                                     Soll          Haben
03.03.  03.03. Miete März                                 850,00
               Hausverwaltung Nord GmbH
05.03.  05.03. Lohn/Gehalt                                              3.250,00
               Muster Logistik AG, Gehalt 03/2025
12.03.  12.03. Kartenzahlung REWE                          64,30
Kontostand am 31.03.2025                                                3.856,10
`)
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	l := ls[0]
	require.True(t, l.Reconciled, "%+v", l)
	require.Equal(t, "EUR", l.Currency)
	require.Equal(t, int64(91430), l.DebitsCents)
	require.Equal(t, int64(325000), l.CreditsCents)
	require.Len(t, txs, 1, "the rent and the card payment are debits")
	require.Equal(t, int64(325000), txs[0].AmountCents)
	require.Equal(t, time.Date(2025, 3, 5, 0, 0, 0, 0, time.UTC), txs[0].Date)
	require.Contains(t, txs[0].Text, "Gehalt 03/2025", "the booking text goes on under it")
	for _, f := range fs {
		if f.Key == evidence.FactBankCredit {
			require.GreaterOrEqual(t, f.Confidence, 0.9, "a reconciled statement's credits are sure")
		}
	}
	require.Equal(t, "3856.10 EUR", balanceOf(t, fs))
}

func balanceOf(t *testing.T, fs []evidence.Fact) string {
	t.Helper()
	for _, f := range fs {
		if f.Key == "account_balance" {
			return f.Value.(interface{ String() string }).String()
		}
	}
	return ""
}

// Two pages: "Übertrag" at the foot of the first and the head of the second is no
// booking and no closing balance; S/H markers give the sides.
func TestTwoPagesWithCarryReconcile(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Sparkasse Nordheide                Kontoauszug Nr. 4     Zeitraum 01.04.2025 bis 30.04.2025
Kontoinhaber Max Probe
alter Kontostand vom 31.03.2025                          2.000,00 H
01.04.2025  Dauerauftrag Miete                          900,00 S
02.04.2025  Gutschrift Gehalt April                   2.800,00 H
Übertrag auf Blatt 2                                   3.900,00 H
                                             Seite 1 von 2`,
		`Sparkasse Nordheide                Kontoauszug Nr. 4     Zeitraum 01.04.2025 bis 30.04.2025
Übertrag von Blatt 1                                   3.900,00 H
15.04.2025  Lastschrift Stadtwerke                      120,50 S
28.04.2025  Gutschrift Kindergeld                       250,00 H
neuer Kontostand vom 30.04.2025                        4.029,50 H
                                             Seite 2 von 2`)
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1, "one statement over two pages")
	require.True(t, ls[0].Reconciled, "%+v", ls[0])
	require.Equal(t, 4, ls[0].Bookings)
	require.Len(t, txs, 2)
	require.Equal(t, "4029.50 EUR", balanceOf(t, fs))
}

// The first page of two alone: what adds up to its carried balance proves nothing about
// the rest of the month, so it is not reconciled.
func TestCarriedBalanceAloneDoesNotReconcile(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Sparkasse Nordheide                Kontoauszug Nr. 4     Zeitraum 01.04.2025 bis 30.04.2025
Kontoinhaber Max Probe
alter Kontostand vom 31.03.2025                          2.000,00 H
01.04.2025  Dauerauftrag Miete                          900,00 S
02.04.2025  Gutschrift Gehalt April                   2.800,00 H
Übertrag auf Blatt 2                                   3.900,00 H
                                             Seite 1 von 2`)
	ls, _, _ := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.False(t, ls[0].Reconciled, "%+v", ls[0])
}

// A statement whose bookings do not add up to its closing balance (a booking was lost)
// is not reconciled, and its credits are less sure.
func TestStatementThatDoesNotAddUp(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Kontoauszug 05/2025
Anfangssaldo                                   1.000,00 EUR
02.05.2025  Gehalt Mai                          2.500,00
06.05.2025  Miete                                -800,00
Endsaldo                                       3.000,00 EUR
`)
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.False(t, ls[0].Reconciled)
	require.Len(t, txs, 1)
	for _, f := range fs {
		if f.Key == evidence.FactBankCredit {
			require.Less(t, f.Confidence, 0.7)
		}
	}
}

// A US statement: month-first dates, dollars, withdrawals and deposits in columns.
func TestUSStatementDatesAndColumns(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `First Example Bank                         Statement Period 03/01/2025 - 03/31/2025
Account holder: John Q Sample
Beginning balance on 03/01/2025                                             $1,200.00
Date        Description                         Withdrawals      Deposits      Balance
03/04/2025  PAYROLL ACME CORP                                    2,000.00     3,200.00
03/11/2025  CHECK 1024                            450.00                      2,750.00
03/20/2025  ONLINE TRANSFER                       300.00                      2,450.00
Ending balance on 03/31/2025                                                $2,450.00
`)
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.True(t, ls[0].Reconciled, "%+v", ls[0])
	require.Equal(t, "USD", ls[0].Currency)
	require.Len(t, txs, 1)
	require.Equal(t, time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC), txs[0].Date, "03/04 is March 4 on a US statement")
	require.Equal(t, "USD", txs[0].Currency)
	require.Equal(t, "2450.00 USD", balanceOf(t, fs))
}

// A UK statement over two pages: "Balance carried forward" at the foot of page one and
// "Balance brought forward" at the head of page two carry the balance; money out and in
// stand in their columns.
func TestUKStatementCarriedForward(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Example Bank plc                                  Your statement 1 May to 31 May 2025
Date     Description                  Money out £     Money in £     Balance £
01 May   Balance brought forward                                          500.00
02 May   Salary EXAMPLE LTD                              1,800.00       2,300.00
09 May   Card payment TESCO               42.15                         2,257.85
         Balance carried forward                                        2,257.85`,
		`Example Bank plc                                  Your statement 1 May to 31 May 2025
Date     Description                  Money out £     Money in £     Balance £
         Balance brought forward                                        2,257.85
20 May   Direct debit COUNCIL TAX        150.00                         2,107.85
31 May   Balance carried forward                                        2,107.85`)
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.True(t, ls[0].Reconciled, "%+v", ls[0])
	require.Equal(t, "GBP", ls[0].Currency)
	require.Len(t, txs, 1)
	require.Equal(t, int64(180000), txs[0].AmountCents)
	require.Equal(t, "2107.85 GBP", balanceOf(t, fs))
}

// Any statement text reads without a panic, and every fact cites its page.
func FuzzStatement(f *testing.F) {
	f.Add("Kontostand am 28.02.2025   1.520,40\nBu-Tag  Vorgang     Soll     Haben\n03.03.  Miete     850,00\n          Verwendungszweck\nKontostand am 31.03.2025  670,40")
	f.Add("Date  Description  Withdrawals  Deposits  Balance\n03/04/2025 PAYROLL   2,000.00  3,200.00\nÜbertrag 1,00 H")
	f.Fuzz(func(t *testing.T, s string) {
		doc := document("bank_statement", s)
		for _, fact := range Facts(doc, []string{"bank_statement"}) {
			require.True(t, doc.Verify(fact.Citation), "%s cites %q", fact.Key, fact.Citation.Excerpt)
		}
	})
}

// OCR keeps no columns: a Barclays statement read from a scan has each booking's amount
// and running balance side by side. The heading's balance column says the last figure is
// the balance, and the balance's change gives the side.
func TestOCRStatementWithBalanceColumn(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Barclays Bank UK PLC
Your statement 1 Oct 2025 - 31 Oct 2025
Date Description Money out (£) Money in (£) Balance (£)
1 Oct Balance brought forward 4,269.80
1 Oct DD STANDING ORDER RENT 1,641.38 2,628.42
16 Oct BGC TRANSFER FROM SAVINGS 55.62 2,684.04
26 Oct BGC SALARY THAMES VALLEY SOFTWA 5,847.64 8,531.68
31 Oct Balance carried forward 8,531.68
`)
	doc.Pages[0].OCR = true
	ls, txs, _ := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.True(t, ls[0].Reconciled, "%+v", ls[0])
	require.Len(t, txs, 2)
	require.Equal(t, int64(584764), txs[1].AmountCents)
}

// OCR reads a US statement's columns one after another: the bookings' lines, then each
// amount column. The balance column under its heading gives the bookings' running
// balances, and the last of them is the ending balance whose label lost its figure.
func TestOCRBalanceColumnOnItsOwn(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Lone Star Community Bank
Statement Period: 10/01/2025 through 10/31/2025
Ending Balance on 10/31/2025
Date Description
10/03/2025 STANDING ORDER RENT
10/03/2025 DIRECT DEP ACME PAYROLL
10/10/2025 CARD PAYMENT EDEKA
Withdrawals
849.80
82.07
Deposits
2,475.76
Balance
$2,606.72
$5,082.48
$5,000.41
`)
	doc.Pages[0].OCR = true
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.Len(t, txs, 1)
	require.Equal(t, int64(247576), txs[0].AmountCents)
	require.Equal(t, "5000.41 USD", balanceOf(t, fs))
}

// A booking's text that goes on at the head of the next page, under the repeated table
// heading, belongs to the booking.
func TestBookingTextOverPage(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `Kontoauszug 6/2025                                              Blatt 1
alter Kontostand                                                1.000,00 H
Buchung  Vorgang                                       Soll          Haben
02.06.   Gutschrift                                                2.000,00
         Muster Logistik AG`,
		`Kontoauszug 6/2025                                              Blatt 2
Buchung  Vorgang                                       Soll          Haben
         Gehalt 06/2025 Personalnr. 4711
30.06.   Miete                                        800,00
neuer Kontostand                                                2.200,00 H`)
	ls, txs, _ := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.True(t, ls[0].Reconciled, "%+v", ls[0])
	require.Len(t, txs, 1)
	require.Equal(t, "Gutschrift Muster Logistik AG Gehalt 06/2025 Personalnr. 4711", txs[0].Text)
}
