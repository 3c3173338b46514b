package engine

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// assistStub answers every builtin field with a verified value and every check with a
// fulfilled verdict citing the same line, recording what it was asked.
type assistStub struct {
	doc     *evidence.Document
	excerpt string
	asked   []string
}

func (m *assistStub) Check(_ context.Context, req llm.CheckRequest) (llm.CheckOutcome, error) {
	m.asked = append(m.asked, "check:"+req.Key)
	return llm.CheckOutcome{Status: llm.StatusFulfilled, Confidence: 0.9, Reasoning: "stated",
		Citations: []evidence.Citation{m.doc.Cite(1, m.excerpt)}}, nil
}

func (m *assistStub) Field(_ context.Context, req llm.FieldRequest) (llm.FieldOutcome, error) {
	m.asked = append(m.asked, "field:"+req.Key)
	return llm.FieldOutcome{Value: parse.Money{Cents: 512040, Currency: "EUR"}, Confidence: 0.9, Printed: "5.120,40 EUR",
		Citations: []evidence.Citation{m.doc.Cite(1, m.excerpt)}, Verified: true}, nil
}

// With a model configured, a builtin field the rules could not read takes the model's
// verified value, marked as the model's and capped below the threshold; a builtin check
// left open for lack of reading is asked too, and its summary says who read it. A check
// the rules decided is never asked.
func TestEngineAssistsBuiltinItemsTheRulesCouldNotRead(t *testing.T) {
	t.Parallel()
	excerpt := "Remuneration figure before deductions 5.120,40 EUR"
	doc := &evidence.Document{UploadID: uuid.New(), ExternalFileID: "memo", Pages: []evidence.Page{{Number: 1, Text: "Quarterly memo\n" + excerpt, Chars: 60}}}
	m := &assistStub{doc: doc, excerpt: excerpt}
	in := Input{Language: "en", Date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Template: "personal_loan",
		Fields: []FieldSpec{{ID: "gross_monthly_income", Key: "gross_monthly_income", Label: "Gross", ValueFormat: "currency", Builtin: true, Threshold: 0.8}},
		Checks: []CheckSpec{
			{ID: "documents_readable", Key: "documents_readable", Title: "Readable", Builtin: true},
			{ID: "income_documents_recent", Key: "income_documents_recent", Title: "Recent", Builtin: true},
		},
		Documents: []*evidence.Document{doc}}
	res, err := NewWithModel(m, slog.New(slog.DiscardHandler)).Evaluate(context.Background(), in, func(string, int) error { return nil })
	require.NoError(t, err)

	f := res.Fields[0]
	require.Equal(t, map[string]string{"amount": "5120.40", "currency": "EUR"}, f.Value)
	require.Equal(t, SourceModel, f.Source)
	require.LessOrEqual(t, f.Confidence, CapAssisted)
	require.Equal(t, FieldLowConfidence, f.Status)
	require.Len(t, f.Citations, 1)
	require.True(t, doc.Verify(f.Citations[0]))

	require.Contains(t, m.asked, "check:income_documents_recent")
	require.NotContains(t, m.asked, "check:documents_readable")
	recent := res.Checks[1]
	require.Equal(t, Fulfilled, recent.Status)
	require.LessOrEqual(t, recent.Confidence, CapAssisted)
	require.True(t, strings.HasPrefix(recent.ReasoningSummary, "Read by the model"), recent.ReasoningSummary)
}

// Without a model nothing is asked and a field the rules could not read stays not_found
// with no source.
func TestEngineWithoutModelLeavesUnreadFieldsNotFound(t *testing.T) {
	t.Parallel()
	doc := &evidence.Document{UploadID: uuid.New(), ExternalFileID: "memo", Pages: []evidence.Page{{Number: 1, Text: "Quarterly memo\nnothing here", Chars: 20}}}
	in := Input{Language: "en", Date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		Fields:    []FieldSpec{{ID: "gross_monthly_income", Key: "gross_monthly_income", Label: "Gross", Builtin: true, Threshold: 0.8}},
		Documents: []*evidence.Document{doc}}
	res, err := NewWithModel(nil, slog.New(slog.DiscardHandler)).Evaluate(context.Background(), in, func(string, int) error { return nil })
	require.NoError(t, err)
	require.Equal(t, FieldNotFound, res.Fields[0].Status)
	require.Nil(t, res.Fields[0].Value)
	require.Empty(t, res.Fields[0].Source)
}

// A value the rules read says so.
func TestEngineMarksRuleValues(t *testing.T) {
	t.Parallel()
	doc := &evidence.Document{UploadID: uuid.New(), ExternalFileID: "slip", SlotType: "salary_statement", Pages: []evidence.Page{{Number: 1,
		Text: "Gehaltsabrechnung Oktober 2026\nMusterbau GmbH\nGesamtbrutto 4.290,00 EUR\nNettoverdienst 2.740,97 EUR", Chars: 90}}}
	in := Input{Language: "de", Date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
		Fields:    []FieldSpec{{ID: "net_monthly_income", Key: "net_monthly_income", Label: "Netto", Builtin: true, Threshold: 0.5}},
		Documents: []*evidence.Document{doc}}
	res, err := NewWithModel(nil, slog.New(slog.DiscardHandler)).Evaluate(context.Background(), in, func(string, int) error { return nil })
	require.NoError(t, err)
	require.Equal(t, map[string]string{"amount": "2740.97", "currency": "EUR"}, res.Fields[0].Value)
	require.Equal(t, SourceRules, res.Fields[0].Source)
}
