package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// fakeModel is an OpenAI-compatible chat-completions server: for a check it cites the
// given excerpt, for a field it returns value with the same citation.
func fakeModel(t *testing.T, upload uuid.UUID, excerpt, status, value string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		cite := fmt.Sprintf(`[{"upload_id": %q, "page": 1, "excerpt": %q}]`, upload, excerpt)
		content := fmt.Sprintf(`{"status": %q, "confidence": 0.9, "reasoning": "Zweitjob laut Gehaltsabrechnung.", "citations": %s}`, status, cite)
		if strings.Contains(string(body), `"found"`) {
			content = fmt.Sprintf(`{"found": true, "value": %q, "confidence": 0.95, "citations": %s}`, value, cite)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func customInput(doc *evidence.Document) Input {
	return Input{
		Language: "de", Date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Template: "personal_loan",
		Checks:    []CheckSpec{{ID: uuid.NewString(), Key: "second_job", Title: "Second job", Prompt: "Does the applicant have a second job? If yes: open."}},
		Fields:    []FieldSpec{{ID: uuid.NewString(), Key: "bonus", Label: "Bonus", Prompt: "The yearly bonus", ValueFormat: "currency", Threshold: 0.8}},
		Documents: []*evidence.Document{doc},
	}
}

// Custom checks and fields go to the configured model; what it cites is verified and
// its values are parsed into the contract's shapes; a hallucinated citation leaves the
// verdict open.
func TestCustomItemsThroughModel(t *testing.T) {
	t.Parallel()
	page := "Gehaltsabrechnung Oktober 2026\nNebentätigkeit: Kellner, Café Sonne\nBonus jährlich 3.250,00 EUR"
	doc := &evidence.Document{UploadID: uuid.New(), ExternalFileID: "payslip", Pages: []evidence.Page{{Number: 1, Text: page, Chars: 80}}}
	log := slog.New(slog.DiscardHandler)
	noop := func(string, int) error { return nil }

	srv := fakeModel(t, doc.UploadID, "Bonus jährlich 3.250,00 EUR", "open", "3.250,00 EUR")
	eng, err := New(LLMConfig{BaseURL: srv.URL, Model: "m", Timeout: 5 * time.Second, Concurrency: 2, MaxRetries: 1, MaxContextChars: 10000}, log)
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Evaluate(context.Background(), customInput(doc), noop)
	if err != nil {
		t.Fatal(err)
	}
	chk, field := res.Checks[0], res.Fields[0]
	if chk.Status != "open" || len(chk.Citations) != 1 || !doc.Verify(chk.Citations[0]) || chk.ReasoningSummary == "" {
		t.Errorf("custom check: %+v", chk)
	}
	money, _ := field.Value.(map[string]string)
	if field.Status != "succeeded" || money["amount"] != "3250.00" || money["currency"] != "EUR" || len(field.Citations) != 1 {
		t.Errorf("custom field: %+v", field)
	}

	// A model that cites text which is not on the page: the citation is dropped and the
	// verdict is open, whatever the model said.
	liar := fakeModel(t, doc.UploadID, "Pfändung über 10.000 EUR", "critical", "99.999,00 EUR")
	eng, err = New(LLMConfig{BaseURL: liar.URL, Model: "m", Timeout: 5 * time.Second, Concurrency: 2, MaxRetries: 1, MaxContextChars: 10000}, log)
	if err != nil {
		t.Fatal(err)
	}
	res, err = eng.Evaluate(context.Background(), customInput(doc), noop)
	if err != nil {
		t.Fatal(err)
	}
	chk, field = res.Checks[0], res.Fields[0]
	if chk.Status != "open" || len(chk.Citations) != 0 || chk.Confidence > 0.3 {
		t.Errorf("hallucinated check: %+v", chk)
	}
	if field.Status == "succeeded" || len(field.Citations) != 0 {
		t.Errorf("hallucinated field: %+v", field)
	}

	// No model: failed, with the reason, never a guess.
	res, err = NewWithModel(nil, log).Evaluate(context.Background(), customInput(doc), noop)
	if err != nil {
		t.Fatal(err)
	}
	if res.Checks[0].Status != "failed" || !strings.Contains(res.Checks[0].ReasoningSummary, "Sprachmodell") || res.Fields[0].Status != "failed" {
		t.Errorf("without a model: %+v %+v", res.Checks[0], res.Fields[0])
	}

	// No model, but the page prints the field's label with a value after it: read by
	// the rules from the page's label–value pairs, cited, below a sure confidence.
	word := func(text string, x0, x1 float64) evidence.Word {
		return evidence.Word{Text: text, Conf: 1, Block: -1, Box: evidence.Box{X0: x0, Y0: 0.1, X1: x1, Y1: 0.12}}
	}
	labelled := &evidence.Document{UploadID: uuid.New(), ExternalFileID: "payslip", Pages: []evidence.Page{{Number: 1, Text: "Bonus:        3.250,00 EUR", Chars: 26,
		Words: []evidence.Word{word("Bonus:", 0.05, 0.11), word("3.250,00", 0.25, 0.33), word("EUR", 0.34, 0.37)}}}}
	res, err = NewWithModel(nil, log).Evaluate(context.Background(), customInput(labelled), noop)
	if err != nil {
		t.Fatal(err)
	}
	field = res.Fields[0]
	money, _ = field.Value.(map[string]string)
	if field.Status != "low_confidence" || field.Source != SourceRules || money["amount"] != "3250.00" || money["currency"] != "EUR" ||
		len(field.Citations) != 1 || !labelled.Verify(field.Citations[0]) {
		t.Errorf("labelled without a model: %+v", field)
	}
}

// A model server that is down makes the custom items failed, not the evaluation.
func TestCustomItemsModelDown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	t.Cleanup(srv.Close)
	doc := &evidence.Document{UploadID: uuid.New(), ExternalFileID: "p", Pages: []evidence.Page{{Number: 1, Text: strings.Repeat("Gehalt ", 20), Chars: 120}}}
	eng, err := New(LLMConfig{BaseURL: srv.URL, Model: "m", Timeout: time.Second, Concurrency: 1, MaxRetries: 1, MaxContextChars: 1000}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Evaluate(context.Background(), customInput(doc), func(string, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Checks[0].Status != "failed" || res.Fields[0].Status != "failed" {
		t.Errorf("model down: %+v %+v", res.Checks[0], res.Fields[0])
	}
}

// A progress step that fails (the evaluation was canceled) stops the engine.
func TestEvaluateStopsWhenStepFails(t *testing.T) {
	t.Parallel()
	doc := &evidence.Document{UploadID: uuid.New(), Pages: []evidence.Page{{Number: 1, Text: strings.Repeat("Kontoauszug ", 10), Chars: 100}}}
	stop := fmt.Errorf("canceled")
	calls := 0
	_, err := NewWithModel(nil, slog.New(slog.DiscardHandler)).Evaluate(context.Background(), customInput(doc), func(string, int) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	var se *StepError
	if !errors.As(err, &se) || se.Err != stop || calls != 2 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}
