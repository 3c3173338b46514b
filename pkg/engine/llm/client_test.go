package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestLLMTemperatureRejectedIsRetriedWithout(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
	c, bundle := setup(t, nil,
		status(http.StatusBadRequest, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`),
		good)

	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)
	reqs := bundle.fake.received()
	require.Len(t, reqs, 2)
	require.Contains(t, reqs[0].raw, `"temperature":0`)
	require.NotContains(t, reqs[1].raw, `"temperature"`)
	require.Equal(t, "json_schema", reqs[1].body.ResponseFormat.Type, "only the temperature is left out")

	// The client remembers.
	_, err = c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	reqs = bundle.fake.received()
	require.Len(t, reqs, 3)
	require.NotContains(t, reqs[2].raw, `"temperature"`)
}

func TestLLMOmitTemperatureSetting(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	c, bundle := setup(t, func(cfg *Config) { cfg.OmitTemperature = true },
		answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.NotContains(t, bundle.fake.received()[0].raw, `"temperature"`)
}

func TestLLMTemperatureRejectedTwiceIsAnError(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1)
	c, bundle := setup(t, nil, status(http.StatusBadRequest, `{"error":{"message":"temperature is not supported","param":"temperature"}}`))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Len(t, bundle.fake.received(), 2, "one fallback, then the 400 is final")
}

func TestLLMMaxCompletionTokensRejectedFallsBackToMaxTokens(t *testing.T) {
	t.Parallel()

	for name, rejection := range map[string]responder{
		"400": status(http.StatusBadRequest, `{"error":{"message":"Unrecognized request argument supplied: max_completion_tokens","type":"invalid_request_error"}}`),
		"422": status(http.StatusUnprocessableEntity, `{"detail":[{"type":"extra_forbidden","loc":["body","max_completion_tokens"],"msg":"Extra inputs are not permitted"}]}`),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := document("gehalt.pdf", salaryPage1, salaryPage2)
			good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
			c, bundle := setup(t, func(cfg *Config) { cfg.MaxOutputTokens = 2000 }, rejection, good)

			_, err := c.Check(context.Background(), secondJobCheck(d))
			require.NoError(t, err)
			_, err = c.Check(context.Background(), secondJobCheck(d))
			require.NoError(t, err)

			reqs := bundle.fake.received()
			require.Len(t, reqs, 3)
			require.Equal(t, 2000, reqs[0].body.MaxCompletionTokens)
			require.Zero(t, reqs[0].body.MaxTokens)
			for _, r := range reqs[1:] {
				require.Zero(t, r.body.MaxCompletionTokens)
				require.NotContains(t, r.raw, "max_completion_tokens")
				require.Equal(t, 2000, r.body.MaxTokens)
				require.Contains(t, r.raw, `"temperature":0`, "the temperature was not the problem")
			}
		})
	}
}

func TestLLMSystemRoleRejectedMovesTheRulesIntoTheUserMessage(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
	c, bundle := setup(t, nil,
		status(http.StatusBadRequest, `{"error":{"message":"Unsupported value: 'messages[0].role' does not support 'system' with this model.","param":"messages[0].role"}}`),
		good)

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	reqs := bundle.fake.received()
	require.Len(t, reqs, 2)
	require.Equal(t, "system", reqs[0].body.Messages[0].Role)
	require.Len(t, reqs[1].body.Messages, 1)
	require.Equal(t, "user", reqs[1].body.Messages[0].Role)
	content := reqs[1].body.Messages[0].Content
	require.True(t, strings.HasPrefix(content, systemPrompt), "the rules still come first")
	require.Less(t, strings.Index(content, "<<<DOCUMENT "), strings.Index(content, taskStart))
	require.Contains(t, reqs[1].raw, `"temperature":0`, "only the system role was the problem")
}

func TestLLMOutputLimitTooLargeIsDropped(t *testing.T) {
	t.Parallel()

	for name, rejection := range map[string]string{
		"model limit": `{"error":{"message":"max_tokens is too large: 16384. This model supports at most 4096 completion tokens, whereas you provided 16384.","type":"invalid_request_error","param":"max_tokens"}}`,
		"context":     `{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 20000 tokens (3616 in the messages, 16384 in the completion).","code":400}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := document("gehalt.pdf", salaryPage1, salaryPage2)
			good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
			c, bundle := setup(t, nil, status(http.StatusBadRequest, rejection), good)

			_, err := c.Check(context.Background(), secondJobCheck(d))
			require.NoError(t, err)
			_, err = c.Check(context.Background(), secondJobCheck(d))
			require.NoError(t, err)
			reqs := bundle.fake.received()
			require.Len(t, reqs, 3)
			require.Equal(t, DefaultMaxOutputTokens, reqs[0].body.MaxCompletionTokens)
			for _, r := range reqs[1:] {
				require.NotContains(t, r.raw, "max_completion_tokens")
				require.NotContains(t, r.raw, "max_tokens")
			}
		})
	}
}

