package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/devtools/corpus"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/extract"
)

// accuracyGates are the acceptance thresholds of TestCorpusAccuracy, in one place:
// shares (of 1) that must be reached, and counts that must not be exceeded.
var accuracyGates = struct {
	Classification, TextFields, ScanFields, Checks, Citations float64
	// SureRight is the share of values returned at confidence 0.9 or above that must
	// be right: a confidence that means something.
	SureRight float64
	// Invented counts values returned for a field no document prints; CriticalOnClean
	// counts critical verdicts in submissions whose truth has none (false alarms).
	Invented, CriticalOnClean int
}{
	Classification: 0.98, TextFields: 0.95, ScanFields: 0.90, Checks: 0.95, Citations: 1, SureRight: 0.95,
	Invented: 0, CriticalOnClean: 0,
}

// The corpus the acceptance figures are measured on: the seed is fixed so a failure
// can be reproduced, the size keeps the test within three minutes on two cores (scans
// take OCR). DOCEVAL_CORPUS_SIZE and DOCEVAL_CORPUS_SEED run another one.
const (
	accuracySeed = 20261123
	accuracySize = 12
)

// extractTimeout is generous: a merged scan of seven pages OCRs for minutes on a busy
// two-core machine, and the test measures reading, not speed.
const extractTimeout = 10 * time.Minute

// TestCorpusAccuracy evaluates a synthetic corpus end to end: every generated upload
// goes through the real extraction (pdftotext, tesseract, DOCX), the engine evaluates
// each submission, and the result is measured against the corpus's ground truth, which
// the corpus decides from what it printed, without the engine's rules. The figures are
// printed per layout family, every miss in the verbose output.
func TestCorpusAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus accuracy test runs OCR over a corpus: not in -short")
	}
	for _, tool := range []string{"pdftotext", "pdfinfo", "pdftoppm", "tesseract"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the corpus accuracy test needs %s (make tools installs it)", tool)
		}
	}
	os.Setenv("OMP_THREAD_LIMIT", "1") // one tesseract per core, each single-threaded
	t.Parallel()
	size := accuracySize
	if n, err := strconv.Atoi(os.Getenv("DOCEVAL_CORPUS_SIZE")); err == nil && n > 0 {
		size = n
	}
	seed := int64(accuracySeed)
	if n, err := strconv.ParseInt(os.Getenv("DOCEVAL_CORPUS_SEED"), 10, 64); err == nil {
		seed = n // a corpus the engine was not tuned on
	}
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	start := time.Now()
	cases := corpus.Generate(seed, now, size)
	docs := extractCorpus(t, cases)
	extracted := time.Since(start)

	m := newAccuracy()
	eng := NewWithModel(nil, slog.New(slog.DiscardHandler))
	for i, c := range cases {
		res, err := eng.Evaluate(context.Background(), corpusInput(c, docs[i]), func(string, int) error { return nil })
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		m.add(c, docs[i], res)
	}
	t.Logf("corpus seed %d: %d submissions, %d uploads (%s); generated and extracted in %s", seed, len(cases), m.uploads, m.formats(), extracted.Round(time.Second))
	t.Logf("classification: %s", m.class)
	t.Logf("fields, text documents: %s; scans: %s", m.textFields, m.scanFields)
	t.Logf("values where the truth has none (invented): %d", m.invented)
	t.Logf("check verdicts: %s; critical verdicts on clean submissions: %d", m.checks, m.criticalOnClean)
	t.Logf("citations verifiable: %s", m.citations)
	t.Logf("reliability (confidence → share of returned values right):\n%s", m.reliability.String())
	t.Logf("per layout family (classification | fields | invented):\n%s", m.byLayout())
	for _, miss := range m.misses {
		t.Log(miss)
	}
	g := accuracyGates
	for _, gate := range []struct {
		what string
		got  ratio
		min  float64
	}{
		{"classification", m.class, g.Classification}, {"fields on text documents", m.textFields, g.TextFields},
		{"fields on scans", m.scanFields, g.ScanFields}, {"check verdicts", m.checks, g.Checks}, {"citations", m.citations, g.Citations},
		{"values at confidence ≥ 0.9 right", m.reliability.sure(), g.SureRight},
	} {
		if gate.got.n == 0 || gate.got.value() < gate.min {
			t.Errorf("%s: %s, below %.0f %%", gate.what, gate.got, 100*gate.min)
		}
	}
	if m.invented > g.Invented {
		t.Errorf("values where no document prints the field: %d, more than %d", m.invented, g.Invented)
	}
	if m.criticalOnClean > g.CriticalOnClean {
		t.Errorf("critical verdicts on clean submissions: %d, more than %d", m.criticalOnClean, g.CriticalOnClean)
	}
}

