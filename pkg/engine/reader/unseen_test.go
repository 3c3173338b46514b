package reader

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// Layouts no reader was written for, as pdftotext lays them out: DATEV's own payslip
// (values under a header grid, amounts at the right edge under their headings, dates
// printed "210679", the sender line over the address window), a UK building society's
// statement (booking text over two lines, a balance brought forward) and a US bank's
// (one section per side, no signs).

const datevReal = `Abrechnung der Brutto/Netto-Bezüge   für März 2023                                   17.03.2023   Blatt 1
Personal-Nr.  Geburtsdatum  StKl  Faktor  Ki.Frbtr.  Konfession  Freibetrag jährl.  Freibetrag mtl.  DBA   VJ Url. üb.  Url. Anspr.
00004         210679        4                                                                             30
SV-Nummer      Krankenkasse   KK %   PGRS  BGRS  Um. SV-Tg.                                          Anw. Tage  Urlaub Tage
22220799D033   AOK Plus       16,1   101   1111  30
Eintritt   Austritt                                                                                  Anw. Std.  Urlaub Std.
010111
Steuer-ID   MFB
Eine & Keine GmbH*St.-Susi-Str. 4*88888 München
   Klaus Dieter
   Erich-Maier-Str. 7
   01523 Ortschaft
                 Brutto-Bezüge
Lohnart  Bezeichnung       Einheit  Menge  Faktor  Prozentsatz  St  SV  GB     Betrag
2000     Gehalt                                                 L   L   J    3.200,00
2100     Fahrgeld                                               P   F          365,00
                                                                         Gesamt-Brutto
                                                                              3.565,00
St   Steuer-Brutto   Lohnsteuer   Kirchensteuer   Solidaritätszuschlag     Steuerrechtliche Abzüge
L    3.200,00        441,75       0,00            0,00                              441,75
N                    79,25                                                           79,25
SV   KV-Brutto  RV-Brutto  AV-Brutto  PV-Brutto  KV-Beitrag  RV-Beitrag  AV-Beitrag  PV-Beitrag   SV-rechtliche Abzüge
L    3.200,00   3.200,00   3.200,00   3.200,00   155,21      181,73      0,00        0,00             336,94
Verdienstbescheinigung                          Netto-Bezüge/Netto-Abzüge                       Netto-Verdienst
Gesamt-Brutto       9.600,00    SV-Brutto   9.600,00                                                  2.707,06
Steuer-Brutto       9.600,00    KV-Beitrag    465,63
Lohnsteuer          1.325,25    RV-Beitrag    545,19
Bank        Konto                                  SV-AG-Anteil   Zus. AG-Kosten  Gesamtkosten      Auszahlungsbetrag
Sparkasse   DE97 1007 0124 0303 6XXX XX            690,12         0,00            4.255,12                2.707,06
Std = Stunden, T = Tage, Km = Kilometer, St = Stück, EUR = Euro, Tsd = Tausend Euro
- Dies ist eine Entgeltbescheinigung nach § 108 Abs. 3 Satz 1 der Gewerbeordnung -`

const ukStatement = `Northgate Building Society                                        Statement of Account
                                                                  Sheet number 14
Mrs Jane Holloway                                                 Account number 20374611
12 Mill Lane                                                      Sort code 40-11-62
Bristol BS1 4QA                                                   IBAN GB33 NGBS 4011 6220 3746 11
                                                                  Period 01 Oct 2026 to 31 Oct 2026
Date        Details                                   Paid out      Paid in       Balance
01 Oct      BALANCE BROUGHT FORWARD                                               1,204.18
02 Oct      DD THAMES WATER                              38.50                   1,165.68
            REF 99120384
05 Oct      CARD PAYMENT TESCO STORES                    64.12                   1,101.56
            BRISTOL GB
28 Oct      BACS ACME WIDGETS LTD                                     2,412.77    3,514.33
            SALARY OCT
30 Oct      SO RENT PAYMENT                             950.00                   2,564.33
31 Oct      BALANCE CARRIED FORWARD                                               2,564.33`

const usStatement = `FIRST PRAIRIE BANK                                          Account Statement
PO Box 1200, Omaha, NE 68102
JOHN Q SAMPLE                                               Statement Period: 09/01/2026 - 09/30/2026
44 ELM ST                                                   Account Number: XXXXXX4821
LINCOLN NE 68508
ACCOUNT SUMMARY
Beginning Balance                       $2,118.40
Deposits and Additions                  $3,305.12
Withdrawals and Subtractions            $1,744.95
Ending Balance                          $3,678.57
DEPOSITS AND ADDITIONS
DATE     DESCRIPTION                                               AMOUNT
09/15    PAYROLL DIRECT DEP HEARTLAND FOODS INC                   1,652.56
09/30    PAYROLL DIRECT DEP HEARTLAND FOODS INC                   1,652.56
Total Deposits and Additions                                     $3,305.12
WITHDRAWALS AND SUBTRACTIONS
DATE     DESCRIPTION                                               AMOUNT
09/03    CHECK 1043                                                 1,200.00
09/12    POS PURCHASE HY-VEE #1123 LINCOLN NE                         212.47
09/22    ONLINE TRANSFER TO SAVINGS                                   332.48
Total Withdrawals and Subtractions                               $1,744.95`

const finBroker = `Ihr persönlicher Finanzierungsvorschlag                              Vorgangsnummer 4471-22
Objekt: Eigentumswohnung, Lindenallee 14, 50968 Köln
Finanzierungsbedarf
   Kaufpreis                                           420.000,00 EUR
   Nebenkosten (Grunderwerbsteuer, Notar, Makler)       48.930,00 EUR
   Gesamtaufwand                                       468.930,00 EUR
   abzgl. Eigenkapital                                -118.930,00 EUR
   Darlehenssumme                                      350.000,00 EUR

Darlehensübersicht
Darlehensgeber       Produkt               Darlehensbetrag    Sollzins   Zinsbindung   Rate mtl.
Sparkasse KölnBonn   Annuitätendarlehen      250.000,00 €     3,45 %     15 Jahre      1.135,42 €
KfW                  Wohneigentum 124        100.000,00 €     3,10 %     10 Jahre        425,00 €
Summe                                        350.000,00 €                              1.560,42 €
Beleihungsauslauf 83,3 %`

const finEnglish = `FINANCING SUMMARY                                      Prepared 12 November 2026
Property        22 Harbour View, Southampton SO14 3TJ
Purchase price                               £385,000.00
Stamp duty and fees                           £12,450.00
Total cost                                   £397,450.00
Your deposit                                  £77,450.00
Mortgage amount                              £320,000.00
Loan to value                                      83.1%
Initial rate fixed for                           5 years`

