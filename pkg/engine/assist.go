package engine

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/catalog/builtin"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
)

// Model assistance for builtin items. The rules stay the authority: the model is asked
// only where they could not read the documents, through the same path as custom items
// (delimited documents, every citation verified against the page text, values
// re-parsed by pkg/engine/parse). It never overrides a rule: when both read something
// and disagree, the field drops to low_confidence and the check to open.

// Where a field's value or a check's verdict came from: the proposed optional
// `source` of ResultField in openapi.yaml, and what the reasoning summary of a check
// says.
const (
	SourceRules = "rules"
	SourceModel = "model"
)

const (
	// CapAssisted caps the confidence of what the model read for a builtin item: it
	// was verified, but no rule confirms it.
	CapAssisted = 0.6
	// CapDisagreement caps the confidence when rule and model disagree.
	CapDisagreement = 0.4
)

// AssistDocs is what the model reads: the evaluation's documents, their classified
// types, the language of reasoning summaries and the date the evaluation judges
// against (checks about validity and recency need it; the model cannot know it).
type AssistDocs struct {
	Language  string
	Date      time.Time
	Documents []*evidence.Document
	Types     map[uuid.UUID][]string
}

// FieldNeedsAssist reports whether a builtin field as the rules left it is worth
// asking the model: not read at all (not_found), or read with too little confidence,
// which the model can confirm or contradict.
func FieldNeedsAssist(rule ResultField) bool {
	return rule.Status == FieldNotFound || rule.Status == FieldLowConfidence
}

// assistFields asks the model about builtin fields the rules could not read; specs and
// rules are parallel. It returns the fields to report and the source of each value
// ("" for a field without a value).
// Items that do not need assistance (FieldNeedsAssist) come back unchanged, as do
// items the model could not answer. With a BatchModel all questions go in as few
// requests as the model allows. The error is the context's, when it ended.
func assistFields(ctx context.Context, m Model, specs []FieldSpec, docs AssistDocs, rules []ResultField) ([]ResultField, []string, error) {
	out := make([]ResultField, len(rules))
	sources := make([]string, len(rules))
	copy(out, rules)
	for i := range sources {
		sources[i] = SourceRules
	}
	if m == nil {
		return out, valueSources(out, sources), nil
	}
	var asked []int
	var reqs []llm.FieldRequest
	for i, f := range specs {
		if i >= len(rules) || !FieldNeedsAssist(rules[i]) {
			continue
		}
		asked = append(asked, i)
		reqs = append(reqs, builtinFieldRequest(f, docs))
	}
	if len(reqs) == 0 {
		return out, valueSources(out, sources), nil
	}
	results := askFields(ctx, m, reqs)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for n, i := range asked {
		if results[n].Err != nil {
			continue // the rule's outcome stands
		}
		out[i], sources[i] = mergeField(specs[i], rules[i], results[n].Outcome)
	}
	return out, valueSources(out, sources), nil
}

// valueSources clears the source of fields without a value: there is nothing it
// could be the source of.
func valueSources(fields []ResultField, sources []string) []string {
	for i := range sources {
		if fields[i].Value == nil {
			sources[i] = ""
		}
	}
	return sources
}

// mergeField combines the rule's field with the model's reading.
//
//   - The model's value counts only when it is verified: parsed in the field's format
//     and printed in a citation that is on its page.
//   - The rule found nothing: the field takes the verified value with its citations and
//     a confidence capped at CapAssisted (so a demanding threshold leaves it
//     low_confidence).
//   - The rule found a value: the model only confirms (nothing changes) or contradicts
//     it; a contradiction keeps the rule's value but makes it low_confidence with a
//     confidence capped at CapDisagreement.
func mergeField(f FieldSpec, rule ResultField, model llm.FieldOutcome) (ResultField, string) {
	if !model.Verified || model.Value == nil {
		return rule, SourceRules
	}
	value := shapeValue(model.Value)
	if rule.Status == FieldNotFound || rule.Status == FieldFailed || rule.Value == nil {
		r := rule
		r.Value = value
		r.Confidence = clamp01(min(model.Confidence, CapAssisted))
		r.Citations = append([]evidence.Citation{}, model.Citations...)
		r.Status = statusFor(r.Confidence, f.Threshold)
		return r, SourceModel
	}
	if sameShapedValue(rule.Value, value) {
		return rule, SourceRules
	}
	r := rule
	r.Status = FieldLowConfidence
	r.Confidence = clamp01(min(rule.Confidence, CapDisagreement))
	return r, SourceRules
}