// corpusInput is what the evaluator would pass for the case: the template's required
// documents, every builtin check of the truth and every builtin field.
func corpusInput(c corpus.Case, docs []*evidence.Document) Input {
	in := Input{Language: c.Language, Date: c.Now, Template: c.Template, Documents: docs}
	for _, typ := range corpus.RequiredTypes[c.Template] {
		in.Requirements = append(in.Requirements, Requirement{Type: typ, Required: true})
	}
	keys := make([]string, 0, len(c.Checks))
	for k := range c.Checks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		in.Checks = append(in.Checks, CheckSpec{ID: k, Key: k, Title: k, Builtin: true})
	}
	for _, k := range corpus.FieldKeys() {
		in.Fields = append(in.Fields, FieldSpec{ID: k, Key: k, Label: k, Builtin: true, Threshold: 0.8})
	}
	return in
}

// extractCorpus writes every upload to a file and extracts it as ingest would, in
// parallel; the result holds each case's documents in upload order.
func extractCorpus(t *testing.T, cases []corpus.Case) [][]*evidence.Document {
	dir := t.TempDir()
	out := make([][]*evidence.Document, len(cases))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range cases {
		out[i] = make([]*evidence.Document, len(c.Docs))
		for j, d := range c.Docs {
			doc := &evidence.Document{UploadID: uuid.New(), FileID: uuid.New(), ExternalFileID: d.Name, SlotType: d.Slot, Filename: d.Name}
			out[i][j] = doc
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				path := filepath.Join(dir, c.ID+"-"+d.Name)
				if err := os.WriteFile(path, d.Bytes, 0o600); err != nil {
					t.Error(err)
					return
				}
				res, err := extract.File(context.Background(), path, d.ContentType, extract.Options{Timeout: extractTimeout})
				if err != nil {
					if d.Readable {
						t.Errorf("%s %s: extraction failed: %v", c.ID, d.Name, err)
					}
					return // ingest would mark it failed; an unreadable upload may
				}
				doc.Pages = append(doc.Pages, res.Pages...)
			})
		}
	}
	wg.Wait()
	return out
}

type ratio struct{ ok, n int }

func (r *ratio) count(hit bool) bool {
	r.n++
	if hit {
		r.ok++
	}
	return hit
}

func (r ratio) value() float64 {
	if r.n == 0 {
		return 0
	}
	return float64(r.ok) / float64(r.n)
}

func (r ratio) String() string { return fmt.Sprintf("%d/%d = %.1f %%", r.ok, r.n, 100*r.value()) }

// layoutFigures are one layout family's counts.
type layoutFigures struct {
	class, fields ratio
	invented      int
}

type accuracy struct {
	uploads                                          int
	byFormat                                         map[string]int
	layouts                                          map[string]*layoutFigures
	class, textFields, scanFields, checks, citations ratio
	invented, criticalOnClean                        int
	reliability                                      reliability
	misses                                           []string
}

func newAccuracy() *accuracy {
	return &accuracy{byFormat: map[string]int{}, layouts: map[string]*layoutFigures{}}
}

