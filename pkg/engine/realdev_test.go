package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/devtools/corpus"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/reader"
	"github.com/doceval/doceval/pkg/extract"
)

// realDevFloors are the figures TestRealDev must keep on the real development documents
// (../shared/real-dev beside the repository): shares of 1 that must be reached, and the
// count of invented values that must not be exceeded. Raise them as the engine improves.
var realDevFloors = struct {
	Classification, Fields, IdentityFields float64
	// SureRight is the share of values returned at confidence 0.9 or above that must
	// be right.
	SureRight float64
	Invented  int
}{
	Classification: 1, Fields: 0.78, IdentityFields: 0.91, SureRight: 0.95, Invented: 0,
}

// realDevEntry is one document of the real development set's truth.json.
type realDevEntry struct {
	File         string         `json:"file"`
	SHA256       string         `json:"sha256"`
	DocumentType string         `json:"document_type"`
	Language     string         `json:"language"`
	Format       string         `json:"format"`
	Fields       map[string]any `json:"fields"`
}

// builtinCheckKeys are the catalog's builtin checks.
var builtinCheckKeys = []string{
	"documents_readable", "required_documents_present", "id_document_valid", "name_consistency", "income_documents_recent",
	"salary_statements_complete", "salary_credited_on_bank_statement", "property_data_consistency", "loan_to_value_within_limit",
	"additional_risk_notes",
}

// identityTypes are the document types whose fields the identity figure counts.
var identityTypes = []string{"id_card", "passport"}

// realDevDir finds the real development set: DOCEVAL_REAL_DEV, else shared/real-dev
// beside the repository's root (the folder holding go.work).
func realDevDir() string {
	if d := os.Getenv("DOCEVAL_REAL_DEV"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "real-dev")
		}
	}
	return ""
}

// TestRealDev reads every real development document as ingest and the evaluator do (the
// real extraction, then one evaluation per document with every builtin field and check,
// no slot hint) and scores it against the hand-checked truth: the document type, and per
// builtin field right, wrong, missing or invented (a value where the truth is null). Fields
// the truth does not assess, and its extra keys, are not scored. `make real-dev` prints
// the report; the floors keep a regression out of CI.
func TestRealDev(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-document test runs OCR: not in -short")
	}
	dir := realDevDir()
	raw, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Skipf("no real development set at %q (DOCEVAL_REAL_DEV names another): %v", dir, err)
	}
	for _, tool := range []string{"pdftotext", "pdfinfo", "pdftoppm", "tesseract"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the real-document test needs %s (make tools installs it)", tool)
		}
	}
	var entries []realDevEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatalf("truth.json: %v", err)
	}
	os.Setenv("OMP_THREAD_LIMIT", "1")
	docs := extractRealDev(t, dir, entries)

	var rep realDevReport
	eng := NewWithModel(nil, slog.New(slog.DiscardHandler))
	for i, e := range entries {
		if docs[i] == nil {
			continue
		}
		in := realDevInput(docs[i])
		res, err := eng.Evaluate(context.Background(), in, func(string, int) error { return nil })
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		rep.add(e, res)
		dumpRealDev(t, e, docs[i], res)
	}
	t.Log("\n" + rep.String())

	f := realDevFloors
	for _, gate := range []struct {
		what string
		got  ratio
		min  float64
	}{
		{"classification", rep.class, f.Classification}, {"fields", rep.fields, f.Fields},
		{"identity-document fields", rep.identity, f.IdentityFields},
		{"values at confidence ≥ 0.9 right", rep.reliability.sure(), f.SureRight},
	} {
		if gate.got.value() < gate.min {
			t.Errorf("%s: %s, below the floor of %.0f %%", gate.what, gate.got, 100*gate.min)
		}
	}
	if rep.invented > f.Invented {
		t.Errorf("invented values: %d, more than %d", rep.invented, f.Invented)
	}
}

