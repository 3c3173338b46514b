// Package engine evaluates a submission's documents: it classifies every input upload,
// judges its readability, extracts the template's data fields with citations, runs the
// template's checks and summarizes them. Builtin items are evaluated deterministically
// over the page text ingest stored (pkg/engine/reader); custom items, whose prompts are
// reviewer instructions, need a language model (pkg/engine/llm) and fail with a reason
// when none is configured. Nothing is ever invented: every value and verdict cites text
// that is on the cited page.
package engine

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Engine evaluates submissions. It is safe for concurrent use.
type Engine struct {
	model Model // nil: custom checks and fields come back failed
	log   *slog.Logger
}

// New builds the engine; with cfg.BaseURL set, custom items go to that model.
func New(cfg LLMConfig, log *slog.Logger) (*Engine, error) {
	m, err := newModel(cfg)
	if err != nil {
		return nil, err
	}
	return &Engine{model: m, log: log}, nil
}

// NewWithModel builds an engine around a given model (nil for none).
func NewWithModel(m Model, log *slog.Logger) *Engine {
	return &Engine{model: m, log: log}
}

// StepError wraps the error a Progress step returned: the evaluation was canceled, or
// the progress could not be recorded. The caller decides; the engine only stops.
type StepError struct{ Err error }

func (e *StepError) Error() string { return "progress: " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Evaluate runs one evaluation. It stops at the next step after progress returns an
// error (wrapped in *StepError) or ctx ends. A panic in a reader is turned into an
// error so a strange document fails one evaluation instead of crashing the worker.
func (e *Engine) Evaluate(ctx context.Context, in Input, progress Progress) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			e.log.ErrorContext(ctx, "engine panic", "panic", p, "stack", string(debug.Stack()))
			res, err = Result{}, fmt.Errorf("engine panic: %v", p)
		}
	}()
	step := func(stage string, percent int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := progress(stage, percent); err != nil {
			return &StepError{Err: err}
		}
		return nil
	}
	lang := in.Language
	if err := step(say(lang, "Reading documents", "Dokumente werden gelesen"), 5); err != nil {
		return Result{}, err
	}
	v := &view{in: in, lang: lang}
	for i, d := range in.Documents {
		v.read(d)
		if err := step(say(lang, "Reading documents", "Dokumente werden gelesen"), 5+50*(i+1)/len(in.Documents)); err != nil {
			return Result{}, err
		}
	}
	if err := step(say(lang, "Extracting data fields", "Datenfelder werden extrahiert"), 60); err != nil {
		return Result{}, err
	}
	fields, err := e.fields(ctx, v, step)
	if err != nil {
		return Result{}, err
	}
	if err := step(say(lang, "Running checks", "Prüfungen laufen"), 75); err != nil {
		return Result{}, err
	}
	checks, err := e.checks(ctx, v, step)
	if err != nil {
		return Result{}, err
	}
	if err := step(say(lang, "Summarizing", "Zusammenfassung"), 98); err != nil {
		return Result{}, err
	}
	return Result{Documents: v.resultDocuments(), Fields: fields, Checks: checks, Summary: summarize(v, fields, checks)}, nil
}