func TestLLMNoOutputLimit(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	c, bundle := setup(t, func(cfg *Config) { cfg.MaxOutputTokens = -1 },
		answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	raw := bundle.fake.received()[0].raw
	require.NotContains(t, raw, "max_completion_tokens")
	require.NotContains(t, raw, "max_tokens")
}

func TestLLMAzureHeadersAndURL(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	good := answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone")))
	c, bundle := setup(t, func(cfg *Config) {
		cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/v1") + "/"
		cfg.Azure = true
		cfg.Model = "gpt4o-prod"
	}, good)

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	r := bundle.fake.received()[0]
	require.Equal(t, "/openai/deployments/gpt4o-prod/chat/completions", r.path)
	require.Equal(t, "api-version="+DefaultAzureAPIVersion, r.query)
	require.Equal(t, "sk-test-secret-key", r.header.Get("api-key"))
	require.Empty(t, r.header.Get("Authorization"), "Azure's api-key replaces the bearer token")

	for _, tc := range []struct {
		base, version, want string
	}{
		{"https://res.openai.azure.com", "", "https://res.openai.azure.com/openai/deployments/dep/chat/completions?api-version=" + DefaultAzureAPIVersion},
		{"https://res.openai.azure.com/", "2025-01-01-preview", "https://res.openai.azure.com/openai/deployments/dep/chat/completions?api-version=2025-01-01-preview"},
		{"https://res.openai.azure.com/openai/deployments/other?api-version=2024-06-01", "", "https://res.openai.azure.com/openai/deployments/other/chat/completions?api-version=2024-06-01"},
		{"https://res.openai.azure.com/openai/v1/", "", "https://res.openai.azure.com/openai/v1/chat/completions"},
	} {
		c, err := New(Config{BaseURL: tc.base, Model: "dep", Azure: true, AzureAPIVersion: tc.version})
		require.NoError(t, err)
		require.Equal(t, tc.want, c.endpoint, tc.base)
	}
}

// The shared rules and the documents come before anything that differs between the
// requests of one evaluation, so the requests share their prefix.
func TestLLMDocumentsComeBeforeInstructions(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	c, bundle := setup(t, nil,
		answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))),
		answer(fieldJSON(true, "Müller GmbH", 0.9, cite(d, 1, "Arbeitgeber: Müller GmbH"))))

	_, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	_, err = c.Field(context.Background(), FieldRequest{Key: "employer", DisplayName: "Employer", Prompt: "Who employs the applicant?", Language: "de", Documents: []*evidence.Document{d}, Types: secondJobCheck(d).Types})
	require.NoError(t, err)

	reqs := bundle.fake.received()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		require.Len(t, r.body.Messages, 2)
		user := r.user()
		docAt := strings.Index(user, "<<<DOCUMENT ")
		taskAt := strings.Index(user, "\n"+taskStart+"\n")
		instrAt := strings.Index(user, instructionStart)
		require.GreaterOrEqual(t, docAt, 0)
		require.Greater(t, taskAt, docAt)
		require.Greater(t, instrAt, taskAt)
		require.NotContains(t, r.system(), instructionStart+"\n", "no instruction in the shared system message")
	}
	require.Equal(t, reqs[0].system(), reqs[1].system())
	require.Equal(t, reqs[0].documents(), reqs[1].documents(), "a check and a field over the same documents share the prefix")
	require.NotEqual(t, reqs[0].task(), reqs[1].task())
}

