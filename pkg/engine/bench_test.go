package engine

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/devtools/corpus"
	"github.com/doceval/doceval/pkg/engine/evidence"
)

// BenchmarkEngine runs the deterministic engine alone over the text of a generated
// submission's documents (no database, no queue): the engine's share of an evaluation.
func BenchmarkEngine(b *testing.B) {
	c := corpus.Generate(3, time.Now(), 1)[0]
	in := Input{Language: c.Language, Date: c.Now, Template: c.Template}
	for _, d := range c.Docs {
		doc := &evidence.Document{UploadID: uuid.New(), ExternalFileID: d.Name}
		for i, lines := range d.Pages {
			text := ""
			for _, l := range lines {
				text += l + "\n"
			}
			doc.Pages = append(doc.Pages, evidence.Page{Number: i + 1, Text: text, Chars: len(text)})
		}
		in.Documents = append(in.Documents, doc)
	}
	for _, k := range []string{"documents_readable", "required_documents_present", "id_document_valid", "name_consistency", "income_documents_recent",
		"salary_statements_complete", "salary_credited_on_bank_statement", "property_data_consistency", "loan_to_value_within_limit", "additional_risk_notes"} {
		in.Checks = append(in.Checks, CheckSpec{ID: k, Key: k, Builtin: true})
	}
	for _, k := range []string{"applicant_full_name", "iban", "net_monthly_income", "purchase_price", "living_area", "loan_to_value"} {
		in.Fields = append(in.Fields, FieldSpec{ID: k, Key: k, Builtin: true, Threshold: 0.8})
	}
	eng := NewWithModel(nil, slog.New(slog.DiscardHandler))
	pages := 0
	for _, d := range in.Documents {
		pages += len(d.Pages)
	}
	b.ReportMetric(float64(pages), "pages")
	for b.Loop() {
		if _, err := eng.Evaluate(context.Background(), in, func(string, int) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