func (m *accuracy) formats() string {
	var out []string
	for f, n := range m.byFormat {
		out = append(out, fmt.Sprintf("%s %d", f, n))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func (m *accuracy) layout(family string) *layoutFigures {
	if m.layouts[family] == nil {
		m.layouts[family] = &layoutFigures{}
	}
	return m.layouts[family]
}

func (m *accuracy) byLayout() string {
	names := make([]string, 0, len(m.layouts))
	for k := range m.layouts {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		f := m.layouts[k]
		fmt.Fprintf(&b, "  %-40s %-18s | %-18s | %d\n", k, f.class, f.fields, f.invented)
	}
	return b.String()
}

func (m *accuracy) add(c corpus.Case, docs []*evidence.Document, res Result) {
	byUpload := map[uuid.UUID]*evidence.Document{}
	source := map[uuid.UUID]corpus.Doc{}
	byName := map[string]corpus.Doc{}
	for i, d := range c.Docs {
		m.uploads++
		format := d.Format
		if d.Photo {
			format += " (photo)"
		}
		m.byFormat[format]++
		byUpload[docs[i].UploadID] = docs[i]
		source[docs[i].UploadID] = d
		byName[d.Name] = d
		got := res.Documents[i].DocumentTypes
		hit := len(got) > 0 && got[0] == d.Types[0]
		if len(d.Parts) > 0 {
			// A merged upload is read right when every document in it is found.
			hit = true
			for _, p := range d.Parts {
				hit = hit && slices.Contains(got, p.Type)
			}
		}
		if !m.layout(d.LayoutFamily()).class.count(m.class.count(hit)) {
			m.misses = append(m.misses, fmt.Sprintf("%s %s (%s, %s, slot %q): classified %v, want %v", c.ID, d.Name, d.Format, d.Layout, d.Slot, got, d.Types))
		}
	}
	verify := func(what string, cs []evidence.Citation) {
		for _, cite := range cs {
			d := byUpload[cite.UploadID]
			if !m.citations.count(d != nil && d.Verify(cite)) {
				m.misses = append(m.misses, fmt.Sprintf("%s %s: citation does not verify: %+v", c.ID, what, cite))
			}
		}
	}
	truth := corpus.JSONValues(c.Fields)
	for _, f := range res.Fields {
		verify(f.Key, f.Citations)
		want, stated := truth[f.Key]
		if !stated {
			if f.Value != nil {
				m.invented++
				m.reliability.count(f.Confidence, false)
				from := "?"
				if len(f.Citations) > 0 {
					d := source[f.Citations[0].UploadID]
					from = d.Name
					m.layout(d.LayoutFamily()).invented++
				}
				m.misses = append(m.misses, fmt.Sprintf("%s %s field %s: want none (no document prints it), got %v", c.ID, from, f.Key, f.Value))
			}
			continue
		}
		src := byName[c.FieldSources[f.Key]]
		bucket := &m.textFields
		if corpus.IsScan(src.Format) {
			bucket = &m.scanFields
		}
		right := sameValue(want, f.Value)
		if f.Value != nil {
			m.reliability.count(f.Confidence, right)
		}
		if !m.layout(src.LayoutFamily()).fields.count(bucket.count(right)) {
			m.misses = append(m.misses, fmt.Sprintf("%s %s (%s, %s) field %s: want %v, got %v (%s)", c.ID, src.Name, src.Format, src.Layout, f.Key, want, f.Value, f.Status))
		}
	}
	for _, chk := range res.Checks {
		verify(chk.Key, chk.Citations)
		if !m.checks.count(c.AcceptsCheck(chk.Key, chk.Status)) {
			want := c.Checks[chk.Key]
			if also := c.ChecksAlso[chk.Key]; len(also) > 0 {
				want += " (or " + strings.Join(also, ", ") + ")"
			}
			m.misses = append(m.misses, fmt.Sprintf("%s check %s: want %s, got %s (%s); scenarios %v", c.ID, chk.Key, want, chk.Status, chk.ReasoningSummary, c.Scenarios))
		}
		if c.Clean() && chk.Status == corpus.Critical {
			m.criticalOnClean++
			m.misses = append(m.misses, fmt.Sprintf("%s check %s: critical on a clean submission (%s)", c.ID, chk.Key, chk.ReasoningSummary))
		}
	}
}

// sameValue compares a result value with the truth in its JSON form: names and other
// free text case-insensitively with white space normalized, numbers to the cent.
func sameValue(want, got any) bool {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		return ok && strings.EqualFold(evidence.Normalize(w), evidence.Normalize(g))
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(w-g) < 0.005
	case map[string]string:
		g, ok := got.(map[string]string)
		return ok && reflect.DeepEqual(w, g)
	}
	return reflect.DeepEqual(want, got)
}

// The measurement itself: a value for a field no document prints counts as invented, a
// critical verdict on a clean submission as a false alarm, an accepted alternative
// verdict as right, and a merged upload is classified right only with all its parts.
func TestAccuracyMeasure(t *testing.T) {
	t.Parallel()
	c := corpus.Case{
		ID: "case-x",
		Docs: []corpus.Doc{
			{Name: "a.pdf", Format: corpus.FormatTextPDF, Types: []string{"salary_statement"}, Layout: "salary_statement/x", Readable: true},
			{Name: "b.pdf", Format: corpus.FormatScanPDF, Types: []string{"salary_statement", "id_card"}, Layout: "merged", Readable: true,
				Parts: []corpus.Part{{Type: "salary_statement"}, {Type: "id_card"}}},
		},
		Fields:       map[string]any{"employer_name": "ACME GmbH"},
		FieldSources: map[string]string{"employer_name": "a.pdf"},
		Checks:       map[string]string{"documents_readable": corpus.Fulfilled, "name_consistency": corpus.Fulfilled},
		ChecksAlso:   map[string][]string{"name_consistency": {corpus.Open}},
	}
	docs := []*evidence.Document{{UploadID: uuid.New()}, {UploadID: uuid.New()}}
	res := Result{
		Documents: []ResultDocument{{DocumentTypes: []string{"salary_statement"}}, {DocumentTypes: []string{"salary_statement"}}},
		Fields: []ResultField{
			{Key: "employer_name", Value: "acme  gmbh"},
			{Key: "iban", Value: "DE89370400440532013000", Citations: []evidence.Citation{{UploadID: docs[0].UploadID}}},
			{Key: "living_area", Value: nil},
		},
		Checks: []ResultCheck{{Key: "documents_readable", Status: corpus.Critical}, {Key: "name_consistency", Status: corpus.Open}},
	}
	m := newAccuracy()
	m.add(c, docs, res)
	require.Equal(t, ratio{1, 2}, m.class, "the merged upload lacks its ID card")
	require.Equal(t, ratio{1, 1}, m.textFields)
	require.Equal(t, 1, m.invented)
	require.Equal(t, 1, m.layouts["salary_statement/x"].invented)
	require.Equal(t, ratio{1, 2}, m.checks)
	require.Equal(t, 1, m.criticalOnClean)
	require.Len(t, m.misses, 5) // class, invented, check, false alarm, citation
}
