package reader

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// A financing overview is read for the loan; a car-loan letter, which names a loan
// amount and repayment but is not the financing applied for, is "other" and gives no
// loan facts, whatever types it is read with.
func TestFinancingOnlyFromFinancingOverview(t *testing.T) {
	t.Parallel()
	overview := document("", `Finanzierungsübersicht
Objekt: Lindenstraße 12, 50667 Köln
Kaufpreis 450.000,00 €
Eigenkapital 90.000,00 €
Darlehensbetrag 360.000,00 €
Sollzinsbindung 15 Jahre
Beleihungsauslauf 80,0 %`)
	require.Equal(t, "other", Classify(overview)[0].Type)
	f := factsByKey(Facts(overview, []string{"other"}))
	require.Len(t, f["loan_amount"], 1)
	require.Len(t, f["loan_to_value"], 1)
	require.Len(t, f["fixed_interest_period"], 1)

	carLoan := document("", `Autobank AG · Postfach 10 · 38440 Wolfsburg
Herrn
Jürgen Müller
Lindenstraße 12
50667 Köln
Ihr Darlehen Nr. 4711 – Fahrzeugfinanzierung
Sehr geehrter Herr Müller, vielen Dank für Ihre Kreditanfrage und Ihr Vertrauen.
Darlehensbetrag 25.000,00 €
Effektiver Jahreszins 5,9 %
Monatliche Tilgung 450,00 € ab April 2026`)
	types := Classify(carLoan)
	require.Equal(t, "other", types[0].Type)
	for _, typ := range []string{"other", financingOverview} {
		f := factsByKey(Facts(carLoan, []string{typ}))
		for _, key := range []string{"loan_amount", "equity_amount", "loan_to_value", "fixed_interest_period", "purchase_price"} {
			require.Empty(t, f[key], "%s read as %s", key, typ)
		}
	}
	// "apr" is a cue only as a word, not in "April".
	require.NotContains(t, scorePage(newText(document("", "Zahlung ab April 2026"))).scores, financingOverview)
}

// Risk keywords in boilerplate, next to unticked boxes or denied are no findings; a
// booking, a deduction line with an amount, a ticked box and a "ja" are.
func TestRisksNotInBoilerplate(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Bei Lohnpfändungen trägt der Arbeitnehmer die Kosten der Bearbeitung in Höhe von 10,00 EUR.",
		"Im Falle einer Pfändung ist der Arbeitgeber unverzüglich zu informieren.",
		"If a garnishment order is served, the employer will deduct the amount stated in it.",
		"☐ Pfändungen",
		"[ ] garnishment",
		"Pfändungen: ☐ ja ☒ nein",
		"Es bestehen keine Pfändungen.",
		"Bei Rücklastschriften berechnen wir ein Entgelt von 3,00 EUR.",
		"Pfändungsschutzkonto",
		"Für Rücklastschriften berechnet die Bank ein Entgelt von 3,00 EUR.",
		"A fee of EUR 3.00 applies to every returned direct debit.",
		"Für Rücklastschriften, die der Kontoinhaber zu vertreten hat, sowie für die Bearbeitung von Pfändungen berechnet die Bank ein Entgelt nach dem Preis- und Leistungsverzeichnis",
	} {
		f := factsByKey(Facts(document("", "Gehaltsabrechnung Oktober 2026\n"+text), []string{"salary_statement"}))
		require.Empty(t, f[evidence.FactGarnishment], text)
		require.Empty(t, f[evidence.FactReturnedDebit], text)
	}
	for _, text := range []string{
		"Lohnpfändung Az. 81 M 2217/24   -250,00",
		"Pfändung gem. Beschluss AG Köln 81 M 2217/24   250,00-",
		"20.10.  20.10.  Überweisung Pfändung Obergerichtsvollzieher Groß  400,00 S",
		"☒ Pfändungen",
		"[x] garnishment",
		"Pfändungen: ☒ ja ☐ nein",
		"Bestehen Lohn- oder Kontopfändungen?: ja",
		"Überweisung Pfändung Obergerichtsvollzieher Groß",
	} {
		doc := document("", "Kontoauszug 10/2026\n"+text)
		fs := Facts(doc, []string{"bank_statement"})
		require.NotEmpty(t, factsByKey(fs)[evidence.FactGarnishment], text)
		for _, x := range fs {
			require.True(t, doc.Verify(x.Citation), x.Key)
		}
	}
	f := factsByKey(Facts(document("", "Kontoauszug\n15.10.   15.10.  Rücklastschrift Lastschrift HUK-COBURG   120,00 H"), []string{"bank_statement"}))
	require.Len(t, f[evidence.FactReturnedDebit], 1)

	// Probation and fixed terms: denied or supposed is none.
	for _, text := range []string{"Sofern eine Probezeit vereinbart ist, gilt eine Kündigungsfrist von zwei Wochen.", "☐ befristet", "Keine Probezeit."} {
		f := factsByKey(Facts(document("", "Arbeitsvertrag\n"+text), []string{"employment_contract"}))
		require.Empty(t, f[evidence.FactProbation], text)
		require.Empty(t, f[evidence.FactFixedTerm], text)
	}
}

func FuzzRisks(f *testing.F) {
	f.Add("Bei Lohnpfändungen trägt der Arbeitnehmer die Kosten.")
	f.Add("Pfändungen: ☐ ja ☒ nein")
	f.Add("12.03. Rücklastschrift 12,00")
	f.Fuzz(func(t *testing.T, s string) {
		doc := document("", s)
		for _, x := range Facts(doc, []string{"bank_statement", "employment_contract"}) {
			require.True(t, doc.Verify(x.Citation), x.Key)
		}
	})
}

// On a scan, a value's confidence follows OCR's confidence in the words it quotes, not
// a constant per label.
func TestConfidenceFromQuotedWords(t *testing.T) {
	t.Parallel()
	read := func(conf float64) float64 {
		text := "Gehaltsabrechnung Oktober 2026\nNettoverdienst 2.712,33 EUR"
		page := evidence.Page{Number: 1, Text: text, OCR: true}
		for _, w := range []string{"Gehaltsabrechnung", "Oktober", "2026"} {
			page.Words = append(page.Words, evidence.Word{Text: w, Conf: 0.95})
		}
		for _, w := range []string{"Nettoverdienst", "2.712,33", "EUR"} {
			page.Words = append(page.Words, evidence.Word{Text: w, Conf: conf})
		}
		doc := document("")
		doc.Pages = []evidence.Page{page}
		for _, f := range Facts(doc, []string{"salary_statement"}) {
			if f.Key == "net_monthly_income" {
				return f.Confidence
			}
		}
		t.Fatal("no net pay read")
		return 0
	}
	require.Greater(t, read(0.95), read(0.3))
}
