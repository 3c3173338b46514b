package reader

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

const idPage = `PERSONALAUSWEIS IDENTITY CARD CARTE D'IDENTITÉ
Name/Surname/Nom
MÜLLER
Vornamen/Given names/Prénoms
JÜRGEN
Geburtstag/Date of birth/Date de naissance
12.03.1985
Gültig bis/Date of expiry/Date d'expiration
11.05.2031
IDD<<L01X00T471<<<<<<<<<<<<<<<
8503122M3105118D<<<<<<<<<<<<<4
MUELLER<<JUERGEN<<<<<<<<<<<<<<`

func payslipPage(month string, name string) string {
	return fmt.Sprintf(`ACME GmbH · Industriestraße 4 · 50667 Köln
Gehaltsabrechnung %s
Mitarbeiter: %s
Steuerklasse 1
Gesamtbrutto 4.200,00 EUR
Lohnsteuer 612,33 EUR
Rentenversicherung 390,60 EUR
Nettoverdienst 2.712,33 EUR`, month, name)
}

const statementPage = `Sparkasse KölnBonn          Kontoauszug 10/2026
Kontoinhaber: Jürgen Müller
IBAN: DE89 3704 0044 0532 0130 00
Auszugszeitraum 01.10.2026 - 31.10.2026
Buchung  Wert    Vorgang / Verwendungszweck            Betrag EUR
                 Kontostand alt am 30.09.2026           1.000,00 H
01.10.   01.10.  Dauerauftrag Miete                       950,00 S
28.10.   28.10.  Gutschrift Lohn/Gehalt ACME GMBH       2.712,33 H
                 Kontostand neu am 31.10.2026           2.762,33 H`

func partTypes(parts []Part) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Types[0].Type)
	}
	return out
}

func partPages(parts []Part) [][]int {
	var out [][]int
	for _, p := range parts {
		var ns []int
		for _, pg := range p.Doc.Pages {
			ns = append(ns, pg.Number)
		}
		out = append(out, ns)
	}
	return out
}

// One scan of an ID card, three payslips of different months and a bank statement:
// five documents, each with its own pages and type, reading the facts of its own.
func TestSplitMergedUpload(t *testing.T) {
	t.Parallel()
	doc := document("id_card", idPage,
		payslipPage("August 2026", "Jürgen Müller"), payslipPage("September 2026", "Jürgen Müller"), payslipPage("Oktober 2026", "Jürgen Müller"),
		statementPage)
	parts := Split(doc)
	require.Equal(t, []string{"id_card", "salary_statement", "salary_statement", "salary_statement", "bank_statement"}, partTypes(parts))
	require.Equal(t, [][]int{{1}, {2}, {3}, {4}, {5}}, partPages(parts))
	var periods []time.Time
	for _, p := range parts {
		require.Equal(t, doc.UploadID, p.Doc.UploadID)
		for _, f := range Facts(p.Doc, []string{p.Types[0].Type}) {
			require.True(t, doc.Verify(f.Citation), "%s cites %q on pages %v", f.Key, f.Citation.Excerpt, f.Citation.Pages)
			require.True(t, p.Doc.Verify(f.Citation))
			if f.Key == evidence.FactPayPeriod {
				periods = append(periods, f.Value.(time.Time))
			}
		}
	}
	require.Len(t, periods, 3)
	// The slot hint stays with the part that is what the slot asked for.
	require.Equal(t, "id_card", parts[0].Doc.SlotType)
	require.Empty(t, parts[1].Doc.SlotType)
}

// A payslip whose title OCR lost still opens a document after an ID card: its own cues
// are strong and none of them is an ID card's.
func TestSplitWithoutTitles(t *testing.T) {
	t.Parallel()
	untitled := strings.Replace(payslipPage("Oktober 2026", "Jürgen Müller"), "Gehaltsabrechnung Oktober 2026", "Abrechnungsmonat 10/2026", 1)
	parts := Split(document("", idPage, untitled))
	require.Equal(t, []string{"id_card", "salary_statement"}, partTypes(parts))
}

// Continuation pages join the document before: a page numbered "2/2", a page without
// a title of its own; a second person's payslip of the same month starts anew.
func TestSplitContinuationAndPerson(t *testing.T) {
	t.Parallel()
	terms := "Allgemeine Hinweise\nBitte prüfen Sie diese Abrechnung sorgfältig.\nSeite 2/2"
	doc := document("", payslipPage("Oktober 2026", "Jürgen Müller")+"\nSeite 1/2", terms,
		payslipPage("Oktober 2026", "Anna Schmidt"))
	parts := Split(doc)
	require.Equal(t, [][]int{{1, 2}, {3}}, partPages(parts))

	// A statement's second page without title or opening balance continues it.
	ledger := "28.10.   28.10.  Kartenzahlung REWE   45,12 S\n                 Kontostand neu am 31.10.2026  2.717,21 H"
	doc = document("bank_statement", statementPage, ledger)
	parts = Split(doc)
	require.Len(t, parts, 1)
	require.Same(t, doc, parts[0].Doc)

	// One document: one part, the upload itself.
	doc = document("", payslipPage("Oktober 2026", "Jürgen Müller"))
	require.Len(t, Split(doc), 1)
}