const frPayslip = `SAS BOULANGERIE DUPONT                                        BULLETIN DE PAIE
12 rue des Lilas                                               Période du 01/09/2026 au 30/09/2026
69003 LYON                                                     Paiement le 30/09/2026 par virement
SIRET 812 345 678 00019   Code NAF 1071C
                                             Monsieur Julien MARTIN
                                             8 avenue Jean Jaurès
                                             69007 LYON
Matricule 0042     Emploi Boulanger     Date d'entrée 03/04/2018     N° SS 1 85 04 69 123 456 78
Rubrique                              Base        Taux       Montant salarial    Montant patronal
Salaire de base                   151,67      16,4870          2 500,57
Heures supplémentaires 25%          8,00      20,6088            164,87
SALAIRE BRUT                                                     2 665,44
Santé                             2 665,44                        35,12               98,33
Retraite complémentaire           2 665,44     4,01 %            106,88              160,19
Assurance chômage                 2 665,44                                          108,35
CSG déductible                    2 619,25     6,80 %            178,11
CSG/CRDS non déductible           2 619,25     2,90 %             75,96
TOTAL DES COTISATIONS                                            396,07              366,87
NET À PAYER AVANT IMPÔT SUR LE REVENU                          2 269,37
Impôt sur le revenu prélevé à la source    Taux 4,10 %             93,04
NET PAYÉ EN EUROS                                              2 176,33`

const summaryRowSlip = `ACME Components Inc.                                     EARNINGS STATEMENT
4100 Industrial Pkwy, Dayton, OH 45414
Employee: Maria L. Gomez                   Pay Period: 10/01/2026 - 10/31/2026     Pay Date: 10/31/2026
Pay Frequency: Monthly
EARNINGS          HOURS     RATE        CURRENT          YTD
Regular          168.00    28.50       4,788.00    47,880.00
DEDUCTIONS                              CURRENT          YTD
Federal Income Tax                        512.40     5,124.00
Social Security                           296.86     2,968.60
Medicare                                   69.43       694.30
Ohio State Tax                            143.64     1,436.40
401(k)                                    239.40     2,394.00
          GROSS PAY        TOTAL DEDUCTIONS        NET PAY
CURRENT   4,788.00         1,261.73                3,526.27
YTD       47,880.00        12,617.30               35,262.70`

const descFirstStatement = `Kontoauszug Nr. 10/2026                                   Musterbank AG
Kontoinhaber: Lea Sommer                                  IBAN DE02 1203 0000 0000 2020 51
Zeitraum 01.10.2026 - 31.10.2026
Alter Kontostand am 30.09.2026                                          1.842,17 EUR
Beschreibung                                  Buchungstag   Wertstellung        Betrag EUR
REWE Markt GmbH Kartenzahlung                 02.10.2026    02.10.2026           -64,20
Miete Oktober Hausverwaltung Klein            01.10.2026    01.10.2026          -890,00
Gehalt 10/2026 Nordlicht Logistik AG          30.10.2026    30.10.2026         2.845,31
Stadtwerke Abschlag                           15.10.2026    15.10.2026           -72,00
Neuer Kontostand am 31.10.2026                                          3.661,28 EUR`

const dayGroupedStatement = `Account statement October 2026                      Brightside Bank
Account holder: Tom Becker
IBAN DE44 5001 0517 5407 3249 31
Opening balance                                                    EUR 512.40
Thursday, 1 October 2026
   Spotify AB                     Direct debit                     -EUR 10.99
   Lidl Dienstleistung            Card payment                     -EUR 38.75
Friday, 30 October 2026
   Nordwind Energie GmbH          Incoming transfer              +EUR 2,310.00
   Salary October
Saturday, 31 October 2026
   Hausverwaltung Kern            Standing order                   -EUR 750.00
Closing balance                                                  EUR 2,022.66`

const runningOnly = `Girokonto Kontoauszug 10/2026                               Volksbank Mittelhessen eG
Frau Erika Roth
Lindenweg 4
35390 Gießen
IBAN DE12 5139 0000 0012 3456 78
Datum       Vorgang                                        Betrag          Saldo
            Saldovortrag                                                   2.140,55
01.10.      Lastschrift Allianz Versicherung              -88,40          2.052,15
15.10.      Gutschrift Lohn/Gehalt Roth Elektro GmbH     2.210,00         4.262,15
20.10.      Kartenzahlung EDEKA                            -54,31          4.207,84`

const frStatement = `RELEVÉ DE COMPTE                                   Banque Populaire Rives de Paris
M. Paul DURAND                                     Période du 01/10/2026 au 31/10/2026
14 rue de la Paix                                  IBAN FR76 1020 7000 0104 0104 1234 567
75002 PARIS
Date        Libellé                                     Débit          Crédit
            SOLDE PRÉCÉDENT AU 30/09/2026                               1 250,00
03/10       PRLV SEPA EDF                               84,20
28/10       VIR SEPA SALAIRE SARL DUPONT BTP                           2 430,15
30/10       CB CARREFOUR 29/10                          112,35
            NOUVEAU SOLDE CRÉDITEUR AU 31/10/2026                      3 483,60`

const footerSlip = `                                   Entgeltabrechnung Oktober 2026
Herrn
Jonas Weber
Ringstraße 8
90402 Nürnberg
Personalnummer 4711          Steuerklasse 1        Eintritt 01.03.2020
Bezüge                                             Betrag
Gehalt                                           3.900,00 €
Gesamtbrutto                                     3.900,00 €
Lohnsteuer                                         512,41 €
Sozialversicherung                                 798,33 €
Nettoentgelt                                     2.589,26 €

Frankenwerk Maschinenbau GmbH · Sitz Nürnberg · Amtsgericht Nürnberg HRB 28814 · Geschäftsführer: Dr. K. Raab`

const summaryBox = `Monzo-like Bank Ltd                                   Statement 1 October - 31 October 2026
Ms Priya Natarajan
7 Kestrel Close
Leeds LS6 2QT
Account summary
Opening balance        Money in        Money out        Closing balance
£1,020.45              £3,410.00       £2,187.36        £2,243.09
Date          Description                                 Amount        Balance
03/10/2026    Tesco Stores 2231                           -45.20        975.25
12/10/2026    Octopus Energy                             -142.16        833.09
28/10/2026    ACME LOGISTICS LTD SALARY                  3,410.00      4,243.09
30/10/2026    Rent - Lettings Direct                   -2,000.00      2,243.09`

// readLaidOut reads a page laid out as its text stands (see withWords) as a document of
// type typ, every citation checked.
func readLaidOut(t *testing.T, typ, text string) []evidence.Fact {
	t.Helper()
	doc := withWords(document(typ, text))
	fs := Facts(doc, []string{typ})
	requireCited(t, doc, fs)
	return fs
}

// requireFacts: each key's first fact has the value.
func requireFacts(t *testing.T, fs []evidence.Fact, want map[string]any) {
	t.Helper()
	for k, v := range want {
		require.Equal(t, v, factOf(t, fs, k).Value, k)
	}
}

func factOf(t *testing.T, fs []evidence.Fact, key string) evidence.Fact {
	t.Helper()
	for _, f := range fs {
		if f.Key == key {
			return f
		}
	}
	require.Failf(t, "no fact", "%s", key)
	return evidence.Fact{}
}

