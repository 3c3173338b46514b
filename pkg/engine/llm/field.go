package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/google/uuid"
)

// Value formats of a data field (spec 2.4); FormatText is the absent value_format.
const (
	FormatText         = ""
	FormatCurrency     = "currency"
	FormatYears        = "years"
	FormatPercent      = "percent"
	FormatSquareMeters = "square_meters"
	FormatDate         = "date"
)

// FieldRequest is one custom data field to extract from the documents of a submission.
type FieldRequest struct {
	Key, DisplayName string
	// Prompt is the partner's extraction instruction.
	Prompt string
	// ValueFormat is "" (free text), currency, years, percent, square_meters or date.
	ValueFormat string
	Language    string
	Documents   []*evidence.Document
	// Types are the classified document types per upload.
	Types map[uuid.UUID][]string
}

// FieldOutcome is the extracted, re-parsed and verified value.
type FieldOutcome struct {
	// Value is nil when not found or when the printed value does not parse; else
	// parse.Money (currency), time.Time at UTC midnight (date), float64 (years, percent,
	// square_meters) or string (free text).
	Value      any
	Confidence float64
	Citations  []evidence.Citation
	// Printed is the value as the model read it from the document ("" when not found).
	Printed string
	// PagesOmitted counts the pages not shown to the model for the context budget.
	PagesOmitted int
	// CitationsDropped counts the model's citations that were not on their page.
	CitationsDropped int
	// Verified: the value parsed and is printed in a citation that is on its page.
	Verified bool
}

// Field asks the model for one custom data field. The model only reports the value as
// printed; the value itself is parsed here, deterministically, with pkg/engine/parse.
// Transport failures, rejected requests and output that never parses return an error.
func (c *Client) Field(ctx context.Context, req FieldRequest) (FieldOutcome, error) {
	if err := validField(req); err != nil {
		return FieldOutcome{}, err
	}
	docs := nonNil(req.Documents)
	sel := selectPages(docs, req.Types, fieldQuestion(req), c.cfg.MaxContextChars)
	documents := documentsText(sel)
	items := []item{fieldItem("", req)}

	var ans fieldAnswer
	err := c.run(ctx, exchange{
		schemaName: "field_value",
		schema:     fieldSchema(),
		messages: func(jsonObject bool) []chatMessage {
			return messages(documents, fieldTask(items, jsonObject))
		},
		decode: func(content string) error {
			a, err := decodeField(content)
			if err == nil {
				ans = a
			}
			return err
		},
	})
	if err != nil {
		return FieldOutcome{}, err
	}
	return fieldOutcome(req.ValueFormat, docs, ans, sel.omitted), nil
}

func validField(req FieldRequest) error {
	switch req.ValueFormat {
	case FormatText, FormatCurrency, FormatYears, FormatPercent, FormatSquareMeters, FormatDate:
	default:
		return fmt.Errorf("llm: unknown value format %q", req.ValueFormat)
	}
	if strings.TrimSpace(req.Prompt) == "" && strings.TrimSpace(req.DisplayName) == "" {
		return errors.New("llm: field has neither prompt nor display name")
	}
	return nil
}

// fieldQuestion is what page selection looks for.
func fieldQuestion(req FieldRequest) string {
	return strings.Join([]string{strings.ReplaceAll(req.Key, "_", " "), req.DisplayName, req.Prompt}, "\n")
}

func fieldOutcome(format string, docs []*evidence.Document, ans fieldAnswer, omitted int) FieldOutcome {
	v := verifyCitations(docs, ans.Citations)
	printed := strings.TrimSpace(string(ans.Value))
	found := *ans.Found && printed != ""
	out := FieldOutcome{
		Confidence:       evidenceConfidence(clampConfidence(ans.Confidence), v, found),
		Citations:        v.citations,
		PagesOmitted:     omitted,
		CitationsDropped: v.dropped,
	}
	if !found {
		return out
	}
	out.Printed = printed
	value, ok := parseValue(format, printed)
	if !ok {
		out.Confidence = capped(out.Confidence, CapUnparsed)
		return out
	}
	out.Value = value
	if !inExcerpts(printed, v.citations) {
		out.Confidence = capped(out.Confidence, CapValueNotInExcerpt)
		return out
	}
	out.Verified = true
	return out
}

// parseValue reads the printed value in the field's format.
func parseValue(format, printed string) (any, bool) {
	switch format {
	case FormatCurrency:
		m, _, ok := parse.Amount(printed)
		return m, ok
	case FormatDate:
		d, _, ok := parse.Date(printed)
		if !ok {
			return nil, false
		}
		return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC), true
	case FormatYears:
		y, _, ok := parse.Years(printed)
		return y, ok
	case FormatPercent:
		p, _, ok := parse.Percent(printed)
		return p, ok
	case FormatSquareMeters:
		a, _, ok := parse.Area(printed)
		return a, ok
	default:
		return printed, printed != ""
	}
}

// inExcerpts reports whether the printed value appears, whitespace-normalized, in one
// of the verified excerpts.
func inExcerpts(printed string, cites []evidence.Citation) bool {
	p := evidence.Normalize(printed)
	for _, c := range cites {
		e := evidence.Normalize(c.Excerpt)
		if strings.Contains(e, p) || strings.Contains(e, unneutralize(p)) {
			return true
		}
	}
	return false
}
