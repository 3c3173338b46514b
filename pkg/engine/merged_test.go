package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

func textDocument(external, slot string, pages ...string) *evidence.Document {
	d := &evidence.Document{UploadID: uuid.New(), FileID: uuid.New(), ExternalFileID: external, SlotType: slot}
	for i, p := range pages {
		d.Pages = append(d.Pages, evidence.Page{Number: i + 1, Text: p, Chars: len(p)})
	}
	return d
}

const idCardPage = `PERSONALAUSWEIS IDENTITY CARD CARTE D'IDENTITÉ
Name/Surname/Nom
MÜLLER
Vornamen/Given names/Prénoms
JÜRGEN
Geburtstag/Date of birth/Date de naissance
12.03.1985
Gültig bis/Date of expiry/Date d'expiration
11.05.2031
Ausweisnummer L01X00T47`

func payslipText(month string) string {
	return fmt.Sprintf(`ACME GmbH · Industriestraße 4 · 50667 Köln
Gehaltsabrechnung %s
Mitarbeiter: Jürgen Müller
Steuerklasse 1
Gesamtbrutto 4.200,00 EUR
Lohnsteuer 612,33 EUR
Rentenversicherung 390,60 EUR
Nettoverdienst 2.712,33 EUR`, month)
}

const bankPage = `Sparkasse KölnBonn          Kontoauszug 10/2026
Kontoinhaber: Jürgen Müller
IBAN: DE89 3704 0044 0532 0130 00
Auszugszeitraum 01.10.2026 - 31.10.2026
Buchung  Wert    Vorgang / Verwendungszweck            Betrag EUR
                 Kontostand alt am 30.09.2026           1.000,00 H
01.10.   01.10.  Dauerauftrag Miete                       950,00 S
28.10.   28.10.  Gutschrift Lohn/Gehalt ACME GMBH       2.712,33 H
                 Kontostand neu am 31.10.2026           2.762,33 H`

func evaluate(t *testing.T, in Input) Result {
	t.Helper()
	res, err := NewWithModel(nil, slog.New(slog.DiscardHandler)).Evaluate(context.Background(), in, func(string, int) error { return nil })
	require.NoError(t, err)
	return res
}

func checkOf(t *testing.T, res Result, key string) ResultCheck {
	t.Helper()
	for _, c := range res.Checks {
		if c.Key == key {
			return c
		}
	}
	t.Fatalf("no check %s", key)
	return ResultCheck{}
}

func fieldOf(t *testing.T, res Result, key string) ResultField {
	t.Helper()
	for _, f := range res.Fields {
		if f.Key == key {
			return f
		}
	}
	t.Fatalf("no field %s", key)
	return ResultField{}
}

func builtinChecksOf(keys ...string) []CheckSpec {
	var out []CheckSpec
	for _, k := range keys {
		out = append(out, CheckSpec{ID: k, Key: k, Title: k, Builtin: true})
	}
	return out
}

func builtinFieldsOf(keys ...string) []FieldSpec {
	var out []FieldSpec
	for _, k := range keys {
		out = append(out, FieldSpec{ID: k, Key: k, Label: k, Builtin: true, Threshold: 0.5})
	}
	return out
}

// One scanned PDF with an ID card, three payslips and a bank statement: the upload is
// one result document listing every type, and the payslips and the statement count.
func TestMergedUpload(t *testing.T) {
	t.Parallel()
	doc := textDocument("scan.pdf", "id_card", idCardPage, payslipText("August 2026"), payslipText("September 2026"), payslipText("Oktober 2026"), bankPage)
	res := evaluate(t, Input{
		Language: "en", Date: date(2026, 11, 23), Template: "personal_loan",
		Requirements: []Requirement{{Type: "id_card", Required: true}, {Type: "salary_statement", Required: true}, {Type: "bank_statement", Required: true}},
		Checks: builtinChecksOf("required_documents_present", "salary_statements_complete", "income_documents_recent",
			"salary_credited_on_bank_statement", "name_consistency", "id_document_valid", "documents_readable"),
		Fields:    builtinFieldsOf("applicant_full_name", "net_monthly_income", "iban", "id_document_expiry_date"),
		Documents: []*evidence.Document{doc},
	})
	require.Len(t, res.Documents, 1)
	require.ElementsMatch(t, []string{"id_card", "salary_statement", "bank_statement"}, res.Documents[0].DocumentTypes)
	require.Equal(t, "salary_statement", res.Documents[0].DocumentTypes[0], "three pages of payslips cover most of the upload")
	for _, key := range []string{"required_documents_present", "salary_statements_complete", "income_documents_recent",
		"salary_credited_on_bank_statement", "name_consistency", "id_document_valid", "documents_readable"} {
		c := checkOf(t, res, key)
		require.Equal(t, Fulfilled, c.Status, "%s: %s", key, c.ReasoningSummary)
		require.NotEmpty(t, c.Citations, key)
		for _, cite := range c.Citations {
			require.True(t, doc.Verify(cite), "%s cites %q", key, cite.Excerpt)
		}
	}
	// The ID card's expiry cites the ID page, the net pay a payslip page.
	require.Equal(t, []int{1}, fieldOf(t, res, "id_document_expiry_date").Citations[0].Pages)
	require.Contains(t, []int{2, 3, 4}, fieldOf(t, res, "net_monthly_income").Citations[0].Pages[0])
	require.Equal(t, "Jürgen Müller", fieldOf(t, res, "applicant_full_name").Value)
}