// DATEV's payslip: every figure under its heading, the sums of its tax and social
// security rows adding up to gross less net, which makes the pair sure.
func TestUnseenLayoutDATEV(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "salary_statement", datevReal)
	want := map[string]any{
		"gross_monthly_income":    money(356500, "EUR"),
		"net_monthly_income":      money(270706, "EUR"),
		FactPayout:                money(270706, "EUR"),
		"applicant_full_name":     "Klaus Dieter",
		"employer_name":           "Eine & Keine GmbH",
		"applicant_date_of_birth": day(1979, 6, 21),
		"employment_start_date":   day(2011, 1, 1),
	}
	requireFacts(t, fs, want)
	// The sums hold: gross 3.565,00 less 441,75 + 79,25 + 336,94 is the net.
	require.GreaterOrEqual(t, factOf(t, fs, "gross_monthly_income").Confidence, 0.95)
	require.GreaterOrEqual(t, factOf(t, fs, "net_monthly_income").Confidence, 0.95)
}

// A net pay that the printed deductions do not explain is less sure than one they do.
func TestPayslipSumsThatFailLowerConfidence(t *testing.T) {
	t.Parallel()
	const slip = `Gehaltsabrechnung Mai 2026
Gesamt-Brutto                  4.000,00 EUR
Lohnsteuer                       600,00 EUR
Sozialversicherung               800,00 EUR
Netto-Verdienst                %s EUR`
	read := func(net string) evidence.Fact {
		fs := Facts(withWords(document("salary_statement", fmt.Sprintf(slip, net))), []string{"salary_statement"})
		return factOf(t, fs, "net_monthly_income")
	}
	holds, fails := read("2.600,00"), read("2.900,00")
	require.Equal(t, money(260000, "EUR"), holds.Value)
	require.Equal(t, money(290000, "EUR"), fails.Value)
	require.GreaterOrEqual(t, holds.Confidence, 0.95)
	require.Less(t, fails.Confidence, 0.9)
}

// A US statement lists deposits and withdrawals in sections of their own, unsigned: the
// section's heading sides them, and the ledger adds up.
func TestUnseenLayoutUSStatementSections(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "bank_statement", usStatement)
	require.Equal(t, "John Q Sample", factOf(t, fs, "applicant_full_name").Value)
	var credits []int64
	for _, f := range fs {
		if f.Key == evidence.FactBankCredit {
			credits = append(credits, f.Value.(evidence.Transaction).AmountCents)
			require.GreaterOrEqual(t, f.Confidence, 0.9)
		}
	}
	require.Equal(t, []int64{165256, 165256}, credits)
	require.True(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled)
	require.Equal(t, money(367857, "USD"), factOf(t, fs, "account_balance").Value)
}

// A broker's plan lists each loan under "Darlehensbetrag" and their sum under
// "Darlehenssumme", the equity as subtracted: the loan and equity that add up to the
// total cost are the plan's, and the sum makes them sure.
func TestUnseenLayoutFinancingSums(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text         string
		loan, equity int64
		cur          string
	}{
		{finBroker, 35000000, 11893000, "EUR"},
		{finEnglish, 32000000, 7745000, "GBP"},
	} {
		doc := withWords(document("other", c.text))
		fs := Facts(doc, []string{"other"})
		requireCited(t, doc, fs)
		loan, equity := factOf(t, fs, "loan_amount"), factOf(t, fs, "equity_amount")
		require.Equal(t, money(c.loan, c.cur), loan.Value)
		require.Equal(t, money(c.equity, c.cur), equity.Value)
		require.GreaterOrEqual(t, loan.Confidence, 0.9)
	}
}

// Loan and equity that do not add up to the printed total cost are given, less surely.
func TestFinancingSumsThatFailLowerConfidence(t *testing.T) {
	t.Parallel()
	const plan = `Finanzierungsübersicht
Gesamtkosten        400.000,00 EUR
Eigenkapital         80.000,00 EUR
Darlehensbetrag     300.000,00 EUR
Beleihungsauslauf 75 %`
	fs := Facts(withWords(document("other", plan)), []string{"other"})
	loan := factOf(t, fs, "loan_amount")
	require.Equal(t, money(30000000, "EUR"), loan.Value)
	require.Less(t, loan.Confidence, 0.8)
}

// An amount with no currency marker on a document that names no currency is no money.
func TestFinancingNoCurrencyAssumed(t *testing.T) {
	t.Parallel()
	const plan = `Financing proposal
Loan amount        300,000.00
Loan to value 75 %`
	fs := Facts(withWords(document("other", plan)), []string{"other"})
	for _, f := range fs {
		require.NotEqual(t, "loan_amount", f.Key, "%v", f.Value)
	}
}

// A French payslip groups thousands by ordinary spaces ("2 665,44"), puts the legal
// form first and the salutation on the name's line; its contributions add up to gross
// less net.
func TestUnseenLayoutFrenchPayslip(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "salary_statement", frPayslip)
	want := map[string]any{
		"gross_monthly_income":  money(266544, "EUR"),
		"net_monthly_income":    money(226937, "EUR"),
		FactPayout:              money(217633, "EUR"),
		"applicant_full_name":   "Julien Martin",
		"employer_name":         "SAS BOULANGERIE DUPONT",
		"employment_start_date": day(2018, 4, 3),
	}
	requireFacts(t, fs, want)
	require.GreaterOrEqual(t, factOf(t, fs, "net_monthly_income").Confidence, 0.95)
}

// A US statement's summary is a header row over its current and year-to-date rows.
func TestUnseenLayoutSummaryRow(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "salary_statement", summaryRowSlip)
	require.Equal(t, money(478800, "USD"), factOf(t, fs, "gross_monthly_income").Value)
	require.Equal(t, money(352627, "USD"), factOf(t, fs, "net_monthly_income").Value)
	require.Equal(t, "Maria L. Gomez", factOf(t, fs, "applicant_full_name").Value)
	require.Equal(t, "ACME Components Inc.", factOf(t, fs, "employer_name").Value)
}

// Statements that do not start a booking line with its date: a description-first table
// (the dates between text and amount) and a statement that groups its bookings under a
// line naming the day. Their bookings are read, the salary among them, and the ledgers
// add up.
func TestUnseenLayoutBookingDates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text   string
		credit int64
		day    int
		words  string
	}{
		{descFirstStatement, 284531, 30, "Gehalt 10/2026 Nordlicht Logistik AG"},
		{dayGroupedStatement, 231000, 30, "Salary October"},
	} {
		fs := readLaidOut(t, "bank_statement", c.text)
		require.True(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled)
		credit := factOf(t, fs, evidence.FactBankCredit)
		tx := credit.Value.(evidence.Transaction)
		require.Equal(t, c.credit, tx.AmountCents)
		require.Equal(t, day(2026, 10, c.day), tx.Date)
		require.Contains(t, tx.Text, c.words)
		require.NotContains(t, tx.Text, "30.10.2026", "the dates are no booking text")
		require.GreaterOrEqual(t, credit.Confidence, 0.9)
	}
}