// realDevInput is what the evaluator passes for a submission holding the one document:
// every builtin check and field, no requirements, judged today.
func realDevInput(doc *evidence.Document) Input {
	in := Input{Language: "en", Date: time.Now().UTC(), Template: corpus.TemplateRealEstate, Documents: []*evidence.Document{doc}}
	for _, k := range builtinCheckKeys {
		in.Checks = append(in.Checks, CheckSpec{ID: k, Key: k, Title: k, Builtin: true})
	}
	for _, k := range corpus.FieldKeys() {
		in.Fields = append(in.Fields, FieldSpec{ID: k, Key: k, Label: k, Builtin: true, Threshold: 0.8})
	}
	return in
}

// extractRealDev extracts every document as ingest would, in parallel. With
// DOCEVAL_REAL_DEV_CACHE set, the pages are kept there by the file's checksum, so work on
// the readers does not OCR again (remove the folder after changing extraction).
func extractRealDev(t *testing.T, dir string, entries []realDevEntry) []*evidence.Document {
	cache := os.Getenv("DOCEVAL_REAL_DEV_CACHE")
	out := make([]*evidence.Document, len(entries))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			path := filepath.Join(dir, "docs", e.File)
			body, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: %v", e.File, err)
				return
			}
			sum := sha256.Sum256(body)
			if e.SHA256 != "" && hex.EncodeToString(sum[:]) != e.SHA256 {
				t.Errorf("%s: checksum differs from truth.json", e.File)
				return
			}
			doc := &evidence.Document{UploadID: uuid.New(), FileID: uuid.New(), ExternalFileID: e.File, Filename: e.File}
			cached := ""
			if cache != "" {
				cached = filepath.Join(cache, hex.EncodeToString(sum[:])+".json")
				if b, err := os.ReadFile(cached); err == nil && json.Unmarshal(b, &doc.Pages) == nil {
					out[i] = doc
					return
				}
			}
			head := body[:min(len(body), 512)]
			res, err := extract.File(context.Background(), path, extract.Detect(head), extract.Options{Timeout: extractTimeout})
			if err != nil {
				t.Errorf("%s: extraction failed: %v", e.File, err)
				return
			}
			doc.Pages = append(doc.Pages, res.Pages...)
			if cached != "" {
				if b, err := json.Marshal(doc.Pages); err == nil {
					_ = os.MkdirAll(cache, 0o755)
					_ = os.WriteFile(cached, b, 0o644)
				}
			}
			out[i] = doc
		})
	}
	wg.Wait()
	return out
}

// realDevReport holds the per-document lines and the totals.
type realDevReport struct {
	lines                   []string
	class, fields, identity ratio
	invented                int
	byType                  map[string]*realDevTypeFigures
	reliability             reliability
}

type realDevTypeFigures struct {
	class, fields ratio
	invented      int
}

func (r *realDevReport) typ(t string) *realDevTypeFigures {
	if r.byType == nil {
		r.byType = map[string]*realDevTypeFigures{}
	}
	if r.byType[t] == nil {
		r.byType[t] = &realDevTypeFigures{}
	}
	return r.byType[t]
}

func (r *realDevReport) add(e realDevEntry, res Result) {
	tf := r.typ(e.DocumentType)
	var got []string
	if len(res.Documents) > 0 {
		got = res.Documents[0].DocumentTypes
	}
	verdict := "type right"
	if !tf.class.count(r.class.count(len(got) > 0 && got[0] == e.DocumentType)) {
		verdict = "type WRONG"
	}
	r.lines = append(r.lines, fmt.Sprintf("%s (%s, %s): %s, typed %v", e.File, e.DocumentType, e.Format, verdict, got))
	byKey := map[string]ResultField{}
	for _, f := range res.Fields {
		byKey[f.Key] = f
	}
	for _, k := range corpus.FieldKeys() {
		want, assessed := e.Fields[k]
		if !assessed {
			continue
		}
		f := byKey[k]
		show := fmt.Sprintf("%v", f.Value)
		if f.Value != nil {
			show = fmt.Sprintf("%v (%.2f)", f.Value, f.Confidence)
		}
		switch {
		case want == nil && f.Value == nil:
			continue
		case want == nil:
			r.invented++
			tf.invented++
			r.lines = append(r.lines, fmt.Sprintf("    %-24s INVENTED %s", k, show))
			r.reliability.count(f.Confidence, false)
			continue
		}
		right := realDevSame(want, f.Value)
		tf.fields.count(r.fields.count(right))
		if slices.Contains(identityTypes, e.DocumentType) {
			r.identity.count(right)
		}
		word := "right"
		switch {
		case f.Value == nil:
			word = "missing"
		case !right:
			word = "WRONG"
		}
		if f.Value != nil {
			r.reliability.count(f.Confidence, right)
		}
		r.lines = append(r.lines, fmt.Sprintf("    %-24s %-8s %s (want %v)", k, word, show, want))
	}
}

