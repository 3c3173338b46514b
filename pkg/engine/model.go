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

// LLMConfig configures the optional language model for custom checks and fields: any
// OpenAI-compatible chat-completions server. Without a base URL there is none.
type LLMConfig struct {
	BaseURL         string        `env:"DOCEVAL_LLM_BASE_URL"`
	Model           string        `env:"DOCEVAL_LLM_MODEL"`
	APIKey          string        `env:"DOCEVAL_LLM_API_KEY"`
	Timeout         time.Duration `env:"DOCEVAL_LLM_TIMEOUT" envDefault:"60s"`
	Concurrency     int           `env:"DOCEVAL_LLM_CONCURRENCY" envDefault:"4"`
	MaxRetries      int           `env:"DOCEVAL_LLM_MAX_RETRIES" envDefault:"3"`
	MaxContextChars int           `env:"DOCEVAL_LLM_MAX_CONTEXT_CHARS" envDefault:"60000"`
}

func newModel(cfg LLMConfig) (Model, error) {
	if cfg.BaseURL == "" {
		return nil, nil
	}
	return llm.New(llm.Config{
		BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey, Timeout: cfg.Timeout,
		MaxConcurrency: cfg.Concurrency, MaxRetries: cfg.MaxRetries, MaxContextChars: cfg.MaxContextChars,
	})
}
