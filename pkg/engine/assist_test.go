package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// assistServer is an OpenAI-compatible chat-completions endpoint that answers every
// request with the next of its contents (repeating the last) and records the
// requests' user messages.
type assistServer struct {
	mu       sync.Mutex
	contents []string
	asked    []string
}

func (s *assistServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(raw, &req)
	s.mu.Lock()
	n := len(s.asked)
	s.asked = append(s.asked, req.Messages[len(req.Messages)-1].Content)
	content := s.contents[min(n, len(s.contents)-1)]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
	})
}

func (s *assistServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

type assistBundle struct {
	server *assistServer
	doc    *evidence.Document
	docs   AssistDocs
}

// setupAssist starts the fake server with the model's answers and returns a real
// pkg/engine/llm client for it, and a payslip whose layout the rules do not know.
func setupAssist(t *testing.T, answers ...func(d *evidence.Document) string) (Model, *assistBundle) {
	t.Helper()
	d := &evidence.Document{UploadID: uuid.New(), FileID: uuid.New(), ExternalFileID: "ext-pay", Filename: "pay.pdf", Pages: []evidence.Page{
		{Number: 1, Text: "ACME Payroll Services\nEarnings statement for period 2026-09\nEmployee: Jane Q. Public\nTotal earnings this period   USD 5,120.40\nNet pay   USD 3,804.12"},
		{Number: 2, Text: "Passport No. C01X00T47\nDate of expiry 14 MAR 2031"},
	}}
	server := &assistServer{}
	for _, a := range answers {
		server.contents = append(server.contents, a(d))
	}
	srv := httptest.NewServer(server)
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(), MaxRetries: -1})
	require.NoError(t, err)
	return c, &assistBundle{server: server, doc: d, docs: AssistDocs{
		Language: "en", Date: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Documents: []*evidence.Document{d},
		Types: map[uuid.UUID][]string{d.UploadID: {"salary_statement"}},
	}}
}

func checkAnswer(status string, conf float64, reasoning string, page int, excerpt string) func(*evidence.Document) string {
	return func(d *evidence.Document) string {
		b, _ := json.Marshal(map[string]any{"status": status, "confidence": conf, "reasoning": reasoning, "citations": []any{
			map[string]any{"upload_id": d.UploadID.String(), "page": page, "excerpt": excerpt},
		}})
		return string(b)
	}
}

func fieldValue(found bool, value string, conf float64, page int, excerpt string) func(*evidence.Document) string {
	return func(d *evidence.Document) string {
		b, _ := json.Marshal(map[string]any{"found": found, "value": value, "confidence": conf, "citations": []any{
			map[string]any{"upload_id": d.UploadID.String(), "page": page, "excerpt": excerpt},
		}})
		return string(b)
	}
}

var grossIncome = FieldSpec{ID: "gross_monthly_income", Key: "gross_monthly_income", Label: "Gross monthly income", ValueFormat: "currency", Builtin: true, Threshold: 0.5}

func notFound(f FieldSpec) ResultField {
	return ResultField{DataFieldID: f.ID, Key: f.Key, Label: f.Label, Status: FieldNotFound, Citations: []evidence.Citation{}}
}

func TestAssistFieldNotFoundTakesVerifiedValueWithCappedConfidence(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, fieldValue(true, "USD 5,120.40", 0.97, 1, "Total earnings this period USD 5,120.40"))

	got, source, err := assistField(context.Background(), m, grossIncome, bundle.docs, notFound(grossIncome))
	require.NoError(t, err)
	require.Equal(t, SourceModel, source)
	require.Equal(t, map[string]string{"amount": "5120.40", "currency": "USD"}, got.Value, "re-parsed, in the contract's shape")
	require.InDelta(t, CapAssisted, got.Confidence, 1e-9)
	require.Equal(t, FieldSucceeded, got.Status, "above the item's threshold of 0.5")
	require.Equal(t, []evidence.Citation{bundle.doc.Cite(1, "Total earnings this period USD 5,120.40")}, got.Citations)
	for _, c := range got.Citations {
		require.True(t, bundle.doc.Verify(c))
	}
	asked := bundle.server.requests()
	require.Len(t, asked, 1)
	require.Contains(t, asked[0], "Gesamtbrutto", "the builtin field's instruction goes to the model")

	// A demanding threshold leaves the capped value low_confidence.
	strict := grossIncome
	strict.Threshold = 0.8
	m, bundle = setupAssist(t, fieldValue(true, "USD 5,120.40", 0.97, 1, "Total earnings this period USD 5,120.40"))
	got, source, err = assistField(context.Background(), m, strict, bundle.docs, notFound(strict))
	require.NoError(t, err)
	require.Equal(t, SourceModel, source)
	require.Equal(t, FieldLowConfidence, got.Status)
}

func TestAssistFieldHallucinatedCitationIsDropped(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, fieldValue(true, "USD 6,000.00", 0.99, 1, "Gross pay USD 6,000.00"))

	got, source, err := assistField(context.Background(), m, grossIncome, bundle.docs, notFound(grossIncome))
	require.NoError(t, err)
	require.Empty(t, source, "no value, no source")
	require.Equal(t, FieldNotFound, got.Status, "an unverified value is never taken")
	require.Nil(t, got.Value)
	require.Empty(t, got.Citations)
}

func TestAssistFieldValueNotInItsExcerptIsNotTaken(t *testing.T) {
	t.Parallel()

	// The excerpt is on the page, but the value is not in it.
	m, bundle := setupAssist(t, fieldValue(true, "USD 6,000.00", 0.99, 1, "Total earnings this period USD 5,120.40"))

	got, source, err := assistField(context.Background(), m, grossIncome, bundle.docs, notFound(grossIncome))
	require.NoError(t, err)
	require.Empty(t, source)
	require.Equal(t, FieldNotFound, got.Status)
}

func TestAssistFieldDisagreementIsLowConfidence(t *testing.T) {
	t.Parallel()

	rule := ResultField{
		DataFieldID: grossIncome.ID, Key: grossIncome.Key, Label: grossIncome.Label, Status: FieldLowConfidence,
		Value: map[string]string{"amount": "3804.12", "currency": "USD"}, Confidence: 0.45,
	}
	m, bundle := setupAssist(t, fieldValue(true, "USD 5,120.40", 0.97, 1, "Total earnings this period USD 5,120.40"))
	rule.Citations = []evidence.Citation{bundle.doc.Cite(1, "Net pay USD 3,804.12")}

	got, source, err := assistField(context.Background(), m, grossIncome, bundle.docs, rule)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source, "the model never overrides the rule")
	require.Equal(t, FieldLowConfidence, got.Status)
	require.Equal(t, rule.Value, got.Value)
	require.Equal(t, rule.Citations, got.Citations)
	require.InDelta(t, CapDisagreement, got.Confidence, 1e-9)

	// Agreement changes nothing.
	rule.Value = map[string]string{"amount": "5120.40", "currency": "USD"}
	m, bundle = setupAssist(t, fieldValue(true, "USD 5,120.40", 0.97, 1, "Total earnings this period USD 5,120.40"))
	got, source, err = assistField(context.Background(), m, grossIncome, bundle.docs, rule)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source)
	require.Equal(t, rule, got)
	require.Len(t, bundle.server.requests(), 1)
}

func TestAssistFieldReadByTheRulesIsNotAsked(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, fieldValue(true, "USD 1.00", 0.97, 1, "USD 1.00"))
	rule := ResultField{Key: grossIncome.Key, Status: FieldSucceeded, Value: map[string]string{"amount": "5120.40", "currency": "USD"}, Confidence: 0.9}

	got, source, err := assistField(context.Background(), m, grossIncome, bundle.docs, rule)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source)
	require.Equal(t, rule, got)
	require.Empty(t, bundle.server.requests())

	// Without a model nothing changes either.
	got, source, err = assistField(context.Background(), nil, grossIncome, bundle.docs, notFound(grossIncome))
	require.NoError(t, err)
	require.Empty(t, source)
	require.Equal(t, FieldNotFound, got.Status)
}