func TestLLMBatchOfChecksWithOneMalformedItem(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	types := map[uuid.UUID][]string{d.UploadID: {"salary_statement"}}
	reqs := []CheckRequest{
		{Key: "second_job", Title: "Second job", Prompt: "Second job? If yes, open.", Language: "en", Documents: []*evidence.Document{d}, Types: types},
		{Key: "employer_known", Title: "Employer", Prompt: "Is the employer named?", Language: "en", Documents: []*evidence.Document{d}, Types: types},
		{Key: "invented", Title: "Invented", Prompt: "Anything invented?", Language: "en", Documents: []*evidence.Document{d}, Types: types},
	}
	batch, _ := json.Marshal(map[string]any{
		"second_job":     json.RawMessage(checkJSON("open", 0.9, "Waiter job.", cite(d, 2, "Kellner im Gasthaus Krone"))),
		"employer_known": map[string]any{"status": 7, "confidence": "x"},
		"invented":       json.RawMessage(checkJSON("fulfilled", 0.95, "All good.", cite(d, 1, "Arbeitgeber: Schmidt AG"))),
	})
	c, bundle := setup(t, nil, answer(string(batch)), answer("not json"))

	out := c.Checks(context.Background(), reqs)
	require.Len(t, out, 3)

	require.NoError(t, out[0].Err)
	require.Equal(t, StatusOpen, out[0].Outcome.Status)
	require.InDelta(t, 0.9, out[0].Outcome.Confidence, 1e-9)
	require.Equal(t, []evidence.Citation{d.Cite(2, "Kellner im Gasthaus Krone")}, out[0].Outcome.Citations)

	require.ErrorIs(t, out[1].Err, ErrMalformedOutput, "the malformed item fails alone, after being asked alone")

	require.NoError(t, out[2].Err)
	require.Equal(t, StatusOpen, out[2].Outcome.Status, "a verdict whose only citation is invented opens")
	require.Equal(t, 1, out[2].Outcome.CitationsDropped)
	require.Empty(t, out[2].Outcome.Citations)

	recs := bundle.fake.received()
	require.Len(t, recs, 1+3, "one batch, then the malformed item alone with its retries")
	first := recs[0]
	require.Equal(t, "check_verdicts", first.body.ResponseFormat.JSONSchema.Name)
	require.Equal(t, []any{"second_job", "employer_known", "invented"}, first.body.ResponseFormat.JSONSchema.Schema["required"])
	task := first.task()
	require.Contains(t, task, "<<<REVIEWER INSTRUCTION id=second_job>>>\nCheck key: second_job")
	require.Contains(t, task, "<<<REVIEWER INSTRUCTION id=invented>>>")
	require.Equal(t, 1, strings.Count(first.documents(), "<<<DOCUMENT "), "the documents go out once for the whole batch")
	require.Contains(t, recs[1].task(), "Check key: employer_known")
	require.NotContains(t, recs[1].task(), "second_job")
}