func (r *realDevReport) String() string {
	var b strings.Builder
	for _, l := range r.lines {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "\nclassification %s; fields %s; identity-document fields %s; invented %d\n", r.class, r.fields, r.identity, r.invented)
	types := make([]string, 0, len(r.byType))
	for k := range r.byType {
		types = append(types, k)
	}
	slices.Sort(types)
	b.WriteString("per document type (classification | fields | invented):\n")
	for _, k := range types {
		f := r.byType[k]
		fmt.Fprintf(&b, "  %-22s %-16s | %-16s | %d\n", k, f.class, f.fields, f.invented)
	}
	b.WriteString("reliability (confidence → share of returned values right):\n" + r.reliability.String())
	return b.String()
}

// realDevSame compares a result value with the truth: text case-insensitively with white
// space normalized, money by amount and currency, numbers to 0.01, years as text.
func realDevSame(want, got any) bool {
	if got == nil {
		return false
	}
	switch w := want.(type) {
	case string:
		return strings.EqualFold(evidence.Normalize(w), evidence.Normalize(fmt.Sprint(got)))
	case float64:
		switch g := got.(type) {
		case float64:
			return math.Abs(w-g) < 0.01
		case string:
			n, err := strconv.ParseFloat(g, 64)
			return err == nil && math.Abs(w-n) < 0.01
		}
	case map[string]any:
		g, ok := got.(map[string]string)
		if !ok {
			return false
		}
		wa, _ := strconv.ParseFloat(fmt.Sprint(w["amount"]), 64)
		ga, err := strconv.ParseFloat(g["amount"], 64)
		return err == nil && math.Abs(wa-ga) < 0.005 && fmt.Sprint(w["currency"]) == g["currency"]
	}
	return false
}

// dumpRealDev prints the types and every fact the reader finds in the documents named by
// DOCEVAL_REAL_DEV_DUMP (their two-digit prefixes, comma-separated): a tool for working
// on the reader, silent otherwise.
func dumpRealDev(t *testing.T, e realDevEntry, doc *evidence.Document, res Result) {
	want := os.Getenv("DOCEVAL_REAL_DEV_DUMP")
	if want == "" || !slices.Contains(strings.Split(want, ","), e.File[:2]) {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s types %v\n", e.File, reader.Classify(doc))
	for _, f := range reader.Facts(doc, res.Documents[0].DocumentTypes) {
		fmt.Fprintf(&b, "  %-26s %v (%.2f) %q\n", f.Key, f.Value, f.Confidence, f.Citation.Excerpt)
	}
	t.Log(b.String())
}

// reliability counts returned values right per confidence band: below 0.5, 0.5–0.7,
// 0.7–0.8, 0.8–0.9, 0.9 and above. A confidence means something when each band is
// right about as often as it says.
type reliability [5]ratio

var reliabilityBands = []string{"< 0.5", "0.5–0.7", "0.7–0.8", "0.8–0.9", "≥ 0.9"}

func (r *reliability) count(conf float64, right bool) {
	for i, top := range []float64{0.5, 0.7, 0.8, 0.9} {
		if conf < top {
			r[i].count(right)
			return
		}
	}
	r[4].count(right)
}

// sure is the band of values at 0.9 or above.
func (r *reliability) sure() ratio { return r[4] }

func (r *reliability) String() string {
	var b strings.Builder
	for i, name := range reliabilityBands {
		fmt.Fprintf(&b, "  %-8s %s\n", name, r[i])
	}
	return b.String()
}
