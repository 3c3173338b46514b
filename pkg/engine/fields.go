package engine

import (
	"context"
	"math"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/doceval/doceval/pkg/engine/reader"
)

// fields extracts every data field of the template: builtin ones from the facts the
// reader found, custom ones through the model.
func (e *Engine) fields(ctx context.Context, v *view, step func(string, int) error) ([]ResultField, error) {
	out := make([]ResultField, 0, len(v.in.Fields))
	for i, f := range v.in.Fields {
		r := ResultField{DataFieldID: f.ID, Key: f.Key, Label: f.Label, Citations: []evidence.Citation{}}
		switch {
		case f.Builtin:
			builtinField(v, f, &r)
		case e.model == nil:
			labelledField(v, f, &r)
		default:
			if err := step(say(v.lang, "Extracting data fields", "Datenfelder werden extrahiert"), 60+15*i/len(v.in.Fields)); err != nil {
				return nil, err
			}
			if err := e.customField(ctx, v, f, &r); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
	}
	if e.model != nil {
		// Builtin fields the rules could not read go to the model, in as few requests as
		// it allows; a value it reads is verified, re-parsed and capped (assist.go).
		var specs []FieldSpec
		var rules []ResultField
		var at []int
		for i, f := range v.in.Fields {
			if f.Builtin {
				specs, rules, at = append(specs, f), append(rules, out[i]), append(at, i)
			}
		}
		docs := AssistDocs{Language: v.lang, Date: v.in.Date, Documents: v.in.Documents, Types: v.types}
		got, sources, err := assistFields(ctx, e.model, specs, docs, rules)
		if err != nil {
			return nil, err
		}
		for n, i := range at {
			out[i] = got[n]
			out[i].Source = sources[n]
		}
	}
	return out, nil
}

func builtinField(v *view, f FieldSpec, r *ResultField) {
	best, support, ok := reader.FieldBy(f.Key, v.facts, v.typesOf)
	if !ok {
		r.Status = FieldNotFound
		return
	}
	ruled(r, best, support, f.Threshold)
}

// ruled gives a field the value the rules read, cited by the fact and its support.
func ruled(r *ResultField, best evidence.Fact, support []evidence.Fact, threshold float64) {
	r.Value = shapeValue(best.Value)
	r.Source = SourceRules
	r.Confidence = clamp01(best.Confidence)
	r.Citations = citations(append([]evidence.Fact{best}, support...))
	r.Status = statusFor(r.Confidence, threshold)
}

// labelledField reads a custom field without a model: by its display name among the
// label–value pairs of the documents (reader.LabelledValue), in its value format. A
// field whose label no page holds is failed, as the model that might have found it
// under other words is not there.
func labelledField(v *view, f FieldSpec, r *ResultField) {
	fact, ok := reader.LabelledValue(v.in.Documents, f.Label, f.ValueFormat)
	if !ok {
		r.Status = FieldFailed
		return
	}
	ruled(r, fact, nil, f.Threshold)
}

// customField asks the model; its failures end as a failed field, never as a guess.
func (e *Engine) customField(ctx context.Context, v *view, f FieldSpec, r *ResultField) error {
	out, err := e.model.Field(ctx, llm.FieldRequest{
		Key: f.Key, DisplayName: f.Label, Prompt: f.Prompt, ValueFormat: f.ValueFormat, Language: v.lang,
		Documents: v.in.Documents, Types: v.types,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		e.log.WarnContext(ctx, "custom field failed", "key", f.Key, "error", err)
		r.Status = FieldFailed
		return nil
	}
	if out.Value == nil {
		r.Status = FieldNotFound
		r.Confidence = clamp01(out.Confidence)
		return nil
	}
	r.Value = shapeValue(out.Value)
	r.Source = SourceModel
	r.Confidence = clamp01(out.Confidence)
	r.Citations = append(r.Citations, out.Citations...)
	r.Status = statusFor(r.Confidence, f.Threshold)
	return nil
}

func statusFor(confidence, threshold float64) string {
	if confidence < threshold {
		return FieldLowConfidence
	}
	return FieldSucceeded
}

// shapeValue turns a fact's Go value into the contract's JSON shape (ResultField.value
// per value_format).
func shapeValue(v any) any {
	switch x := v.(type) {
	case parse.Money:
		return map[string]string{"amount": x.Amount(), "currency": x.Currency}
	case time.Time:
		return parse.FormatDate(x)
	case float64:
		return math.Round(x*100) / 100
	case string:
		return x
	}
	return nil
}

// citations lists the facts' citations, each once.
func citations(facts []evidence.Fact) []evidence.Citation {
	out := []evidence.Citation{}
	seen := map[string]bool{}
	for _, f := range facts {
		c := f.Citation
		k := c.UploadID.String() + "|" + c.Excerpt
		if c.Excerpt == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }
