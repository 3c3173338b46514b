package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// responder answers one request of the fake server.
type responder func(w http.ResponseWriter, r *http.Request)

// recorded is one request the fake server received.
type recorded struct {
	header http.Header
	path   string
	query  string
	body   chatRequest
	raw    string
}

func (r recorded) system() string { return r.body.Messages[0].Content }
func (r recorded) user() string   { return r.body.Messages[1].Content }

// documents is the part of the user message before the task, task the rest.
func (r recorded) documents() string {
	docs, _, _ := strings.Cut(r.user(), "\n"+taskStart+"\n")
	return docs
}

func (r recorded) task() string {
	_, task, _ := strings.Cut(r.user(), "\n"+taskStart+"\n")
	return task
}

// fakeServer is an OpenAI-compatible chat-completions endpoint that answers with the
// given responders in order, repeating the last one.
type fakeServer struct {
	mu         sync.Mutex
	responders []responder
	requests   []recorded
	inFlight   atomic.Int32
	maxFlight  atomic.Int32
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxFlight.Load()
		if n <= m || f.maxFlight.CompareAndSwap(m, n) {
			break
		}
	}
	raw, _ := io.ReadAll(r.Body)
	var body chatRequest
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	i := len(f.requests)
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), path: r.URL.Path, query: r.URL.RawQuery, body: body, raw: string(raw)})
	resp := f.responders[min(i, len(f.responders)-1)]
	f.mu.Unlock()
	resp(w, r)
}

func (f *fakeServer) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

type testBundle struct {
	fake *fakeServer
	cfg  Config
}

// setup starts a fake server answering with responders and returns a client for it
// with fast retries; adjust changes the config before the client is built.
func setup(t *testing.T, adjust func(*Config), responders ...responder) (*Client, *testBundle) {
	t.Helper()
	fake := &fakeServer{responders: responders}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg := Config{
		BaseURL:     srv.URL + "/v1",
		Model:       "test-model",
		APIKey:      "sk-test-secret-key",
		Timeout:     2 * time.Second,
		MaxRetries:  2,
		BackoffBase: time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
		HTTPClient:  srv.Client(),
	}
	if adjust != nil {
		adjust(&cfg)
	}
	c, err := New(cfg)
	require.NoError(t, err)
	return c, &testBundle{fake: fake, cfg: cfg}
}

// answer replies with a chat completion whose message content is content.
func answer(content string) responder {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id":      "chatcmpl-1",
			"object":  "chat.completion",
			"model":   "test-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		})
	}
}

func status(code int, body string, headers ...string) responder {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// hang answers only when the client gives up.
func hang() responder {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
}

func cite(d *evidence.Document, page int, excerpt string) map[string]any {
	return map[string]any{"upload_id": d.UploadID.String(), "page": page, "excerpt": excerpt}
}

func checkJSON(status string, confidence float64, reasoning string, cites ...map[string]any) string {
	if cites == nil {
		cites = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"status": status, "confidence": confidence, "reasoning": reasoning, "citations": cites})
	return string(b)
}

func fieldJSON(found bool, value string, confidence float64, cites ...map[string]any) string {
	if cites == nil {
		cites = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"found": found, "value": value, "confidence": confidence, "citations": cites})
	return string(b)
}

func document(file string, pages ...string) *evidence.Document {
	d := &evidence.Document{UploadID: uuid.New(), FileID: uuid.New(), ExternalFileID: "ext-" + file, Filename: file}
	for i, p := range pages {
		d.Pages = append(d.Pages, evidence.Page{Number: i + 1, Text: p})
	}
	return d
}

const salaryPage1 = "Gehaltsabrechnung März 2024\nArbeitgeber: Müller GmbH\nHerr Max Mustermann"
const salaryPage2 = "Nebentätigkeit:   Kellner im Gasthaus Krone\nAuszahlungsbetrag 3.250,00 €"

func secondJobCheck(docs ...*evidence.Document) CheckRequest {
	return CheckRequest{
		Key:       "second_job",
		Title:     "Second job",
		Prompt:    "Does the applicant have a second job? If yes, open.",
		Language:  "en",
		Documents: docs,
		Types:     map[uuid.UUID][]string{docs[0].UploadID: {"salary_statement"}},
	}
}

func TestNew(t *testing.T) {
	t.Parallel()

	_, err := New(Config{Model: "m"})
	require.ErrorContains(t, err, "BaseURL")
	_, err = New(Config{BaseURL: "https://api.openai.com/v1"})
	require.ErrorContains(t, err, "Model")
	_, err = New(Config{BaseURL: "not a url", Model: "m"})
	require.Error(t, err)

	c, err := New(Config{BaseURL: "https://example.openai.azure.com/openai/deployments/gpt/?api-version=2024-10-21", Model: "m", Azure: true})
	require.NoError(t, err)
	require.Equal(t, "https://example.openai.azure.com/openai/deployments/gpt/chat/completions?api-version=2024-10-21", c.endpoint)
	require.Equal(t, DefaultTimeout, c.cfg.Timeout)
	require.Equal(t, DefaultMaxConcurrency, cap(c.sem))
	require.Equal(t, DefaultMaxRetries, c.cfg.MaxRetries)
	require.Equal(t, DefaultMaxContextChars, c.cfg.MaxContextChars)

	c, err = New(Config{BaseURL: "http://localhost:11434/v1", Model: "m", MaxRetries: -1})
	require.NoError(t, err)
	require.Zero(t, c.cfg.MaxRetries)
}

func TestCheckGoodAnswer(t *testing.T) {
	t.Parallel()

	d := document("gehalt.pdf", salaryPage1, salaryPage2)
	c, bundle := setup(t, nil, answer(checkJSON("open", 0.9, "The salary statement lists a second job as a waiter.",
		cite(d, 2, "Nebentätigkeit: Kellner im Gasthaus Krone"))))

	out, err := c.Check(context.Background(), secondJobCheck(d))
	require.NoError(t, err)
	require.Equal(t, StatusOpen, out.Status)
	require.InDelta(t, 0.9, out.Confidence, 1e-9)
	require.Equal(t, "The salary statement lists a second job as a waiter.", out.Reasoning)
	require.Equal(t, []evidence.Citation{{UploadID: d.UploadID, ExternalFileID: "ext-gehalt.pdf", Pages: []int{2}, Excerpt: "Nebentätigkeit: Kellner im Gasthaus Krone"}}, out.Citations)
	require.Zero(t, out.CitationsDropped)
	require.Zero(t, out.PagesOmitted)

	reqs := bundle.fake.received()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "/v1/chat/completions", r.path)
	require.Equal(t, "Bearer sk-test-secret-key", r.header.Get("Authorization"))
	require.Empty(t, r.header.Get("api-key"), "the Azure header is sent only when configured")
	require.Equal(t, "test-model", r.body.Model)
	require.Contains(t, r.raw, `"temperature":0`)
	require.Equal(t, "json_schema", r.body.ResponseFormat.Type)
	require.NotNil(t, r.body.ResponseFormat.JSONSchema)
	require.True(t, r.body.ResponseFormat.JSONSchema.Strict)
	require.Equal(t, "check_verdict", r.body.ResponseFormat.JSONSchema.Name)
	require.Contains(t, r.raw, `"enum":["fulfilled","open","critical","not_applicable"]`)
	require.Equal(t, "system", r.body.Messages[0].Role)
	require.Equal(t, "user", r.body.Messages[1].Role)
	require.Len(t, r.body.Messages, 2)
	require.Contains(t, r.task(), `Write "reasoning" in English`)
	require.NotNil(t, r.body.Temperature)
	require.Equal(t, DefaultMaxOutputTokens, r.body.MaxCompletionTokens)
	require.Zero(t, r.body.MaxTokens)
}