// A custom field is read by its display name from the pairs a page holds: under its
// heading in a header row, or after its label on the line, in the field's format.
func TestLabelledValue(t *testing.T) {
	t.Parallel()
	doc := withWords(document("salary_statement", datevReal+"\nUrlaubsanspruch:   30 Tage\nBetriebsrente:   125,00 EUR\nPersonalbereich: Logistik Nord"))
	docs := []*evidence.Document{doc}
	for _, c := range []struct {
		label, format string
		want          any
	}{
		{"Krankenkasse", "", "AOK Plus"},
		{"SV-Nummer", "", "22220799D033"},
		{"Betriebsrente", "currency", money(12500, "EUR")},
		{"Personalbereich", "", "Logistik Nord"},
		{"Geburtsdatum", "date", day(1979, 6, 21)},
	} {
		f, ok := LabelledValue(docs, c.label, c.format)
		require.True(t, ok, c.label)
		require.Equal(t, c.want, f.Value, c.label)
		require.True(t, doc.Verify(f.Citation), c.label)
		require.Greater(t, f.Confidence, 0.5)
	}
	// No label of that name, or a value not in the format: nothing.
	for _, c := range [][2]string{{"Kinderfreibetrag gesamt", ""}, {"Personalbereich", "currency"}, {"Krankheit", ""}} {
		_, ok := LabelledValue(docs, c[0], c[1])
		require.False(t, ok, c[0])
	}
}

// A statement that prints no closing balance: the running balance after the last
// booking is the account's, each booking proven by its balance's change, yet the ledger
// is not reconciled (bookings after it may stand on a page not uploaded).
func TestUnseenLayoutRunningBalanceOnly(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "bank_statement", runningOnly)
	balance := factOf(t, fs, "account_balance")
	require.Equal(t, money(420784, "EUR"), balance.Value)
	require.Less(t, balance.Confidence, 0.9)
	require.False(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled)
	credit := factOf(t, fs, evidence.FactBankCredit)
	require.Equal(t, int64(221000), credit.Value.(evidence.Transaction).AmountCents)
	require.GreaterOrEqual(t, credit.Confidence, 0.9)
}

// Short payslips in six countries' words: the month named in the country's language,
// gross and net after their labels adding up with the deductions between them, the
// employer's name in a cell of the title's line with its legal form before or after.
func TestUnseenPayslipLanguages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text          string
		gross, net    int64
		cur, employer string
	}{
		{`Lohnabrechnung November 2026                         Bäckerei Krume GmbH
Summe Bezüge                          4.120,00 €
Summe gesetzliche Abzüge               -1.233,45 €
Nettoverdienst                        2.886,55 €
Auszahlung                            2.886,55 €`,
			412000, 288655, "EUR", "Bäckerei Krume GmbH"},
		{`PAYSLIP  October 2026        Employer: Harbour Cafe Ltd
Total Pay                              £2,450.00
Total Deductions                         £512.60
Net Pay                                £1,937.40`,
			245000, 193740, "GBP", "Harbour Cafe Ltd"},
		{`Lohnabrechnung Oktober 2026              Muster Treuhand AG, Zürich
Bruttolohn                      CHF 7'500.00
Total Abzüge                    CHF 1'379.65
Nettolohn                       CHF 6'120.35`,
			750000, 612035, "CHF", "Muster Treuhand AG"},
		{`CEDOLINO PAGA  Ottobre 2026            ROSSI S.R.L.
TOTALE COMPETENZE                 2.450,00
TOTALE TRATTENUTE                   670,00
NETTO DEL MESE                    1.780,00 EUR`,
			245000, 178000, "EUR", "ROSSI S.R.L."},
		{`NÓMINA  Octubre 2026          TALLERES GARCÍA S.L.
TOTAL DEVENGADO                  2.100,00
TOTAL A DEDUCIR                    395,40
LÍQUIDO TOTAL A PERCIBIR         1.704,60 €`,
			210000, 170460, "EUR", "TALLERES GARCÍA S.L."},
		{`LOONSTROOK oktober 2026         Bakkerij Jansen B.V.
Bruto loon                      € 3.200,00
Inhoudingen                     €   845,20
Netto loon                      € 2.354,80`,
			320000, 235480, "EUR", "Bakkerij Jansen B.V."},
	} {
		fs := readLaidOut(t, "salary_statement", c.text)
		gross, net := factOf(t, fs, "gross_monthly_income"), factOf(t, fs, "net_monthly_income")
		require.Equal(t, money(c.gross, c.cur), gross.Value, c.employer)
		require.Equal(t, money(c.net, c.cur), net.Value, c.employer)
		require.GreaterOrEqual(t, net.Confidence, 0.95, c.employer)
		require.Equal(t, c.employer, factOf(t, fs, "employer_name").Value)
	}
}

// A payslip that names its employer only in its legal footer.
func TestUnseenEmployerInFooter(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "salary_statement", footerSlip)
	employer := factOf(t, fs, "employer_name")
	require.Equal(t, "Frankenwerk Maschinenbau GmbH", employer.Value)
	require.Less(t, employer.Confidence, 0.7, "read from no label")
}

// A pay stub as OCR reads it: the labels in one block, the figures in another, and a
// sentence that quotes an amount under "Net Pay". The sentence is no value.
func TestPayslipSentenceIsNoValue(t *testing.T) {
	t.Parallel()
	const stub = `Earnings Statement
Pay Date: 10/30/2026
Gross Pay
Net Pay
Your federal taxable wages this period are $3,115.38
this period
$3,115.38
$2,347.77`
	fs := Facts(document("salary_statement", stub), []string{"salary_statement"})
	for _, f := range fs {
		if f.Key == "net_monthly_income" || f.Key == FactPayout {
			require.NotEqual(t, money(311538, "USD"), f.Value, f.Key)
		}
	}
}

// A statement as OCR reads it: month names garbled in their last letter ("Ocı", "Oc!"),
// the amount column a block of its own after the texts. The first two letters name the
// month; the ledger adds up.
func TestOCRGarbledBookingMonths(t *testing.T) {
	t.Parallel()
	const page = `Bank statement
Name: Schröder, Zeynep
Period: 1 October 2026 - 31 October 2026
Date Description
Opening balance 30/09/2026
02 Ocı Standing order rent Hausverwaltung Weiß GmbH
15 Ocl Transfer from savings account
20 Oc! Card payment dm-drogerie markt
25 Oc Salary KLINIKUM WUERZBURG SUED
Closing balance 31/10/2026
Amount EUR
4,282.50
-1,481.68
1,198.88
-37.18
2,536.67
6,499.19`
	doc := document("bank_statement", page)
	doc.Pages[0].OCR = true
	fs := Facts(doc, []string{"bank_statement"})
	require.True(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled)
	require.Equal(t, money(649919, "EUR"), factOf(t, fs, "account_balance").Value)
	var days []int
	for _, f := range fs {
		if f.Key == evidence.FactBankCredit {
			days = append(days, f.Value.(evidence.Transaction).Date.Day())
		}
	}
	require.Equal(t, []int{15, 25}, days)
}

