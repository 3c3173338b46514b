// Package llm evaluates custom checks and custom data fields with a language model
// behind any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, vLLM,
// Ollama).
//
// The model is never trusted: documents are sent as delimited data, every citation it
// returns is verified against the stored page text and dropped when it is not there,
// confidence is capped when evidence is missing, and field values are re-parsed
// deterministically from the text the model says it read.
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
)

// maxResponseBytes bounds what is read of any response body.
const maxResponseBytes = 4 << 20

// Config configures a Client. Zero values take the defaults above.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1; the client POSTs to
	// {BaseURL}/chat/completions. A query string (Azure's api-version) is kept.
	BaseURL string
	Model   string
	// APIKey is sent as "Authorization: Bearer <key>" and, when AzureAPIKeyHeader is
	// set, also as "api-key: <key>". It never appears in errors or logs.
	APIKey            string
	AzureAPIKeyHeader bool
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
	// jsonObjectOnly is set once the server rejected json_schema response formats, so
	// later requests go straight to json_object.
	jsonObjectOnly atomic.Bool
}

// New validates cfg, applies the defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("llm: BaseURL is required")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: Model is required")
	}
	endpoint, err := chatCompletionsURL(cfg.BaseURL)
	if err != nil {
		return nil, err
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
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
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

// chatCompletionsURL appends /chat/completions to the base URL's path, keeping its query.
func chatCompletionsURL(base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("llm: BaseURL must be an absolute http(s) URL")
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
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