// A page that merely mentions another type's words inside the document does not split
// it: only a title region opens a document.
func TestSplitKeepsMentions(t *testing.T) {
	t.Parallel()
	contract := `Arbeitsvertrag
zwischen ACME GmbH und Jürgen Müller
§ 1 Beginn des Arbeitsverhältnisses
Das Arbeitsverhältnis beginnt am 01.09.2025.`
	second := `§ 4 Vergütung
Der Arbeitnehmer erhält ein Bruttogehalt von 4.200,00 EUR.
Die Gehaltsabrechnung erfolgt monatlich; der Nettoverdienst wird überwiesen.
Lohnsteuer und Rentenversicherung behält der Arbeitgeber ein.
§ 5 Urlaub
Der Urlaubsanspruch beträgt 30 Tage.
§ 6 Arbeitszeit
Die Arbeitszeit beträgt 40 Stunden.
§ 7 Sonstiges`
	parts := Split(document("", contract, second))
	require.Len(t, parts, 1)
	require.Equal(t, "employment_contract", parts[0].Types[0].Type)
}

// Split never loses or reorders a page, and every part's facts cite its own pages.
func FuzzSplit(f *testing.F) {
	f.Add(idPage, payslipPage("Oktober 2026", "Jürgen Müller"), statementPage)
	f.Add("Seite 2/3", "", "Gehaltsabrechnung\n1/1")
	f.Add("Kontoauszug\nKontostand alt 1,00", "Kontoauszug\nKontostand alt 2,00\nSeite 1 von 2", "☐ Pfändungen")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		doc := document("id_card", a, b, c)
		parts := Split(doc)
		require.NotEmpty(t, parts)
		var numbers []int
		for _, p := range parts {
			require.NotEmpty(t, p.Types)
			for _, pg := range p.Doc.Pages {
				numbers = append(numbers, pg.Number)
			}
			for _, fact := range Facts(p.Doc, []string{p.Types[0].Type}) {
				require.True(t, slices.ContainsFunc(fact.Citation.Pages, func(n int) bool { return p.Doc.Page(n) != nil }) || strings.TrimSpace(fact.Citation.Excerpt) == "",
					"%s cites pages %v outside its part", fact.Key, fact.Citation.Pages)
			}
		}
		require.Equal(t, []int{1, 2, 3}, numbers)
	})
}

// Every page is classified on its own, its top lines its title region.
func TestClassifyPage(t *testing.T) {
	t.Parallel()
	doc := document("id_card", idPage, payslipPage("Oktober 2026", "Jürgen Müller"), statementPage, "Seite 4/4")
	for n, want := range []string{"id_card", "salary_statement", "bank_statement", "other"} {
		require.Equal(t, want, ClassifyPage(doc, n+1)[0].Type, "page %d", n+1)
	}
}

// untitledStatement is a statement page whose words name no type: only its rows say
// what it is.
const untitledStatement = `Harbour Mutual
Jane Holloway
1 Oct 2026 - 31 Oct 2026
1 Oct     B/F                                                           1,204.18
2 Oct     DD THAMES WATER                      38.50                    1,165.68
5 Oct     POS TESCO STORES                     64.12                    1,101.56
28 Oct    BACS HARBOURSIDE ENG LTD                          2,412.77    3,514.33
30 Oct    SO RENT PAYMENT                     950.00                    2,564.33
31 Oct    C/F                                                           2,564.33`

// A statement page whose words name no type after a payslip opens a document of its
// own: its running balances follow from row to row.
func TestSplitStatementByItsLedger(t *testing.T) {
	t.Parallel()
	const payslip = `Harbourside Engineering Ltd                                   PAYSLIP
Name: JANE HOLLOWAY                                           Employee No: 12051
Tax Code: 1257L                                               NI Number: QQ 66 75 86 C
Period 7                                                      Pay Date: 30/10/2026
Basic salary          2,950.00      PAYE Tax              349.10
Total Payments £2,950.00  Total Deductions £537.23  Net Pay £2,412.77`
	parts := Split(document("", payslip, untitledStatement))
	require.Equal(t, []string{"salary_statement", "bank_statement"}, partTypes(parts))
}

// The same statement as OCR reads it, its columns as blocks of their own: its rows,
// laid out again from the words' places, are still a ledger that adds up.
func TestOCRLedgerReadFromRows(t *testing.T) {
	t.Parallel()
	doc := ocrColumns("", untitledStatement, 0, 10, 47, 62, 72)
	require.Equal(t, "bank_statement", Classify(doc)[0].Type, doc.Pages[0].Text)
}
