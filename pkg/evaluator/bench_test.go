package evaluator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/devtools/corpus"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// BenchmarkEvaluation measures a submission of 10 text documents (about 30 pages) from
// the start of its evaluation (what POST evaluations does: the row, the outbox, the
// job through JetStream) to completed, against the time ingest took to extract the same
// files in the same run. Goal: at most 2 s for the evaluation itself.
func BenchmarkEvaluation(b *testing.B) {
	if err := extract.CheckTools(); err != nil {
		b.Skip(err)
	}
	e := newEnv(b)
	ctx := context.Background()
	docs := benchDocuments(b, 10, 30)
	sub, _, err := e.tenant.CreateSubmission(ctx, submission.New{ExternalID: "bench", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var ingest time.Duration
	pages := 0
	for i, d := range docs {
		path := filepath.Join(dir, d.Name)
		if err := os.WriteFile(path, d.Bytes, 0o600); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := extract.File(ctx, path, d.ContentType, extract.Options{})
		ingest += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		u, _, err := e.tenant.CreateUpload(ctx, submission.NewUpload{
			SubmissionID: sub.ID, ExternalFileID: d.Name, FileID: uuid.New(), Filename: d.Name,
			ContentType: d.ContentType, Size: int64(len(d.Bytes)), SHA256: []byte{byte(i)}, BlobKey: d.Name,
		})
		if err != nil {
			b.Fatal(err)
		}
		texts := make([]document.Page, len(res.Pages))
		for j, p := range res.Pages {
			texts[j] = document.Page{Number: p.Number, Text: p.Text, Chars: p.Chars, Width: p.Width, Height: p.Height, Words: p.Words}
		}
		pages += len(texts)
		if err := e.st.FinishIngest(ctx, u.ID, texts, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	e.worker(testConfig(), engine.NewWithModel(nil, e.log))
	b.ResetTimer()
	for b.Loop() {
		ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
		if err != nil {
			b.Fatal(err)
		}
		e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, time.Minute)
	}
	b.StopTimer()
	perEval := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(len(docs)), "documents")
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(float64(ingest.Milliseconds()), "ingest-ms")
	b.ReportMetric(float64(perEval.Microseconds())/1000, "evaluation-ms")
	b.ReportMetric(float64(perEval)/float64(ingest), "evaluation/ingest")
}

// benchDocuments picks n text documents from the corpus and fills each up to
// pages/n pages with the small print that real statements and contracts carry.
func benchDocuments(b *testing.B, n, pages int) []corpus.Doc {
	var out []corpus.Doc
	for _, c := range corpus.Generate(7, time.Now(), 12) {
		for _, d := range c.Docs {
			if d.Format != corpus.FormatTextPDF || len(out) == n {
				continue
			}
			text := d.Pages
			for len(text) < pages/n {
				text = append(text, smallPrint(len(text)))
			}
			d.Name, d.Pages, d.Bytes = fmt.Sprintf("%s-%s", c.ID, d.Name), text, samplepdf.Text(text)
			out = append(out, d)
		}
	}
	if len(out) < n {
		b.Fatalf("the corpus has only %d text documents", len(out))
	}
	return out
}

func smallPrint(n int) []string {
	lines := []string{fmt.Sprintf("Seite %d - Allgemeine Hinweise", n+1)}
	for i := range 24 {
		lines = append(lines, fmt.Sprintf("%d. Die Bank haftet nicht fuer Schaeden, die durch hoehere Gewalt entstehen; Ziffer %d gilt entsprechend.", i+1, n+i))
	}
	return lines
}