func TestAssistFieldsGoInOneBatch(t *testing.T) {
	t.Parallel()

	net := FieldSpec{ID: "net_monthly_income", Key: "net_monthly_income", Label: "Net monthly income", Builtin: true, Threshold: 0.5}
	expiry := FieldSpec{ID: "id_document_expiry_date", Key: "id_document_expiry_date", Label: "ID document expiry date", Builtin: true, Threshold: 0.5}
	employer := FieldSpec{ID: "employer_name", Key: "employer_name", Label: "Employer name", Builtin: true, Threshold: 0.5}
	batch := func(d *evidence.Document) string {
		item := func(page int, excerpt, printed string) map[string]any {
			return map[string]any{"found": true, "value": printed, "confidence": 0.9, "citations": []any{
				map[string]any{"upload_id": d.UploadID.String(), "page": page, "excerpt": excerpt}}}
		}
		b, _ := json.Marshal(map[string]any{
			"net_monthly_income":      item(1, "Net pay USD 3,804.12", "USD 3,804.12"),
			"id_document_expiry_date": item(2, "Date of expiry 14 MAR 2031", "14 MAR 2031"),
		})
		return string(b)
	}
	m, bundle := setupAssist(t, batch)
	specs := []FieldSpec{net, expiry, employer}
	rules := []ResultField{notFound(net), notFound(expiry), {Key: employer.Key, Status: FieldSucceeded, Value: "ACME Payroll Services", Confidence: 0.9}}

	got, sources, err := assistFields(context.Background(), m, specs, bundle.docs, rules)
	require.NoError(t, err)
	require.Equal(t, []string{SourceModel, SourceModel, SourceRules}, sources)
	require.Equal(t, map[string]string{"amount": "3804.12", "currency": "USD"}, got[0].Value, "the catalog's format when the spec has none")
	require.Equal(t, "2031-03-14", got[1].Value)
	require.Equal(t, rules[2], got[2])
	asked := bundle.server.requests()
	require.Len(t, asked, 1, "both fields in one request")
	require.Contains(t, asked[0], "id=net_monthly_income")
	require.Contains(t, asked[0], "id=id_document_expiry_date")
	require.NotContains(t, asked[0], "id=employer_name")
}

var idValid = CheckSpec{ID: "id_document_valid", Key: "id_document_valid", Title: "ID document valid", Description: "The ID document is valid on the evaluation date.", Builtin: true}

func unreadOpen(lang string) ResultCheck {
	return ResultCheck{CheckID: idValid.ID, Key: idValid.Key, Title: idValid.Title, Status: Open, Confidence: 0.5,
		Citations: []evidence.Citation{}, ReasoningSummary: say(lang, "The expiry date could not be read.", "Das Ablaufdatum konnte nicht gelesen werden.")}
}

func TestAssistCheckOpenForLackOfReadingTakesTheModelsVerdict(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, checkAnswer("fulfilled", 0.95, "Der Reisepass ist bis zum 14.03.2031 gültig.", 2, "Date of expiry 14 MAR 2031"))
	bundle.docs.Language = "de"

	got, source, err := assistCheck(context.Background(), m, CheckAssist{Spec: idValid, Rule: unreadOpen("de"), Unread: true}, bundle.docs)
	require.NoError(t, err)
	require.Equal(t, SourceModel, source)
	require.Equal(t, Fulfilled, got.Status)
	require.InDelta(t, CapAssisted, got.Confidence, 1e-9)
	require.True(t, strings.HasPrefix(got.ReasoningSummary, "Vom Modell gelesen: Der Reisepass ist bis zum 14.03.2031 gültig."), got.ReasoningSummary)
	require.Contains(t, got.ReasoningSummary, "Die Regeln konnten es nicht lesen: Das Ablaufdatum konnte nicht gelesen werden.")
	require.Equal(t, []evidence.Citation{bundle.doc.Cite(2, "Date of expiry 14 MAR 2031")}, got.Citations)
	asked := bundle.server.requests()
	require.Len(t, asked, 1)
	require.Contains(t, asked[0], "The evaluation date is 2026-11-24.")

	m, bundle = setupAssist(t, checkAnswer("fulfilled", 0.95, "The passport is valid until 14 March 2031.", 2, "Date of expiry 14 MAR 2031"))
	got, _, err = assistCheck(context.Background(), m, CheckAssist{Spec: idValid, Rule: unreadOpen("en"), Unread: true}, bundle.docs)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(got.ReasoningSummary, "Read by the model: The passport is valid"), got.ReasoningSummary)
}

