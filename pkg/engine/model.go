package engine

import (
	"context"
	"time"

	"github.com/doceval/doceval/pkg/engine/llm"
)

// Model evaluates custom checks and fields: a language model behind pkg/engine/llm.
type Model interface {
	Check(ctx context.Context, req llm.CheckRequest) (llm.CheckOutcome, error)
	Field(ctx context.Context, req llm.FieldRequest) (llm.FieldOutcome, error)
}

// BatchModel is a Model that answers several items over the same documents in one
// request (*llm.Client is one). Results are in the order of the requests.
type BatchModel interface {
	Model
	Checks(ctx context.Context, reqs []llm.CheckRequest) []llm.CheckResult
	Fields(ctx context.Context, reqs []llm.FieldRequest) []llm.FieldResult
}

var _ BatchModel = (*llm.Client)(nil)

// LLMConfig configures the optional language model for custom checks and fields (and
// for builtin items the rules could not read): any OpenAI-compatible chat-completions
// server. Without a base URL there is none.
type LLMConfig struct {
	BaseURL         string        `env:"DOCEVAL_LLM_BASE_URL"`
	Model           string        `env:"DOCEVAL_LLM_MODEL"`
	APIKey          string        `env:"DOCEVAL_LLM_API_KEY"`
	Timeout         time.Duration `env:"DOCEVAL_LLM_TIMEOUT" envDefault:"60s"`
	Concurrency     int           `env:"DOCEVAL_LLM_CONCURRENCY" envDefault:"4"`
	MaxRetries      int           `env:"DOCEVAL_LLM_MAX_RETRIES" envDefault:"3"`
	MaxContextChars int           `env:"DOCEVAL_LLM_MAX_CONTEXT_CHARS" envDefault:"60000"`
	// Azure selects Azure OpenAI: api-key header, api-version, deployment URL (the
	// deployment is Model).
	Azure           bool   `env:"DOCEVAL_LLM_AZURE" envDefault:"false"`
	AzureAPIVersion string `env:"DOCEVAL_LLM_AZURE_API_VERSION" envDefault:"2024-10-21"`
	// OmitTemperature never sends a temperature (reasoning models); without it the
	// client finds out from the server's first rejection.
	OmitTemperature bool `env:"DOCEVAL_LLM_OMIT_TEMPERATURE" envDefault:"false"`
	// MaxOutputTokens is sent as max_completion_tokens (max_tokens where rejected);
	// negative sends none.
	MaxOutputTokens int `env:"DOCEVAL_LLM_MAX_OUTPUT_TOKENS" envDefault:"16384"`
	// BatchSize is the most fields or checks asked in one request.
	BatchSize int `env:"DOCEVAL_LLM_BATCH_SIZE" envDefault:"8"`
}

func newModel(cfg LLMConfig) (Model, error) {
	if cfg.BaseURL == "" {
		return nil, nil
	}
	return llm.New(llm.Config{
		BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey, Timeout: cfg.Timeout,
		MaxConcurrency: cfg.Concurrency, MaxRetries: cfg.MaxRetries, MaxContextChars: cfg.MaxContextChars,
		Azure: cfg.Azure, AzureAPIVersion: cfg.AzureAPIVersion, OmitTemperature: cfg.OmitTemperature,
		MaxOutputTokens: cfg.MaxOutputTokens, MaxBatchItems: cfg.BatchSize,
	})
}