// sameShapedValue compares two values in the contract's shape; text compares without regard
// to case and spacing.
func sameShapedValue(a, b any) bool {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		return strings.EqualFold(strings.Join(strings.Fields(as), " "), strings.Join(strings.Fields(bs), " "))
	}
	return reflect.DeepEqual(a, b)
}

// builtinFieldRequest is the question for a builtin field: the catalog's name, an
// instruction that says what the value is on documents of any layout (the catalog's
// prompt), and its format. A FieldSpec that arrives without a format takes the
// catalog's: a currency read as free text would not have the contract's shape.
func builtinFieldRequest(f FieldSpec, docs AssistDocs) llm.FieldRequest {
	def, _ := builtin.MustLoad().DataField(f.Key)
	prompt := f.Prompt
	if prompt == "" {
		prompt = def.Prompt
	}
	if prompt == "" {
		prompt = "Read the " + strings.ReplaceAll(f.Key, "_", " ") + " of the applicant from the documents."
	}
	format := f.ValueFormat
	if format == "" {
		format = def.ValueFormat
	}
	label := f.Label
	if label == "" {
		label = strings.ReplaceAll(f.Key, "_", " ")
	}
	return llm.FieldRequest{
		Key: f.Key, DisplayName: label, Prompt: prompt, ValueFormat: format, Language: docs.Language,
		Documents: docs.Documents, Types: docs.Types,
	}
}

// CheckNeedsAssist reports whether a builtin check as the rules left it is worth
// asking the model: open, and open because the rule could not read what it needs
// (unread), not because of a finding.
func CheckNeedsAssist(rule ResultCheck, unread bool) bool {
	return unread && rule.Status == Open
}

// CheckAssist is one builtin check for assistChecks: the check, its outcome as the
// rules left it, whether that outcome is open for lack of reading, and the verdict
// what the rule did read points to ("" when nothing decisive).
type CheckAssist struct {
	Spec   CheckSpec
	Rule   ResultCheck
	Unread bool
	Lean   string
}

// assistChecks asks the model about builtin checks that would end open for lack of
// reading. It returns the checks to report and the source of each verdict; the others,
// and those the model could not answer, come back as the rules left them. The error is
// the context's, when it ended.
func assistChecks(ctx context.Context, m Model, items []CheckAssist, docs AssistDocs) ([]ResultCheck, []string, error) {
	out := make([]ResultCheck, len(items))
	sources := make([]string, len(items))
	for i, it := range items {
		out[i], sources[i] = it.Rule, SourceRules
	}
	if m == nil {
		return out, sources, nil
	}
	var asked []int
	var reqs []llm.CheckRequest
	for i, it := range items {
		if !CheckNeedsAssist(it.Rule, it.Unread) {
			continue
		}
		asked = append(asked, i)
		reqs = append(reqs, builtinCheckRequest(it.Spec, docs))
	}
	if len(reqs) == 0 {
		return out, sources, nil
	}
	results := askChecks(ctx, m, reqs)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for n, i := range asked {
		if results[n].Err != nil {
			continue
		}
		out[i], sources[i] = mergeCheck(docs.Language, items[i], results[n].Outcome)
	}
	return out, sources, nil
}

