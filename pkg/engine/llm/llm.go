// Package llm evaluates custom checks and custom data fields (and builtin ones the
// rules could not read) with a language model behind any OpenAI-compatible
// chat-completions endpoint (OpenAI, Azure OpenAI, vLLM, Ollama).
//
// The model is never trusted: documents are sent as delimited data, every citation it
// returns is verified against the stored page text and dropped when it is not there,
// confidence is capped when evidence is missing, and field values are re-parsed
// deterministically from the text the model says it read.
//
// Requests put the shared rules and the documents first and the task last, so the
// requests of one evaluation share a prefix providers cache; Checks and Fields answer
// several items in one request. Parameters a server rejects (the temperature on
// reasoning models, max_completion_tokens on older servers, json_schema response
// formats) are left out or renamed once and remembered.
package llm

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout         = 60 * time.Second
	DefaultMaxConcurrency  = 4
	DefaultMaxRetries      = 3
	DefaultMaxContextChars = 60000
	DefaultBackoffBase     = 500 * time.Millisecond
	DefaultBackoffMax      = 30 * time.Second
	DefaultMaxRetryAfter   = 2 * time.Minute
	// DefaultMaxOutputTokens leaves room for a batch of answers and, on reasoning
	// models, for the reasoning tokens that count against the same limit.
	DefaultMaxOutputTokens = 16384
	DefaultMaxBatchItems   = 8
	// DefaultAzureAPIVersion is the GA api-version of Azure OpenAI's deployment API
	// that supports json_schema response formats.
	DefaultAzureAPIVersion = "2024-10-21"
)

// maxResponseBytes bounds what is read of any response body.
const maxResponseBytes = 4 << 20

// Config configures a Client. Zero values take the defaults above.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1; the client POSTs to
	// {BaseURL}/chat/completions. A query string is kept.
	BaseURL string
	// Model is the model name; on Azure OpenAI, the deployment name.
	Model string
	// APIKey is sent as "Authorization: Bearer <key>", or as "api-key: <key>" on Azure
	// OpenAI. It never appears in errors or logs.
	APIKey string
	// Azure selects Azure OpenAI: the api-key header, the api-version query parameter
	// and, when BaseURL is the resource endpoint (https://NAME.openai.azure.com), the
	// deployment URL {BaseURL}/openai/deployments/{Model}/chat/completions. A BaseURL
	// that already names a deployment or Azure's /openai/v1 API is used as given.
	Azure bool
	// AzureAPIVersion is the api-version query parameter (DefaultAzureAPIVersion when
	// empty); one in BaseURL's query wins. Azure's /openai/v1 API takes none.
	AzureAPIVersion string
	// OmitTemperature never sends a temperature. Without it the client sends 0 and,
	// when a model rejects the parameter (reasoning models accept only their
	// default), retries without it and keeps leaving it out.
	OmitTemperature bool
	// MaxOutputTokens bounds the answer, sent as max_completion_tokens (max_tokens to
	// servers that reject the newer name); negative sends no limit, and so does the
	// client after a server said the limit is more than the model or its context
	// allows.
	MaxOutputTokens int
	// MaxBatchItems is the most fields or checks asked in one request by Fields and
	// Checks; 1 asks each alone.
	MaxBatchItems int
	// Timeout bounds one request (one attempt).
	Timeout time.Duration
	// MaxConcurrency bounds the requests in flight per Client.
	MaxConcurrency int
	// MaxRetries is the number of retries after the first attempt; negative means none.
	// Retried: 429 (Retry-After honoured), 5xx, timeouts, network errors and malformed
	// model output. Never retried: other 4xx.
	MaxRetries int
	// MaxContextChars is the budget of document text (characters) in one request.
	MaxContextChars int
	// BackoffBase and BackoffMax shape the exponential backoff with jitter between
	// retries: attempt n waits a random time in [d/2, d] with d = min(BackoffMax,
	// BackoffBase·2ⁿ).
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a server asking
	// for more ends the call with an error instead of blocking a worker.
	MaxRetryAfter time.Duration
	HTTPClient    *http.Client
	// Logger receives retry and fallback notes (never prompts, document text, model
	// output or keys). Nil discards.
	Logger *slog.Logger
}

// Client talks to one model on one endpoint. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
	log      *slog.Logger
	sem      chan struct{}
	jitter   func() float64 // in [0, 1)
	// What the server rejected once, so later requests leave it out: json_schema
	// response formats (json_object instead), the temperature, the
	// max_completion_tokens name (max_tokens instead), an output limit larger than the
	// model or its context allows (none instead) and the system role (the rules go at
	// the start of the user message instead).
	jsonObjectOnly  atomic.Bool
	noTemperature   atomic.Bool
	legacyMaxTokens atomic.Bool
	noOutputLimit   atomic.Bool
	noSystemRole    atomic.Bool
}

// New validates cfg, applies the defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("llm: BaseURL is required")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: Model is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxConcurrency <= 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxContextChars <= 0 {
		cfg.MaxContextChars = DefaultMaxContextChars
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	switch {
	case cfg.MaxOutputTokens == 0:
		cfg.MaxOutputTokens = DefaultMaxOutputTokens
	case cfg.MaxOutputTokens < 0:
		cfg.MaxOutputTokens = 0
	}
	if cfg.MaxBatchItems <= 0 {
		cfg.MaxBatchItems = DefaultMaxBatchItems
	}
	if cfg.Azure && strings.TrimSpace(cfg.AzureAPIVersion) == "" {
		cfg.AzureAPIVersion = DefaultAzureAPIVersion
	}
	endpoint, err := chatCompletionsURL(cfg)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	// A redirect is never followed: it would carry the document text and the API key
	// (Azure's api-key header) to wherever the endpoint points. The 3xx answer is an
	// error like any other non-2xx one.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Client{
		cfg:      cfg,
		endpoint: endpoint,
		http:     hc,
		log:      log.With("component", "llm", "model", cfg.Model),
		sem:      make(chan struct{}, cfg.MaxConcurrency),
		jitter:   rand.Float64,
	}, nil
}

// chatCompletionsURL appends /chat/completions to the base URL's path, keeping its
// query. On Azure OpenAI a resource endpoint gets the deployment path and every URL but
// the /openai/v1 API's gets the api-version.
func chatCompletionsURL(cfg Config) (string, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("llm: BaseURL must be an absolute http(s) URL")
	}
	path := strings.TrimRight(u.Path, "/")
	if cfg.Azure {
		v1 := strings.HasSuffix(path, "/openai/v1")
		if !v1 && !strings.Contains(path, "/openai/deployments/") {
			path += "/openai/deployments/" + strings.TrimSpace(cfg.Model)
		}
		if q := u.Query(); !v1 && q.Get("api-version") == "" {
			q.Set("api-version", strings.TrimSpace(cfg.AzureAPIVersion))
			u.RawQuery = q.Encode()
		}
	}
	u.Path = path + "/chat/completions"
	u.RawPath = ""
	u.Fragment = ""
	return u.String(), nil
}

// ErrMalformedOutput means the model's answer could not be used even after retries.
var ErrMalformedOutput = errors.New("llm: malformed model output")

// APIError is a non-success HTTP answer of the server. Message is the server's error
// message, shortened and with the API key redacted.
type APIError struct {
	StatusCode int
	Message    string
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("llm: server answered %d", e.StatusCode)
	}
	return fmt.Sprintf("llm: server answered %d: %s", e.StatusCode, e.Message)
}