// A specimen's IBAN whose check digits fail is given as printed after its label, never
// surely; an unlabelled or ill-sized one not at all.
func TestPrintedIBAN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"The Royal Bank of Scotland CHECKING ACCOUNT IBAN: GB11RBOS 1610 0011 1111 11": "GB11RBOS16100011111111",
		"IBAN DE12 3456 7890 1234 5678 90":                                             "DE12345678901234567890",
		"GB11RBOS 1610 0011 1111 11":                                                   "",
		"IBAN: DE12 3456 7890 1234":                                                    "",
	} {
		got, ok := printedIBAN(in)
		require.Equal(t, want != "", ok, in)
		require.Equal(t, want, got, in)
	}
	fs := readLaidOut(t, "bank_statement", "Kontoauszug\nIBAN DE12 3456 7890 1234 5678 90")
	iban := factOf(t, fs, "iban")
	require.Equal(t, "DE12345678901234567890", iban.Value)
	require.Less(t, iban.Confidence, 0.6)
}

// A statement summary printed as a header row over its figures gives the opening and
// closing balances; the ledger adds up.
func TestUnseenStatementSummaryRow(t *testing.T) {
	t.Parallel()
	fs := readLaidOut(t, "bank_statement", summaryBox)
	require.Equal(t, money(224309, "GBP"), factOf(t, fs, "account_balance").Value)
	l := factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger)
	require.True(t, l.Reconciled)
	require.Equal(t, int64(102045), l.OpeningCents)
	require.GreaterOrEqual(t, factOf(t, fs, evidence.FactBankCredit).Confidence, 0.9)
}

// A self-disclosure names the loan applied for in other words than ours, and lists a
// loan the applicant already has before it: that is no loan amount.
func TestSelfDisclosureLoanWords(t *testing.T) {
	t.Parallel()
	const form = `Selbstauskunft
Name, Vorname:            Weber, Jonas
Bestehende Darlehen:      12.000,00 €
Finanzierungsbetrag:      250.000,00 €
Eigenmittel:              60.000,00 €`
	fs := readLaidOut(t, "self_disclosure", form)
	require.Equal(t, money(25000000, "EUR"), factOf(t, fs, "loan_amount").Value)
	require.Equal(t, money(6000000, "EUR"), factOf(t, fs, "equity_amount").Value)
}

// A statement as OCR reads it column by column: the statement's own date, the booking
// and value dates of each row on lines of their own, the opening balance apart from the
// amounts, the closing balance after them. The booking dates are the longest run, every
// second a value date; the balances and amounts, in order, are one per anchor.
func TestOCRStatementColumns(t *testing.T) {
	t.Parallel()
	const page = `ING-DiBa AG
Torben Meißner
Gartenweg 55
20095 Hamburg
Girokonto Nummer 1312469156
Kontoauszug Oktober 2026
Datum
31.10.2026
Auszugsnummer 10
IBAN
DE17 5001 0517 1312 4691 56
Eingeräumte Kontt.M-J8 kung
Alter Saldo
Buchung
Valuta
02.10.2026
02.10.2026
10.10.2026
10.10.2026
11.10.2026
11.10.2026
21.10.2026
21.10.2026
22.10.2026
22.10.2026
26.10.2026
26.10.2026
3.065,92 Euro
Buchung / Verwendungszweck
Dauerauftrag Miete Vonovia SE
Oktober 2026
Kartenzahlung REWE Markt GmbH
Referenz 832894809419
Kartenzahlung EDEKA Center
Referenz 282908295425
Lastschrift Stadtwerke Strom und Gas
Abschlag 7231890
Lastschrift Stadtwerke Strom und Gas
Abschlag 1123091
Gutschrift Lohn/Gehalt ELEKTRO KOEHLER EK
LOHN/GEHALT 10/2026 PERS.NR. 19357
Neuer Saldo
Kunden-Information: Bitte beachten Sie die Hinweise zur Einlagensicherung.
Betrag (EUR)
-986,57
-19,03
-92,52
-155,36
-167,66
+2.912,16
4.556,94 Euro`
	doc := document("bank_statement", page)
	doc.Pages[0].OCR = true
	fs := Facts(doc, []string{"bank_statement"})
	l := factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger)
	require.True(t, l.Reconciled)
	require.Equal(t, 6, l.Bookings)
	require.Equal(t, money(455694, "EUR"), factOf(t, fs, "account_balance").Value)
	credit := factOf(t, fs, evidence.FactBankCredit).Value.(evidence.Transaction)
	require.Equal(t, int64(291216), credit.AmountCents)
	require.Equal(t, day(2026, 10, 26), credit.Date)
}

// Statements with a holder, a closing balance and a salary credit: a UK building
// society's (booking text over two lines; the holder is the address block's name, not
// the society's over "Sheet number") and a French relevé (amounts grouped by spaces,
// debit and credit columns, "Solde précédent", "Nouveau solde créditeur").
func TestUnseenStatements(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, holder string
		balance      parse.Money
		credit       int64
		words        string
	}{
		{ukStatement, "Jane Holloway", money(256433, "GBP"), 241277, "SALARY OCT"},
		{frStatement, "Paul Durand", money(348360, "EUR"), 243015, "SALAIRE"},
	} {
		fs := readLaidOut(t, "bank_statement", c.text)
		require.Equal(t, c.holder, factOf(t, fs, "applicant_full_name").Value)
		require.Equal(t, c.balance, factOf(t, fs, "account_balance").Value)
		require.True(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled, c.holder)
		credit := factOf(t, fs, evidence.FactBankCredit)
		tx := credit.Value.(evidence.Transaction)
		require.Equal(t, c.credit, tx.AmountCents)
		require.Contains(t, tx.Text, c.words)
		require.GreaterOrEqual(t, credit.Confidence, 0.9)
	}
}

// A statement whose debit and credit columns OCR read as blocks of their own, after the
// booking texts: each figure goes to the booking at its height on the page, its side
// from the heading over its block, and the ledger adds up.
func TestOCRStatementRowsByHeight(t *testing.T) {
	t.Parallel()
	type cell struct {
		text string
		x, y float64
	}
	// Rows of the page: y per row; the text as OCR reads it, column by column.
	rows := []float64{0.20, 0.23, 0.26, 0.29, 0.32}
	cells := []cell{
		{"Kontostand am 01.10.2026", 0.25, rows[0]},
		{"03.10. Miete LEG Wohnen", 0.07, rows[1]},
		{"07.10. Gutschrift Lohn Hansa Spedition GmbH", 0.07, rows[2]},
		{"11.10. Lastschrift Stadtwerke", 0.07, rows[3]},
		{"neuer Kontostand vom 31.10.2026", 0.25, rows[4]},
		{"Soll EUR", 0.76, 0.17},
		{"1.028,53", 0.76, rows[1]},
		{"90,59", 0.77, rows[3]},
		{"Haben EUR", 0.89, 0.17},
		{"411,72", 0.90, rows[0]},
		{"3.567,93", 0.89, rows[2]},
		{"2.860,53", 0.89, rows[4]},
	}
	var lines []string
	var words []evidence.Word
	for li, c := range cells {
		lines = append(lines, c.text)
		x := c.x
		for _, w := range strings.Fields(c.text) {
			wd := 0.008 * float64(len([]rune(w)))
			words = append(words, evidence.Word{Text: w, Conf: 0.95, Block: li, Line: li, Box: evidence.Box{X0: x, Y0: c.y, X1: x + wd, Y1: c.y + 0.012}})
			x += wd + 0.006
		}
	}
	doc := document("bank_statement", strings.Join(append([]string{"Volksbank Musterstadt eG", "Kontoauszug 10/2026"}, lines...), "\n"))
	doc.Pages[0].OCR = true
	doc.Pages[0].Words = words
	fs := Facts(doc, []string{"bank_statement"})
	l := factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger)
	require.True(t, l.Reconciled, "%+v", l)
	require.Equal(t, money(286053, "EUR"), factOf(t, fs, "account_balance").Value)
	tx := factOf(t, fs, evidence.FactBankCredit).Value.(evidence.Transaction)
	require.Equal(t, int64(356793), tx.AmountCents)
	require.Equal(t, day(2026, 10, 7), tx.Date)
}

// ocrColumns gives a laid-out page the text OCR reads from it when the page's columns
// stand well apart: each column's cells as a block of its own, top to bottom, the blocks
// left to right (a cell belongs to the column whose left edge is nearest its own). The
// words keep their places on the page.
func ocrColumns(slot, laid string, edges ...int) *evidence.Document {
	doc := withWords(document(slot, laid))
	blocks := make([][]string, len(edges))
	for _, l := range strings.Split(laid, "\n") {
		rs := []rune(l)
		for c := 0; c < len(rs); {
			if rs[c] == ' ' {
				c++
				continue
			}
			e := c
			for e < len(rs) && !(rs[e] == ' ' && (e+1 >= len(rs) || rs[e+1] == ' ')) {
				e++
			}
			k := 0
			for j, x := range edges {
				if abs64i(x-c) < abs64i(edges[k]-c) || x <= c && edges[k] > c {
					k = j
				}
			}
			blocks[k] = append(blocks[k], string(rs[c:e]))
			c = e
		}
	}
	var text []string
	for _, b := range blocks {
		text = append(text, b...)
	}
	doc.Pages[0].Text = strings.Join(text, "\n")
	doc.Pages[0].OCR = true
	return doc
}

// A statement OCR read column by column, its Paid out and Paid in columns as blocks of
// their own: the words' places put each row back together (date, text, amount under its
// heading, balance) and the ledger adds up, every citation quoting the OCR text.
func TestOCRColumnsReadFromRows(t *testing.T) {
	t.Parallel()
	doc := ocrColumns("bank_statement", ukStatement, 0, 12, 54, 67, 80)
	ls, txs, fs := ledgersOf(t, doc)
	require.Len(t, ls, 1)
	require.True(t, ls[0].Reconciled, "%+v\n%s", ls[0], doc.Pages[0].Text)
	require.Len(t, txs, 1)
	require.Equal(t, int64(241277), txs[0].AmountCents)
	require.Contains(t, txs[0].Text, "ACME WIDGETS")
	require.Equal(t, "2564.33 GBP", balanceOf(t, fs))
	requireCited(t, doc, fs)
}

// A booking text too long for its cell wraps, and the row's figures stand on its second
// line: they are the booking's, and the statement adds up.
func TestWrappedBookingKeepsItsFigures(t *testing.T) {
	t.Parallel()
	const page = `NatWest
Your statement 1 Sep 2026 - 30 Sep 2026
Date        Description                                   Money out (£)    Money in (£)    Balance (£)
1 Sep       Balance brought forward                                                           6,083.44
2 Sep       DD STANDING ORDER RENT HAUSVERWALTUNG NORD GMBH
                                                               1,117.25                       4,966.19
8 Sep       DD CARD PAYMENT ALDI                                 74.78                        4,891.41
26 Sep      BGC SALARY HARBOURSIDE ENG LTD                                      5,503.07      10,394.48
30 Sep      Balance carried forward                                                          10,394.48`
	ls, txs, fs := ledgersOf(t, withWords(document("bank_statement", page)))
	require.Len(t, ls, 1)
	require.True(t, ls[0].Reconciled, "%+v", ls[0])
	require.Equal(t, int64(119203), ls[0].DebitsCents)
	require.Len(t, txs, 1)
	require.Equal(t, int64(550307), txs[0].AmountCents)
	require.Equal(t, "10394.48 GBP", balanceOf(t, fs))
}

// A payslip photographed askew, as OCR reads it: the labels in one block, the figures in
// another (one row has none, so the blocks do not pair in order), each figure at the
// right edge a line lower than its label at the left. With the page straightened each
// figure stands beside its label: gross and net pay are the ones printed, not a
// neighbour's.
func TestAskewPayslipPairsByRow(t *testing.T) {
	t.Parallel()
	const laid = `Stadtwerke Lüneburg GmbH
Am Sande 12
21335 Lüneburg
Gehaltsabrechnung Oktober 2026
Name, Vorname              Schaefer, Guenther
Lohnart                                                       Betrag EUR
Gehalt                                                          7.050,00
Vermögenswirksame Leistungen                                       40,00
Gesamt-Brutto                                                   7.090,00
Lohnsteuer                                                     -1.957,61
Kirchensteuer
Krankenversicherung                                              -606,19
Rentenversicherung                                               -659,37
Netto-Verdienst                                                 3.866,83
Auszahlungsbetrag                                               3.866,83`
	doc := ocrColumns("salary_statement", laid, 0, 27, 62)
	const slope = 0.06 // lines fall by 6 % of the page's width across it
	for i, w := range doc.Pages[0].Words {
		w.Block, w.Line = 0, int(math.Round((w.Box.Y0-0.05)/0.03))
		dy := slope * ((w.Box.X0+w.Box.X1)/2 - 0.5)
		w.Box.Y0, w.Box.Y1 = w.Box.Y0+dy, w.Box.Y1+dy
		doc.Pages[0].Words[i] = w
	}
	fs := Facts(doc, []string{"salary_statement"})
	requireFacts(t, fs, map[string]any{
		"gross_monthly_income": money(709000, "EUR"),
		"net_monthly_income":   money(386683, "EUR"),
	})
	requireCited(t, doc, fs)
}