// mergeCheck combines the rule's open verdict with the model's.
//
//   - The model decides (fulfilled or critical) with verified citations: the check takes
//     that verdict with a confidence capped at CapAssisted, both sets of citations, and
//     a reasoning summary that says the model read it. The pkg/engine/llm path has
//     already turned a verdict without verified citations into open.
//   - The model's verdict contradicts what the rule did read (Lean): open, confidence
//     capped at CapDisagreement, and the summary names both readings.
//   - The model cannot decide, or answers not_applicable (which the template, not the
//     documents, decides for a builtin check): the rule's open stands; the summary adds
//     what the model saw.
func mergeCheck(lang string, it CheckAssist, model llm.CheckOutcome) (ResultCheck, string) {
	rule := it.Rule
	r := rule
	r.Citations = mergeCitations(rule.Citations, model.Citations)
	decided := (model.Status == Fulfilled || model.Status == Critical) && len(model.Citations) > 0
	switch {
	case !decided:
		if model.Reasoning != "" {
			r.ReasoningSummary = joinReason(rule.ReasoningSummary, say(lang,
				"The model could not decide it either: %s", "Auch das Modell konnte es nicht entscheiden: %s", model.Reasoning))
		}
		return r, SourceRules
	case it.Lean != "" && it.Lean != model.Status:
		r.Status = Open
		r.Confidence = clamp01(min(rule.Confidence, CapDisagreement))
		r.ReasoningSummary = joinReason(rule.ReasoningSummary, say(lang,
			"The rules point to %s, but the model read the documents as %s: %s Please review.",
			"Die Regeln sprechen für %s, das Modell las die Dokumente jedoch als %s: %s Bitte prüfen.",
			verdictName(lang, it.Lean), verdictName(lang, model.Status), model.Reasoning))
		return r, SourceRules
	}
	r.Status = model.Status
	r.Confidence = clamp01(min(model.Confidence, CapAssisted))
	r.ReasoningSummary = say(lang, "Read by the model: %s", "Vom Modell gelesen: %s", model.Reasoning)
	if rule.ReasoningSummary != "" {
		r.ReasoningSummary += say(lang, " (The rules could not read it: %s)", " (Die Regeln konnten es nicht lesen: %s)",
			strings.TrimSpace(rule.ReasoningSummary))
	}
	return r, SourceModel
}

func joinReason(a, b string) string {
	a = strings.TrimSpace(a)
	if a == "" {
		return b
	}
	if !strings.HasSuffix(a, ".") {
		a += "."
	}
	return a + " " + b
}

func verdictName(lang, status string) string {
	switch status {
	case Fulfilled:
		return say(lang, "fulfilled", "erfüllt")
	case Critical:
		return say(lang, "critical", "kritisch")
	case NotApplicable:
		return say(lang, "not applicable", "nicht anwendbar")
	case Open:
		return say(lang, "open", "offen")
	}
	return status
}

// mergeCitations is a then b, each citation once.
func mergeCitations(a, b []evidence.Citation) []evidence.Citation {
	out := make([]evidence.Citation, 0, len(a)+len(b))
	seen := map[string]bool{}
	for _, c := range append(append([]evidence.Citation{}, a...), b...) {
		k := c.UploadID.String() + "|" + evidence.Normalize(c.Excerpt)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out
}

// builtinCheckRequest is the question for a builtin check: its title, its catalog
// description and an instruction that names the verdicts (the catalog's prompt, for
// the checks whose rules depend on reading values; else the description).
func builtinCheckRequest(c CheckSpec, docs AssistDocs) llm.CheckRequest {
	def, _ := builtin.MustLoad().Check(c.Key)
	prompt := def.Prompt
	if prompt == "" {
		prompt = c.Description
	}
	if !docs.Date.IsZero() {
		prompt += " The evaluation date is " + docs.Date.Format("2006-01-02") + "."
	}
	prompt += " The automatic rules could not read the documents well enough to decide this; decide it from the documents only when they state what is needed, else answer open and say what is missing."
	return llm.CheckRequest{
		Key: c.Key, Title: c.Title, Description: c.Description, Prompt: prompt, Language: docs.Language,
		Documents: docs.Documents, Types: docs.Types,
	}
}

// askFields asks the model, in batches when it can.
func askFields(ctx context.Context, m Model, reqs []llm.FieldRequest) []llm.FieldResult {
	if bm, ok := m.(BatchModel); ok {
		return bm.Fields(ctx, reqs)
	}
	return askEach(ctx, reqs, m.Field)
}

// askChecks asks the model, in batches when it can.
func askChecks(ctx context.Context, m Model, reqs []llm.CheckRequest) []llm.CheckResult {
	if bm, ok := m.(BatchModel); ok {
		return bm.Checks(ctx, reqs)
	}
	return askEach(ctx, reqs, m.Check)
}

// askEach asks a model without batches one request at a time.
func askEach[R, O any](ctx context.Context, reqs []R, ask func(context.Context, R) (O, error)) []llm.Result[O] {
	out := make([]llm.Result[O], len(reqs))
	for i, r := range reqs {
		out[i].Outcome, out[i].Err = ask(ctx, r)
	}
	return out
}