func TestLLMBatchOfFieldsIsVerifiedAndReparsedPerItem(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", "Gesamtbrutto 4.100,00 EUR\nEintritt 01.04.2019", salaryPage2)
	other := document("konto.pdf", "Kontostand 1.234,56 EUR")
	docs := []*evidence.Document{d}
	reqs := []FieldRequest{
		{Key: "gross", DisplayName: "Gross", Prompt: "Gross pay", ValueFormat: FormatCurrency, Documents: docs},
		{Key: "start", DisplayName: "Start", Prompt: "Start date", ValueFormat: FormatDate, Documents: docs},
		{Key: "bogus", DisplayName: "Bogus", Prompt: "x", ValueFormat: "furlongs", Documents: docs},
		{Key: "net", DisplayName: "Net", Prompt: "Net pay", ValueFormat: FormatCurrency, Documents: docs},
		{Key: "balance", DisplayName: "Balance", Prompt: "Balance", ValueFormat: FormatCurrency, Documents: []*evidence.Document{other}},
	}
	batch, _ := json.Marshal(map[string]any{
		"gross": json.RawMessage(fieldJSON(true, "4.100,00 EUR", 0.9, cite(d, 1, "Gesamtbrutto 4.100,00 EUR"))),
		"start": json.RawMessage(fieldJSON(true, "01.04.2019", 0.9, cite(d, 1, "Eintritt 01.04.2019 bei Firma X"))),
		"net":   map[string]any{"found": true, "value": map[string]any{"amount": 1}},
	})
	c, bundle := setup(t, nil,
		answer(string(batch)),
		answer(fieldJSON(true, "3.250,00 €", 0.8, cite(d, 2, "Auszahlungsbetrag 3.250,00 €"))),
		answer(fieldJSON(true, "1.234,56 EUR", 0.9, cite(other, 1, "Kontostand 1.234,56 EUR"))))

	out := c.Fields(context.Background(), reqs)
	require.Len(t, out, 5)
	require.NoError(t, out[0].Err)
	require.Equal(t, parse.Money{Cents: 410000, Currency: "EUR"}, out[0].Outcome.Value)
	require.InDelta(t, 0.9, out[0].Outcome.Confidence, 1e-9)

	require.NoError(t, out[1].Err)
	require.NotNil(t, out[1].Outcome.Value)
	require.Empty(t, out[1].Outcome.Citations, "the excerpt is not on the page")
	require.LessOrEqual(t, out[1].Outcome.Confidence, CapNoEvidence)

	require.ErrorContains(t, out[2].Err, "unknown value format")

	require.NoError(t, out[3].Err, "asked again alone")
	require.Equal(t, parse.Money{Cents: 325000, Currency: "EUR"}, out[3].Outcome.Value)

	require.NoError(t, out[4].Err)
	require.Equal(t, parse.Money{Cents: 123456, Currency: "EUR"}, out[4].Outcome.Value)

	recs := bundle.fake.received()
	require.Len(t, recs, 3, "one batch, the malformed item alone, the other documents alone")
	require.Equal(t, "field_values", recs[0].body.ResponseFormat.JSONSchema.Name)
	require.NotContains(t, recs[0].task(), "id=bogus")
	require.Contains(t, recs[2].documents(), "Kontostand")
	require.NotContains(t, recs[2].documents(), "Gesamtbrutto")
}

func TestLLMBatchNeverAnsweredAsAWholeFallsBackToSingleRequests(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	a, b := secondJobCheck(d), secondJobCheck(d)
	b.Key = "employer"
	single := checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))
	c, bundle := setup(t, nil, answer("I cannot do several at once."), answer("still no"), answer("no"), answer(single))

	out := c.Checks(context.Background(), []CheckRequest{a, b})
	for _, r := range out {
		require.NoError(t, r.Err)
		require.Equal(t, StatusOpen, r.Outcome.Status)
		require.Len(t, r.Outcome.Citations, 1)
	}
	require.Len(t, bundle.fake.received(), 3+2, "the batch with its retries, then each alone")

	// A server error is not multiplied into single requests.
	c, bundle = setup(t, nil, status(http.StatusUnauthorized, `{"error":{"message":"bad key"}}`))
	out = c.Checks(context.Background(), []CheckRequest{a, b})
	for _, r := range out {
		var apiErr *APIError
		require.ErrorAs(t, r.Err, &apiErr)
	}
	require.Len(t, bundle.fake.received(), 1)
}

