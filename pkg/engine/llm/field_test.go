package llm

import (
	"context"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/stretchr/testify/require"
)

func fieldRequest(format string, docs ...*evidence.Document) FieldRequest {
	return FieldRequest{
		Key:         "custom_value",
		DisplayName: "Custom value",
		Prompt:      "Read the value from the documents.",
		ValueFormat: format,
		Language:    "en",
		Documents:   docs,
	}
}

func TestFieldValueIsReparsed(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		format  string
		page    string
		printed string
		want    any
	}{
		{FormatCurrency, "Auszahlungsbetrag 3.250,00 € netto", "3.250,00 €", parse.Money{Cents: 325000, Currency: "EUR"}},
		{FormatCurrency, "Net pay: EUR 1,234.56", "EUR 1,234.56", parse.Money{Cents: 123456, Currency: "EUR"}},
		{FormatDate, "Eintrittsdatum: 15.03.2019", "15.03.2019", time.Date(2019, 3, 15, 0, 0, 0, 0, time.UTC)},
		{FormatYears, "Laufzeit 25 Jahre fest", "25 Jahre", 25.0},
		{FormatPercent, "Sollzins 3,5 % p.a.", "3,5 %", 3.5},
		{FormatSquareMeters, "Wohnfläche ca. 85,5 m² im 2. OG", "85,5 m²", 85.5},
		{FormatText, "Arbeitgeber: Müller GmbH, Köln", "  Müller GmbH ", "Müller GmbH"},
	} {
		t.Run(tc.format+" "+tc.printed, func(t *testing.T) {
			t.Parallel()
			d := document("doc.pdf", tc.page)
			c, bundle := setup(t, nil, answer(fieldJSON(true, tc.printed, 0.9, cite(d, 1, tc.page))))

			out, err := c.Field(context.Background(), fieldRequest(tc.format, d))
			require.NoError(t, err)
			require.Equal(t, tc.want, out.Value)
			require.InDelta(t, 0.9, out.Confidence, 1e-9)
			require.Equal(t, []evidence.Citation{d.Cite(1, tc.page)}, out.Citations)
			require.True(t, out.Verified)

			r := bundle.fake.received()[0]
			require.Equal(t, "field_value", r.body.ResponseFormat.JSONSchema.Name)
			require.Contains(t, r.task(), "<<<REVIEWER INSTRUCTION>>>\nField key: custom_value\nField name: Custom value\nInstruction: Read the value from the documents.\nExpected value: "+formatHint(tc.format)+"\n<<<END REVIEWER INSTRUCTION>>>")
		})
	}
}

func TestFieldValueThatDoesNotParse(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "Gehalt: nach Vereinbarung")
	c, _ := setup(t, nil, answer(fieldJSON(true, "nach Vereinbarung", 0.9, cite(d, 1, "Gehalt: nach Vereinbarung"))))

	out, err := c.Field(context.Background(), fieldRequest(FormatCurrency, d))
	require.NoError(t, err)
	require.Nil(t, out.Value)
	require.Equal(t, "nach Vereinbarung", out.Printed)
	require.LessOrEqual(t, out.Confidence, CapUnparsed)
	require.Len(t, out.Citations, 1)
}

func TestFieldValueNotInExcerptCapsConfidence(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "Arbeitgeber: Müller GmbH, Köln")
	c, _ := setup(t, nil, answer(fieldJSON(true, "Schmidt AG", 0.9, cite(d, 1, "Arbeitgeber: Müller GmbH"))))

	out, err := c.Field(context.Background(), fieldRequest(FormatText, d))
	require.NoError(t, err)
	require.Equal(t, "Schmidt AG", out.Value)
	require.InDelta(t, CapValueNotInExcerpt, out.Confidence, 1e-9)
	require.False(t, out.Verified)
}

func TestFieldValueWithoutVerifiedCitation(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "Arbeitgeber: Müller GmbH, Köln")
	c, _ := setup(t, nil, answer(fieldJSON(true, "Müller GmbH", 0.9, cite(d, 1, "Arbeitgeber: Schmidt AG"))))

	out, err := c.Field(context.Background(), fieldRequest(FormatText, d))
	require.NoError(t, err)
	require.Equal(t, "Müller GmbH", out.Value)
	require.Empty(t, out.Citations)
	require.Equal(t, 1, out.CitationsDropped)
	require.LessOrEqual(t, out.Confidence, CapNoEvidence)
	require.False(t, out.Verified)
}

func TestFieldWhitespaceNormalizedValueMatch(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "Arbeitgeber:\nMüller\n  GmbH")
	c, _ := setup(t, nil, answer(fieldJSON(true, "Müller GmbH", 0.9, cite(d, 1, "Arbeitgeber: Müller GmbH"))))

	out, err := c.Field(context.Background(), fieldRequest(FormatText, d))
	require.NoError(t, err)
	require.Equal(t, "Müller GmbH", out.Value)
	require.InDelta(t, 0.9, out.Confidence, 1e-9)
}

func TestFieldNotFound(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "Arbeitgeber: Müller GmbH, Köln")
	c, _ := setup(t, nil, answer(fieldJSON(false, "", 0.8)))

	out, err := c.Field(context.Background(), fieldRequest(FormatCurrency, d))
	require.NoError(t, err)
	require.Nil(t, out.Value)
	require.Empty(t, out.Printed)
	require.Empty(t, out.Citations)
	require.InDelta(t, 0.8, out.Confidence, 1e-9)
}

func TestFieldRejectsUnknownFormat(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "x")
	c, bundle := setup(t, nil, answer(fieldJSON(false, "", 0.8)))

	_, err := c.Field(context.Background(), fieldRequest("kilograms", d))
	require.ErrorContains(t, err, "unknown value format")
	require.Empty(t, bundle.fake.received())
}

func TestFieldAlwaysMalformed(t *testing.T) {
	t.Parallel()

	d := document("doc.pdf", "x")
	c, bundle := setup(t, nil, answer("I could not find the value."))

	_, err := c.Field(context.Background(), fieldRequest(FormatText, d))
	require.ErrorIs(t, err, ErrMalformedOutput)
	require.Len(t, bundle.fake.received(), 3)
}