// A car-loan letter is no financing overview: no loan fields, and the loan-to-value is
// open for a real-estate financing and not applicable for a personal loan.
func TestCarLoanLetterGivesNoLoan(t *testing.T) {
	t.Parallel()
	letter := textDocument("letter.pdf", "", `Autobank AG · Postfach 10 · 38440 Wolfsburg
Herrn
Jürgen Müller
Lindenstraße 12
50667 Köln
Ihr Darlehen Nr. 4711 – Fahrzeugfinanzierung
Sehr geehrter Herr Müller, vielen Dank für Ihre Kreditanfrage und Ihr Vertrauen.
Darlehensbetrag 25.000,00 €
Kaufpreis des Fahrzeugs 31.000,00 €
Effektiver Jahreszins 5,9 %
Monatliche Tilgung 450,00 € ab April 2026`)
	for template, want := range map[string]string{"personal_real_estate_financing": Open, "personal_loan": NotApplicable} {
		res := evaluate(t, Input{
			Language: "de", Date: date(2026, 11, 23), Template: template,
			Checks:    builtinChecksOf("loan_to_value_within_limit"),
			Fields:    builtinFieldsOf("loan_amount", "equity_amount", "loan_to_value", "fixed_interest_period", "purchase_price"),
			Documents: []*evidence.Document{letter},
		})
		require.Equal(t, []string{"other"}, res.Documents[0].DocumentTypes)
		for _, f := range res.Fields {
			require.Equal(t, FieldNotFound, f.Status, "%s: %v", f.Key, f.Value)
		}
		require.Equal(t, want, checkOf(t, res, "loan_to_value_within_limit").Status, template)
	}
}

// A fulfilled verdict must cite something; a rule that finds nothing to cite is open.
func TestFulfilledNeedsCitations(t *testing.T) {
	t.Parallel()
	doc := textDocument("blank.pdf", "", "Dies ist ein Brief ohne besondere Angaben zum Antragsteller, nur Text.")
	res := evaluate(t, Input{
		Language: "en", Date: date(2026, 11, 23), Template: "personal_loan",
		Checks:    builtinChecksOf("additional_risk_notes", "documents_readable"),
		Documents: []*evidence.Document{doc},
	})
	for _, c := range res.Checks {
		if c.Status == Fulfilled {
			require.NotEmpty(t, c.Citations, c.Key)
		}
	}
	require.Equal(t, Open, checkOf(t, res, "additional_risk_notes").Status)
	require.Equal(t, Fulfilled, checkOf(t, res, "documents_readable").Status)
}

// A critical finding read with little confidence comes back open, saying so.
func TestCriticalNeedsConfidence(t *testing.T) {
	t.Parallel()
	scan := func(wordConf float64) []*evidence.Document {
		expose := textDocument("expose.png", "", "Exposé\nKaufpreis 450.000,00 €\nWohnfläche 95 m²")
		contract := textDocument("kaufvertrag.png", "", "Kaufvertrag\nUrkundenrolle Nr. 123/2026 Notar Dr. Weber\nDer Kaufpreis beträgt 300.000,00 €\nWohnfläche 95 m²")
		pageConf := 0.8
		for _, d := range []*evidence.Document{expose, contract} {
			p := &d.Pages[0]
			p.OCR, p.OCRConfidence, p.Chars = true, &pageConf, 200
			for _, w := range strings.Fields(p.Text) {
				p.Words = append(p.Words, evidence.Word{Text: w, Conf: wordConf})
			}
		}
		return []*evidence.Document{expose, contract}
	}
	in := Input{Language: "en", Date: date(2026, 11, 23), Template: "personal_real_estate_financing", Checks: builtinChecksOf("property_data_consistency")}
	in.Documents = scan(0.1)
	c := checkOf(t, evaluate(t, in), "property_data_consistency")
	require.Equal(t, Open, c.Status, c.ReasoningSummary)
	require.Contains(t, c.ReasoningSummary, "could not be read with confidence")

	in.Documents = scan(0.97)
	require.Equal(t, Critical, checkOf(t, evaluate(t, in), "property_data_consistency").Status)
}
