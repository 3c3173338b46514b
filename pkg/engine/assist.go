package engine

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
	"github.com/google/uuid"
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
// instruction that says what the value is on documents of any layout, and its format.
func builtinFieldRequest(f FieldSpec, docs AssistDocs) llm.FieldRequest {
	prompt := f.Prompt
	if prompt == "" {
		prompt = builtinFieldPrompts[f.Key]
	}
	if prompt == "" {
		prompt = "Read the " + strings.ReplaceAll(f.Key, "_", " ") + " of the applicant from the documents."
	}
	format := f.ValueFormat
	if format == "" {
		format = builtinFieldFormats[f.Key]
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

// builtinFieldFormats repeats the catalog's value_format of the builtin fields, for a
// FieldSpec that arrives without one: a currency read as free text would not have the
// contract's shape.
var builtinFieldFormats = map[string]string{
	"applicant_date_of_birth": llm.FormatDate, "id_document_expiry_date": llm.FormatDate,
	"gross_monthly_income": llm.FormatCurrency, "net_monthly_income": llm.FormatCurrency,
	"employment_start_date": llm.FormatDate, "account_balance": llm.FormatCurrency,
	"purchase_price": llm.FormatCurrency, "living_area": llm.FormatSquareMeters,
	"loan_amount": llm.FormatCurrency, "equity_amount": llm.FormatCurrency,
	"loan_to_value": llm.FormatPercent, "fixed_interest_period": llm.FormatYears,
}

// builtinFieldPrompts say what each builtin field is, in terms that hold for any
// issuer's layout.
var builtinFieldPrompts = map[string]string{
	"applicant_full_name":     "The applicant's full name (given names and surname) as printed on an identity document, or else on a salary statement or bank statement addressed to the applicant.",
	"applicant_date_of_birth": "The applicant's date of birth, as printed on an identity document (passport or ID card) or another document that states it.",
	"id_document_number":      "The document number of the applicant's passport or identity card (not a personal or tax number).",
	"id_document_expiry_date": "The expiry date (date of expiry, gültig bis) of the applicant's passport or identity card.",
	"employer_name":           "The name of the applicant's employer: the company that issues the applicant's salary statement or employment contract.",
	"gross_monthly_income":    "The applicant's gross pay for one month (total gross, Gesamtbrutto) on the most recent salary statement, not a year-to-date total.",
	"net_monthly_income":      "The applicant's net pay for one month (net pay, Nettoverdienst or the amount paid out, Auszahlungsbetrag) on the most recent salary statement, not a year-to-date total.",
	"employment_start_date":   "The date the applicant's current employment began (entry date, Eintrittsdatum), as stated on a salary statement or employment contract.",
	"iban":                    "The IBAN of the applicant's bank account, as printed on a bank statement.",
	"account_balance":         "The closing balance (new balance, neuer Kontostand) of the applicant's most recent bank statement.",
	"property_address":        "The address of the property to be financed (street, number, postcode, town), as stated in the property documents such as the exposé, purchase contract or land register extract.",
	"purchase_price":          "The purchase price of the property, as stated in the purchase contract or exposé.",
	"living_area":             "The living area (Wohnfläche) of the property in square meters, as stated in the property documents.",
	"year_of_construction":    "The year the property was built (Baujahr), as stated in the property documents or energy certificate.",
	"loan_amount":             "The loan amount requested or offered (Darlehensbetrag), as stated in the financing documents.",
	"equity_amount":           "The applicant's own funds put into the financing (equity, Eigenkapital), as stated in the financing documents.",
	"loan_to_value":           "The loan-to-value ratio (Beleihungsauslauf) as a percentage, as stated in the financing documents.",
	"fixed_interest_period":   "The fixed interest period (Zinsbindung) in years, as stated in the financing documents.",
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
// description and an instruction that names the verdicts.
func builtinCheckRequest(c CheckSpec, docs AssistDocs) llm.CheckRequest {
	prompt := builtinCheckPrompts[c.Key]
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

// builtinCheckPrompts phrase the builtin checks whose rules depend on reading values
// as reviewer instructions; the others fall back to the catalog description.
var builtinCheckPrompts = map[string]string{
	"id_document_valid":                 "Is the applicant's passport or identity card valid on the evaluation date? Fulfilled when its printed expiry date is on or after the evaluation date; critical when it is before; open when no expiry date is printed legibly.",
	"name_consistency":                  "Do the applicant's identity document, salary statements and bank statements name the same person? Ignore case, umlaut spellings and transliteration, name order, titles and middle names. Fulfilled when at least two of them name the applicant and the names denote one person; critical when they name different people; open when fewer than two names can be read.",
	"income_documents_recent":           "Is the newest pay period of the applicant's salary statements at most two months before the month of the evaluation date? Fulfilled when it is; open when it is older or no pay period can be read.",
	"salary_statements_complete":        "Do the applicant's salary statements cover three consecutive monthly pay periods? Fulfilled when they do; open otherwise, naming the months that are there.",
	"salary_credited_on_bank_statement": "Is the net pay of a salary statement credited on the applicant's bank statements? Fulfilled when a credit within 1 % of a net pay is listed; otherwise open, saying what is missing (a missing credit is for the rules to judge, not for you).",
	"property_data_consistency":         "Do the exposé and the purchase contract agree on the purchase price and the living area, each within 5 %? Fulfilled when they agree; critical when they differ by more; open when only one source states them.",
	"loan_to_value_within_limit":        "What is the loan-to-value ratio: the stated one, else the loan amount divided by the purchase price? Fulfilled at or below 80 %, open above 80 % up to 100 %, critical above 100 %; open when it cannot be determined.",
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