// A pay statement's guide page explains each field in a description column, numbered
// by callouts: the sentence that wraps under a label is no value of it, and a callout's
// bare number is no amount.
func TestGuidePageIsNoValue(t *testing.T) {
	t.Parallel()
	const guide = `              How to read your earnings statement (amounts in USD)
      Field                 What it shows
      Pay Period            The month the statement covers, as in March 2025
      Net Pay               All earnings of the pay period less all deductions
  2
      Name                  The name of the employee as the central
                            Human Resources System (HRS) stores it
      Gross Pay             All earnings before any deduction
  3
      Pay Date              The day the net pay reaches your account`
	fs := readLaidOut(t, "salary_statement", guide)
	for _, f := range fs {
		switch f.Key {
		case "applicant_full_name", "net_monthly_income", "gross_monthly_income", FactPayout:
			t.Errorf("%s read from a guide: %v (%q)", f.Key, f.Value, f.Citation.Excerpt)
		}
	}
}

// Statements that name their balances in ways not read before: a Singapore bank's
// "BALANCE B/F" and "BALANCE C/F" rows, and a French bank's one label for both balances
// ("SOLDE CREDITEUR AU" a date), opening before the bookings and closing after them.
func TestUnseenBalanceLabels(t *testing.T) {
	t.Parallel()
	const sg = `Straits Harbour Bank                                   Statement of Account
In name of: TAN WEI LING
Account No.: 012-345678-9                               As at 30 Nov 2026
Date       Description                          Withdrawal (SGD)   Deposit (SGD)   Balance (SGD)
01 Nov     BALANCE B/F                                                                 2,310.40
03 Nov     NETS PURCHASE FAIRPRICE                        84.20                        2,226.20
15 Nov     GIRO SALARY ORCHARD LOGISTICS                                 4,150.00      6,376.20
20 Nov     FAST TRANSFER RENT                          1,800.00                        4,576.20
30 Nov     BALANCE C/F                                                                 4,576.20`
	fs := readLaidOut(t, "bank_statement", sg)
	requireFacts(t, fs, map[string]any{"account_balance": money(457620, "SGD"), "applicant_full_name": "Tan Wei Ling"})
	require.True(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled)

	const fr = `BANQUE DU LITTORAL                                         Relevé de compte
                                                           M. JULIEN MARTIN
                                                           8 AVENUE JEAN JAURES
                                                           44000 NANTES
DATE    LIBELLE                                   DATE VALEUR         MONTANT
        SOLDE CREDITEUR AU 31/10/2026                            1 204,18 €
04/11   PRLV SEPA EDF                             04/11           - 82,40 €
27/11   VIR SEPA SALAIRE ATLANTIQUE SAS           27/11          2 480,00 €
30/11   CB CARREFOUR NANTES                       30/11           - 56,10 €
        SOLDE CREDITEUR AU 30/11/2026                            3 545,68 €`
	fs = readLaidOut(t, "bank_statement", fr)
	requireFacts(t, fs, map[string]any{"account_balance": money(354568, "EUR")})
	require.True(t, factOf(t, fs, evidence.FactLedger).Value.(evidence.Ledger).Reconciled)
}

// Payslips of the Netherlands, Italy and Spain: "Totaal bruto loon" and "Totaal netto
// loon"; "TOTALE COMPETENZE" and "NETTO DEL MESE" under "Ditta:", the name after
// "Cognome e nome" surname first; "TOTAL DEVENGADO" and
// "LÍQUIDO TOTAL A PERCIBIR" for a "Periodo de liquidación" of Spanish dates, the company
// and the worker on one line.
func TestUnseenPayslipTotals(t *testing.T) {
	t.Parallel()
	const nl = `Loonstrook periode 10 2026                          Polder Techniek B.V.
Werknemer: Sanne de Vries                           In dienst: 01-03-2021
Omschrijving                                        Bedrag
Salaris                                            3.850,00
Totaal bruto loon                                  3.850,00
Loonheffing                                          812,40
Totaal netto loon                                  3.037,60
Uit te betalen                                     3.037,60 EUR`
	fs := readLaidOut(t, "salary_statement", nl)
	requireFacts(t, fs, map[string]any{"gross_monthly_income": money(385000, "EUR"), "net_monthly_income": money(303760, "EUR")})

	const it = `CEDOLINO PAGA                 PERIODO DI RETRIBUZIONE  OTTOBRE 2026
Ditta: Officine Adriatiche S.r.l.
Cognome e nome: ROSSI MARCO
TOTALE COMPETENZE                                   2.940,00
TOTALE TRATTENUTE                                     782,15
NETTO DEL MESE                                      2.157,85 €`
	fs = readLaidOut(t, "salary_statement", it)
	requireFacts(t, fs, map[string]any{"gross_monthly_income": money(294000, "EUR"), "net_monthly_income": money(215785, "EUR"),
		"employer_name": "Officine Adriatiche S.r.l.", "applicant_full_name": "Marco Rossi"})

	// A Spanish nómina names the company and the worker on one line.
	const es = `NÓMINA    Periodo de liquidación: del 1 de octubre al 31 de octubre de 2026
Empresa: Levante Logística S.L.          Trabajador: GARCÍA LÓPEZ, LUCÍA
A. TOTAL DEVENGADO                                  2.350,00
B. TOTAL A DEDUCIR                                    412,70
LÍQUIDO TOTAL A PERCIBIR (A-B)                      1.937,30 €`
	fs = readLaidOut(t, "salary_statement", es)
	requireFacts(t, fs, map[string]any{"gross_monthly_income": money(235000, "EUR"), "net_monthly_income": money(193730, "EUR"),
		"employer_name": "Levante Logística S.L.", "applicant_full_name": "Lucía García López", evidence.FactPayPeriod: day(2026, 10, 1)})
}

// A form that prints the given names and the surname in boxes of their own, each
// value under its label in a header row: the name is the two read together; boxes left
// empty or holding no name give none.
func TestFormNameInTwoBoxes(t *testing.T) {
	t.Parallel()
	const form = `Application for a savings account
a  Applicant's first name and initial          Last name                  Date of birth
   Lena M                                      Hoffmann                   04/12/1990
b  Street address
   12 Harbour Road`
	fs := readLaidOut(t, "other", form)
	require.Equal(t, "Lena M Hoffmann", factOf(t, fs, "applicant_full_name").Value)

	const empty = `Application for a savings account
a  Applicant's first name and initial          Last name                  Date of birth
   see attached sheet                          n/a                        04/12/1990`
	for _, f := range readLaidOut(t, "other", empty) {
		require.NotEqual(t, "applicant_full_name", f.Key, "%v", f.Value)
	}
}

// A US statement (an activity summary's balances "on" a date, the running balance only
// on a day's last row, debits and credits unsigned in their columns) and a German one
// whose bookings stand under day headings ("Buchungsdatum: 02.10.2026"), their amounts
// in "zu Ihren Lasten" with a trailing minus and "zu Ihren Gunsten": both add up.
func TestUnseenDailyBalancesAndDayHeadings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		page    string
		balance parse.Money
		credits []int64
	}{
		{`NORTHSTAR BANK                                                     Everyday Checking
JOHN Q SAMPLE                                                      October 1, 2026 - October 31, 2026
1200 PINE ST
SPRINGFIELD IL 62701
Activity summary
Beginning balance on 10/1                 $2,410.55
Deposits/Credits                           4,200.00
Withdrawals/Debits                        - 1,932.17
Ending balance on 10/31                   $4,678.38
Transaction history
                 Check                                                  Deposits/      Withdrawals/      Ending daily
Date            Number   Description                                     Credits            Debits           balance
10/2                     Purchase authorized on 10/01 Grocery Outlet                          82.17
10/2                     Recurring payment Comcast                                           150.00          2,178.38
10/15                    ACME CORP PAYROLL PPD ID: 1234567890        2,100.00                               4,278.38
10/20           1042     Check                                                             1,700.00          2,578.38
10/31                    ACME CORP PAYROLL PPD ID: 1234567890        2,100.00                               4,678.38
                         Ending balance on 10/31                                                             4,678.38
                Totals                                               $4,200.00         $1,932.17`, money(467838, "USD"), []int64{210000, 210000}},
		{`Commerzbank AG                                              Kontoauszug vom 31.10.2026
Herrn Jonas Becker                                          Kontonummer 1234567   BLZ 200 400 00
Elbchaussee 12                                              IBAN DE12 2004 0000 0123 4567 00
22763 Hamburg
Angaben zu den Umsätzen                                     Valuta       zu Ihren Lasten   zu Ihren Gunsten
Alter Kontostand vom 30.09.2026                                                             1.250,40
Buchungsdatum: 02.10.2026
Lastschrift Stadtwerke Hamburg Abschlag                    02.10                 56,87-
Kartenzahlung EDEKA Markt                                  02.10                 43,10-
Buchungsdatum: 27.10.2026
Gehalt Oktober Hanse Logistik GmbH                         27.10                               3.120,00
Neuer Kontostand vom 31.10.2026                                                             4.270,43`, money(427043, "EUR"), []int64{312000}},
	} {
		ls, txs, fs := ledgersOf(t, withWords(document("bank_statement", c.page)))
		require.Len(t, ls, 1)
		require.True(t, ls[0].Reconciled, "%+v", ls[0])
		var got []int64
		for _, tx := range txs {
			got = append(got, tx.AmountCents)
		}
		require.Equal(t, c.credits, got)
		require.Equal(t, c.balance, factOf(t, fs, "account_balance").Value)
	}
}

// An N26-style statement prints its balances in a summary after the bookings ("Dein
// alter Kontostand" under the table), and an ING-style one beside the address block,
// each booking over two lines (booking date and value date): both add up.
func TestUnseenSummaryAfterAndBeside(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		page    string
		balance parse.Money
		credit  int64
	}{
		{`N26 Bank AG                                              Kontoauszug 10/2026
Lea Schubert
Torstraße 5
10119 Berlin
IBAN: DE89 3704 0044 0532 0130 00
Beschreibung                                  Verbuchungsdatum          Betrag
Miete Oktober                                 01.10.2026             -950,00€
Dauerauftrag • Wohnen
Lidl sagt Danke                               02.10.2026              -23,45€
Mastercard • Lebensmittel
Gehalt Oktober Spree Digital GmbH             27.10.2026           +3.200,00€
Gutschrift • Einkommen
Übersicht
Dein alter Kontostand                                              +1.000,00€
Ausgehende Transaktionen                                             -973,45€
Eingehende Transaktionen                                           +3.200,00€
Dein neuer Kontostand                                              +3.226,55€`, money(322655, "EUR"), 320000},
		{`ING-DiBa AG · Theodor-Heuss-Allee 2 · 60486 Frankfurt am Main
Max Mustermann                       Eingeräumte Kontoüberziehung     0,00 Euro
Musterstr. 12                        Alter Saldo                  1.200,00 Euro
12345 Musterstadt                    Neuer Saldo                  2.156,01 Euro
Girokonto Nummer 5403198012          Kontoauszug Oktober 2026
IBAN DE89 3704 0044 0532 0130 00
Buchung    Buchung / Verwendungszweck                                  Betrag (EUR)
Valuta
02.10.2026 Lastschrift Stadtwerke Musterstadt                              -43,99
02.10.2026 Abschlag 7231890
27.10.2026 Gutschrift Lohn/Gehalt Nordwind GmbH                          1.000,00
27.10.2026 LOHN/GEHALT 10/2026`, money(215601, "EUR"), 100000},
	} {
		ls, txs, fs := ledgersOf(t, withWords(document("bank_statement", c.page)))
		require.Len(t, ls, 1)
		require.True(t, ls[0].Reconciled, "%+v", ls[0])
		require.Len(t, txs, 1)
		require.Equal(t, c.credit, txs[0].AmountCents)
		require.Equal(t, c.balance, factOf(t, fs, "account_balance").Value)
	}
}

// A scanned DATEV payslip whose gross pay OCR garbled ("5.122127."): the figure the page
// prints as the tax and insurance grosses, whose digits are the garbled run's but for
// one and which the deductions and the net pay add up to, is the gross pay, less sure
// than one read after its label. Where the deductions do not add up to it, none.
func TestGarbledGrossRepairedBySums(t *testing.T) {
	t.Parallel()
	page := func(pension string) string {
		return `Northwind Trading SE - Maximilianstraße 30 - 80331 München
Abrechnung der Brutto/Netto-Bezüge                              Oktober 2026
Lohnart       Bezeichnung                                             Betrag
2000          Gehalt                                                5.050,00
2300          Vermögenswirksame Leistungen                             40,00
2450          Fahrtkostenzuschuss                                      32,27
Gesamt-Brutto                                                      5.122127.
Steuer-Brutto 5.122,27 KV-Brutto 5.122,27
              Lohnsteuer                                            1.098,51
              Kirchensteuer                                            98,86
              Krankenversicherung                                     437,95
              Rentenversicherung                                      ` + pension + `
              Arbeitslosenversicherung                                 66,58
Netto-Verdienst                                                     2.851,80`
	}
	doc := ocrColumns("salary_statement", page("568,57"), 0, 14, 60)
	fs := Facts(doc, []string{"salary_statement"})
	gross := factOf(t, fs, "gross_monthly_income")
	require.Equal(t, money(512227, "EUR"), gross.Value)
	require.Less(t, gross.Confidence, factOf(t, fs, "net_monthly_income").Confidence)
	requireCited(t, doc, fs)

	doc = ocrColumns("salary_statement", page("500,00"), 0, 14, 60)
	for _, f := range Facts(doc, []string{"salary_statement"}) {
		require.NotEqual(t, "gross_monthly_income", f.Key, "%v", f.Value)
	}
}