func TestLLMBatchSizeSplitsRequests(t *testing.T) {
	t.Parallel()

	require.Equal(t, [][]int{{0, 2}, {4}, {1, 3}}, batches([]string{"a", "b", "a", "b", "a"}, 2))
	require.Equal(t, [][]int{{0}, {1}}, batches([]string{"a", "a"}, 0))
	require.Equal(t, []string{"second_job", "item_2", "item_3", "a_b"}, itemIDs([]string{"Second-Job", "", "second_job", "a b"}))
}

func TestLLMBatchesSplitByLanguageAndDocuments(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	en := secondJobCheck(d)
	de := secondJobCheck(d)
	de.Language = "de"
	c, bundle := setup(t, nil, answer(checkJSON("open", 0.8, "Second job.", cite(d, 2, "Kellner im Gasthaus Krone"))))

	out := c.Checks(context.Background(), []CheckRequest{en, de})
	for _, r := range out {
		require.NoError(t, r.Err)
	}
	reqs := bundle.fake.received()
	require.Len(t, reqs, 2, "the reasoning language is part of the task, so languages do not share a request")
	require.Equal(t, "check_verdict", reqs[0].body.ResponseFormat.JSONSchema.Name, "a group of one is a single request")
}

func TestLLMRejectedParameter(t *testing.T) {
	t.Parallel()

	all := sent{jsonSchema: true, temperature: true, outputLimit: true, maxCompletionTokens: true}
	require.Equal(t, paramTemperature, rejectedParameter("temperature unsupported value", all))
	require.Equal(t, paramNone, rejectedParameter("temperature unsupported value", sent{jsonSchema: true}), "only what was sent")
	require.Equal(t, paramMaxCompletionTokens, rejectedParameter(" unrecognized request argument supplied: max_completion_tokens", all))
	require.Equal(t, paramResponseFormat, rejectedParameter("response_format json_schema is not supported", all))
	require.Equal(t, paramOutputLimit, rejectedParameter("this model's maximum context length is 8192 tokens", all))
	require.Equal(t, paramNone, rejectedParameter("this model's maximum context length is 8192 tokens", sent{jsonSchema: true}))
	require.Equal(t, paramMaxCompletionTokens, rejectedParameter("unrecognized request argument supplied: max_completion_tokens", all),
		"an unknown name is renamed, not dropped")
	require.Equal(t, paramSystemRole, rejectedParameter("messages[0].role unsupported value: 'messages[0].role' does not support 'system' with this model.", sent{systemRole: true}))
	require.Equal(t, paramNone, rejectedParameter("'system' is not supported", all), "only what was sent")
	require.Equal(t, "temperature", errorParam([]byte(`{"error":{"message":"x","param":"temperature"}}`)))
	require.Empty(t, errorParam([]byte(`{"error":"x"}`)))
}

func FuzzLLMErrorParam(f *testing.F) {
	f.Add(`{"error":{"message":"x","param":"temperature"}}`)
	f.Add(`{"detail":[{"loc":["body","max_completion_tokens"]}]}`)
	f.Add(`<html>`)
	f.Fuzz(func(t *testing.T, body string) {
		p := errorParam([]byte(body))
		got := rejectedParameter(strings.ToLower(p+" "+body), sent{jsonSchema: true, temperature: true, outputLimit: true, maxCompletionTokens: true, systemRole: true})
		require.GreaterOrEqual(t, got, paramNone)
		require.LessOrEqual(t, got, paramSystemRole)
	})
}

func FuzzLLMDecodeBatchItem(f *testing.F) {
	f.Add(`{"status":"open","confidence":0.5,"reasoning":"x","citations":[]}`)
	f.Add(`"just a string"`)
	f.Add(`{"found":true,"value":{"a":1}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		answers := map[string]json.RawMessage{"a": json.RawMessage(raw)}
		if ans, err := decodeItem(answers, "a", decodeCheck); err == nil {
			require.Contains(t, checkStatuses, ans.Status)
		}
		if ans, err := decodeItem(answers, "a", decodeField); err == nil {
			require.NotNil(t, ans.Found)
		}
		_, err := decodeItem(answers, "missing", decodeField)
		require.ErrorIs(t, err, ErrMalformedOutput)
	})
}