func TestAssistCheckDisagreementIsOpen(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, checkAnswer("critical", 0.9, "The passport has expired.", 2, "Date of expiry 14 MAR 2031"))

	got, source, err := assistCheck(context.Background(), m, CheckAssist{Spec: idValid, Rule: unreadOpen("en"), Unread: true, Lean: Fulfilled}, bundle.docs)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source)
	require.Equal(t, Open, got.Status)
	require.LessOrEqual(t, got.Confidence, CapDisagreement)
	require.Contains(t, got.ReasoningSummary, "The rules point to fulfilled, but the model read the documents as critical: The passport has expired.")
}

func TestAssistCheckHallucinatedCitationKeepsItOpen(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, checkAnswer("fulfilled", 0.99, "Valid until 2035.", 2, "Date of expiry 01 JAN 2035"))

	got, source, err := assistCheck(context.Background(), m, CheckAssist{Spec: idValid, Rule: unreadOpen("en"), Unread: true}, bundle.docs)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source)
	require.Equal(t, Open, got.Status)
	require.InDelta(t, 0.5, got.Confidence, 1e-9)
	require.Empty(t, got.Citations, "the invented excerpt is dropped")
	require.True(t, strings.HasPrefix(got.ReasoningSummary, "The expiry date could not be read. The model could not decide it either:"), got.ReasoningSummary)
}

func TestAssistCheckNotApplicableFromTheModelKeepsItOpen(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, checkAnswer("not_applicable", 0.9, "No ID needed.", 1, "ACME Payroll Services"))

	got, source, err := assistCheck(context.Background(), m, CheckAssist{Spec: idValid, Rule: unreadOpen("en"), Unread: true}, bundle.docs)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source)
	require.Equal(t, Open, got.Status)
}

func TestAssistCheckOpenForAFindingIsNotAsked(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, checkAnswer("fulfilled", 0.9, "Fine.", 2, "Date of expiry 14 MAR 2031"))
	rule := unreadOpen("en")

	for _, it := range []CheckAssist{
		{Spec: idValid, Rule: rule, Unread: false},
		{Spec: idValid, Rule: ResultCheck{Key: idValid.Key, Status: Critical, Confidence: 0.9}, Unread: true},
	} {
		got, source, err := assistCheck(context.Background(), m, it, bundle.docs)
		require.NoError(t, err)
		require.Equal(t, SourceRules, source)
		require.Equal(t, it.Rule, got)
	}
	require.Empty(t, bundle.server.requests())
}

func TestAssistModelFailureKeepsTheRule(t *testing.T) {
	t.Parallel()

	m, bundle := setupAssist(t, func(*evidence.Document) string { return "no json at all" })

	got, source, err := assistCheck(context.Background(), m, CheckAssist{Spec: idValid, Rule: unreadOpen("en"), Unread: true}, bundle.docs)
	require.NoError(t, err)
	require.Equal(t, SourceRules, source)
	require.Equal(t, unreadOpen("en"), got)

	f, source, err := assistField(context.Background(), m, grossIncome, bundle.docs, notFound(grossIncome))
	require.NoError(t, err)
	require.Empty(t, source)
	require.Equal(t, notFound(grossIncome), f)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = assistField(ctx, m, grossIncome, bundle.docs, notFound(grossIncome))
	require.ErrorIs(t, err, context.Canceled)
}

// assistField is assistFields for one field (the tests ask one at a time).
func assistField(ctx context.Context, m Model, f FieldSpec, docs AssistDocs, rule ResultField) (ResultField, string, error) {
	out, sources, err := assistFields(ctx, m, []FieldSpec{f}, docs, []ResultField{rule})
	if err != nil {
		return rule, valueSources([]ResultField{rule}, []string{SourceRules})[0], err
	}
	return out[0], sources[0], nil
}

// assistCheck is assistChecks for one check (the tests ask one at a time).
func assistCheck(ctx context.Context, m Model, it CheckAssist, docs AssistDocs) (ResultCheck, string, error) {
	out, sources, err := assistChecks(ctx, m, []CheckAssist{it}, docs)
	if err != nil {
		return it.Rule, SourceRules, err
	}
	return out[0], sources[0], nil
}
