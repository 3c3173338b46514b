package llm

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/google/uuid"
)

// CheckRequest is one custom check over the documents of a submission.
type CheckRequest struct {
	Key, Title, Description string
	// Prompt is the partner's reviewer instruction.
	Prompt string
	// Language of the reasoning: "de" or "en".
	Language  string
	Documents []*evidence.Document
	// Types are the classified document types per upload.
	Types map[uuid.UUID][]string
}

// CheckOutcome is the verified verdict.
type CheckOutcome struct {
	// Status is fulfilled, open, critical or not_applicable.
	Status     string
	Confidence float64
	// Citations are verified against the page text; never empty unless Status is open
	// or not_applicable.
	Citations []evidence.Citation
	// Reasoning is in the request's language.
	Reasoning string
	// PagesOmitted counts the pages not shown to the model for the context budget.
	PagesOmitted int
	// CitationsDropped counts the model's citations that were not on their page.
	CitationsDropped int
}

// Check asks the model for a verdict on one custom check and verifies its evidence.
//
// A verdict other than not_applicable that keeps no verified citation becomes open, with
// reasoning that says so. A model that never answers with a verdict in the vocabulary
// yields open with confidence 0 (no error). Transport failures, rejected requests and
// output that never parses return an error; the caller reports the check as failed.
func (c *Client) Check(ctx context.Context, req CheckRequest) (CheckOutcome, error) {
	if strings.TrimSpace(req.Prompt) == "" && strings.TrimSpace(req.Title) == "" {
		return CheckOutcome{}, errors.New("llm: check has neither prompt nor title")
	}
	docs := nonNil(req.Documents)
	sel := selectPages(docs, req.Types, checkQuestion(req), c.cfg.MaxContextChars)
	documents := documentsText(sel)
	items := []item{checkItem("", req)}

	var ans checkAnswer
	err := c.run(ctx, exchange{
		schemaName: "check_verdict",
		schema:     checkSchema(),
		messages: func(jsonObject bool) []chatMessage {
			return messages(documents, checkTask(req.Language, items, jsonObject))
		},
		decode: func(content string) error {
			a, err := decodeCheck(content)
			if err == nil {
				ans = a
			}
			return err
		},
	})
	if errors.Is(err, errInvalidStatus) {
		return noVerdict(req.Language, sel.omitted), nil
	}
	if err != nil {
		return CheckOutcome{}, err
	}
	return checkOutcome(req.Language, docs, ans, sel.omitted), nil
}

// noVerdict is the outcome when the model never answered with a verdict in the
// vocabulary.
func noVerdict(lang string, omitted int) CheckOutcome {
	return CheckOutcome{
		Status:       StatusOpen,
		Confidence:   CapNoVerdict,
		Reasoning:    text(lang, "The model gave no valid verdict; please review manually.", "Das Modell lieferte kein gültiges Ergebnis; bitte manuell prüfen."),
		PagesOmitted: omitted,
	}
}

// checkQuestion is what page selection looks for.
func checkQuestion(req CheckRequest) string {
	return strings.Join([]string{strings.ReplaceAll(req.Key, "_", " "), req.Title, req.Description, req.Prompt}, "\n")
}

func checkOutcome(lang string, docs []*evidence.Document, ans checkAnswer, omitted int) CheckOutcome {
	v := verifyCitations(docs, ans.Citations)
	needEvidence := ans.Status != StatusNotApplicable
	out := CheckOutcome{
		Status:           ans.Status,
		Confidence:       evidenceConfidence(clampConfidence(ans.Confidence), v, needEvidence),
		Citations:        v.citations,
		Reasoning:        cleanReasoning(ans.Reasoning),
		PagesOmitted:     omitted,
		CitationsDropped: v.dropped,
	}
	if !needEvidence || len(v.citations) > 0 {
		return out
	}

	var note string
	if v.dropped > 0 {
		note = text(lang, "The evidence the model cited could not be verified in the documents; please review manually.",
			"Die vom Modell angeführten Belege konnten in den Dokumenten nicht verifiziert werden; bitte manuell prüfen.")
	} else {
		note = text(lang, "The model cited no evidence from the documents, so its assessment could not be verified; please review manually.",
			"Das Modell hat keine Belege aus den Dokumenten angegeben, seine Einschätzung konnte daher nicht verifiziert werden; bitte manuell prüfen.")
	}
	if out.Reasoning != "" {
		if out.Status == StatusOpen {
			note += text(lang, " Model's assessment: ", " Einschätzung des Modells: ") + out.Reasoning
		} else {
			note += text(lang, " Unverified assessment of the model ("+out.Status+"): ", " Nicht belegte Einschätzung des Modells ("+out.Status+"): ") + out.Reasoning
		}
	}
	out.Status = StatusOpen
	out.Reasoning = note
	return out
}

// cleanReasoning keeps the reasoning to printable text of bounded length.
func cleanReasoning(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxReasonChars {
		s = strings.TrimSpace(string(r[:maxReasonChars])) + "…"
	}
	return s
}

func text(lang, en, de string) string {
	if german(lang) {
		return de
	}
	return en
}

func nonNil(docs []*evidence.Document) []*evidence.Document {
	out := make([]*evidence.Document, 0, len(docs))
	for _, d := range docs {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}
