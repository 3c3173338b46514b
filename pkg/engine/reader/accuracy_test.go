package reader

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/devtools/corpus"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/doceval/doceval/pkg/extract"
)

// readerGates are the thresholds of the reader's accuracy test, in one place: shares
// (of 1) to reach and counts not to exceed. Invented counts values read for a field no
// document prints. Check verdicts (and their false alarms) are pkg/engine's test's.
var readerGates = struct {
	Classification, TextFields, ScanFields, Citations float64
	Invented                                          int
}{Classification: 0.98, TextFields: 0.95, ScanFields: 0.90, Citations: 1, Invented: 0}

// corpusSize keeps the test near a minute on two cores: scans take OCR.
const (
	corpusSeed = 20251114
	corpusSize = 12
)

var corpusNow = time.Date(2025, 11, 14, 0, 0, 0, 0, time.UTC)

// readerExtractTimeout is generous: a merged scan of seven pages OCRs for minutes on a
// busy machine, and the test measures reading, not speed.
const readerExtractTimeout = 10 * time.Minute

// extracted is one generated upload after ingest.
type extracted struct {
	c   *corpus.Case
	d   corpus.Doc
	doc *evidence.Document
	err error
}

// TestCorpusAccuracy reads a synthetic corpus through the real extraction (pdftotext,
// OCR) and measures classification, field values and citations against its truth.
func TestCorpusAccuracy(t *testing.T) {
	for _, tool := range []string{"pdftotext", "pdfinfo", "pdftoppm", "tesseract"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the corpus accuracy test: %s is not installed (apt-get install poppler-utils tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng)", tool)
		}
	}
	// The acceptance figures come from pkg/engine's TestCorpusAccuracy, which runs the
	// whole engine over a corpus; this one measures the reader alone, with knobs for
	// tuning it (DOCEVAL_EXTRACT_CACHE, DOCEVAL_DUMP), and would only repeat that OCR.
	if os.Getenv("DOCEVAL_READER_ACCURACY") == "" {
		t.Skip("set DOCEVAL_READER_ACCURACY=1 to measure the reader alone (pkg/engine's TestCorpusAccuracy is the gate)")
	}
	// One OCR thread per tesseract: the test runs as many as there are cores, and
	// tesseract's own threads would only fight over them.
	os.Setenv("OMP_THREAD_LIMIT", "1")
	t.Parallel()
	size := corpusSize
	if n, err := strconv.Atoi(os.Getenv("DOCEVAL_CORPUS_SIZE")); err == nil && n > 0 {
		size = n // a bigger (or smaller) run while tuning the reader
	}
	seed := int64(corpusSeed)
	if n, err := strconv.ParseInt(os.Getenv("DOCEVAL_CORPUS_SEED"), 10, 64); err == nil {
		seed = n // another corpus, to check that tuning did not overfit this one
	}
	start := time.Now()
	cases := corpus.Generate(seed, corpusNow, size)
	generated := time.Since(start)
	docs := extractAll(t, cases)
	extractedIn := time.Since(start) - generated

	m := measure(cases, docs)
	t.Logf("corpus: %d cases, %d uploads (%s); generated in %s, extracted in %s",
		len(cases), len(docs), m.composition, generated.Round(time.Millisecond), extractedIn.Round(time.Millisecond))
	t.Logf("classification: %d/%d = %.1f %%", m.classOK, m.classN, pct(m.classOK, m.classN))
	t.Logf("fields from text documents: %d/%d = %.1f %%", m.textOK, m.textN, pct(m.textOK, m.textN))
	t.Logf("fields from scans: %d/%d = %.1f %%", m.scanOK, m.scanN, pct(m.scanOK, m.scanN))
	t.Logf("citations verifiable: %d/%d", m.citeOK, m.citeN)
	t.Logf("values where the truth has none (invented): %d", m.invented)
	t.Logf("MRZ check-digit verdicts on well-formed zones: %d/%d (%d zones read with the wrong length)", m.mrzOK, m.mrzN, m.mrzMalformed)
	t.Logf("per layout family (classification | fields | invented):\n%s", m.byLayout())
	for _, miss := range m.misses {
		t.Log(miss)
	}
	g := readerGates
	require.GreaterOrEqual(t, pct(m.classOK, m.classN), 100*g.Classification, "classification accuracy")
	require.GreaterOrEqual(t, pct(m.textOK, m.textN), 100*g.TextFields, "field accuracy on text documents")
	require.GreaterOrEqual(t, pct(m.scanOK, m.scanN), 100*g.ScanFields, "field accuracy on scans")
	require.GreaterOrEqual(t, pct(m.citeOK, m.citeN), 100*g.Citations, "every citation verifies")
	require.LessOrEqual(t, m.invented, g.Invented, "values for fields no document prints")
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// extractAll writes every upload to a temporary file and extracts it, in parallel.
func extractAll(t *testing.T, cases []corpus.Case) []extracted {
	dir := t.TempDir()
	var jobs []extracted
	for i := range cases {
		for _, d := range cases[i].Docs {
			jobs = append(jobs, extracted{c: &cases[i], d: d})
		}
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			j := &jobs[i]
			path := filepath.Join(dir, j.c.ID+"-"+j.d.Name)
			if err := os.WriteFile(path, j.d.Bytes, 0o600); err != nil {
				j.err = err
				return
			}
			res, err := cachedExtract(path, j.d)
			if err != nil {
				res = &extract.Result{} // an unreadable upload may fail extraction: no pages
			}
			j.doc, j.err = toDocument(j.c.ID, j.d, res), err
		}()
	}
	wg.Wait()
	return jobs
}

type measurement struct {
	composition                  string
	classOK, classN              int
	textOK, textN, scanOK, scanN int
	citeOK, citeN                int
	mrzOK, mrzN, mrzMalformed    int
	invented                     int
	layouts                      map[string]*layoutCount
	misses                       []string
}

// layoutCount is one layout family's figures.
type layoutCount struct {
	classOK, classN, fieldOK, fieldN, invented int
}

func (m *measurement) layout(family string) *layoutCount {
	if m.layouts == nil {
		m.layouts = map[string]*layoutCount{}
	}
	if m.layouts[family] == nil {
		m.layouts[family] = &layoutCount{}
	}
	return m.layouts[family]
}

func (m *measurement) byLayout() string {
	names := make([]string, 0, len(m.layouts))
	for k := range m.layouts {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		l := m.layouts[k]
		fmt.Fprintf(&b, "  %-40s %3d/%-3d | %3d/%-3d | %d\n", k, l.classOK, l.classN, l.fieldOK, l.fieldN, l.invented)
	}
	return b.String()
}

func measure(cases []corpus.Case, docs []extracted) measurement {
	var m measurement
	formats := map[string]int{}
	byCase := map[string][]extracted{}
	for _, e := range docs {
		byCase[e.c.ID] = append(byCase[e.c.ID], e)
		formats[e.d.Format]++
	}
	var fs []string
	for f, n := range formats {
		fs = append(fs, fmt.Sprintf("%s %d", f, n))
	}
	sort.Strings(fs)
	m.composition = strings.Join(fs, ", ")
	for _, c := range cases {
		var facts []evidence.Fact
		types := map[uuid.UUID][]string{}
		format := map[string]string{}
		for _, e := range byCase[c.ID] {
			format[e.d.Name] = e.d.Format
			if e.err != nil && e.d.Readable {
				m.misses = append(m.misses, fmt.Sprintf("%s %s: extraction failed: %v", c.ID, e.d.Name, e.err))
			}
			scores := Classify(e.doc)
			top := scores[0].Type
			types[e.doc.UploadID] = []string{top}
			m.classN++
			lc := m.layout(e.d.LayoutFamily())
			lc.classN++
			if top == e.d.Types[0] {
				m.classOK++
				lc.classOK++
			} else {
				m.misses = append(m.misses, fmt.Sprintf("%s %s (%s, %s, slot %q): classified %s (%.2f), want %s", c.ID, e.d.Name, e.d.Format, e.d.Layout, e.d.Slot, top, scores[0].Confidence, e.d.Types[0]))
			}
			df := Facts(e.doc, []string{top})
			for _, f := range df {
				m.citeN++
				if e.doc.Verify(f.Citation) {
					m.citeOK++
				} else {
					m.misses = append(m.misses, fmt.Sprintf("%s %s: citation of %s does not verify: %q", c.ID, e.d.Name, f.Key, f.Citation.Excerpt))
				}
				if f.Key == evidence.FactMRZ && len(e.d.MRZ) > 0 {
					lines := strings.Split(f.Value.(string), "\n")
					if !wellFormedMRZ(lines) {
						m.mrzMalformed++ // OCR lost or added characters: no verdict possible
						continue
					}
					m.mrzN++
					if corpus.ValidMRZ(lines) == e.d.MRZValid {
						m.mrzOK++
					} else {
						m.misses = append(m.misses, fmt.Sprintf("%s %s (%s): MRZ read %q, valid want %v", c.ID, e.d.Name, e.d.Format, f.Value, e.d.MRZValid))
					}
				}
			}
			facts = append(facts, df...)
		}
		layoutOf := map[string]string{}
		uploadName := map[uuid.UUID]corpus.Doc{}
		for _, e := range byCase[c.ID] {
			layoutOf[e.d.Name] = e.d.LayoutFamily()
			uploadName[e.doc.UploadID] = e.d
		}
		for _, key := range corpus.FieldKeys() {
			if _, stated := c.Fields[key]; stated {
				continue
			}
			if got, _, ok := Field(key, facts, types); ok {
				m.invented++
				d := uploadName[got.Citation.UploadID]
				m.layout(d.LayoutFamily()).invented++
				m.misses = append(m.misses, fmt.Sprintf("%s %s (%s, %s) field %s: want none (no document prints it), got %v from %q", c.ID, d.Name, d.Format, d.Layout, key, show(got.Value), got.Citation.Excerpt))
			}
		}
		keys := make([]string, 0, len(c.Fields))
		for k := range c.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			want := c.Fields[key]
			src := c.FieldSources[key]
			scan := corpus.IsScan(format[src])
			got, _, ok := Field(key, facts, types)
			hit := ok && equalValue(key, want, got.Value)
			lc := m.layout(layoutOf[src])
			lc.fieldN++
			if hit {
				lc.fieldOK++
			}
			if scan {
				m.scanN++
			} else {
				m.textN++
			}
			if hit {
				if scan {
					m.scanOK++
				} else {
					m.textOK++
				}
				continue
			}
			gotS := "nothing"
			if ok {
				gotS = fmt.Sprintf("%v (from %q)", show(got.Value), got.Citation.Excerpt)
			}
			m.misses = append(m.misses, fmt.Sprintf("%s %s (%s, %s) field %s: want %v, got %s", c.ID, src, format[src], layoutOf[src], key, show(want), gotS))
		}
	}
	return m
}

// equalValue: the same value; names case-insensitively with white space normalized.
func equalValue(key string, want, got any) bool {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		if !ok {
			return false
		}
		if key == "applicant_full_name" || key == "employer_name" || key == "property_address" {
			return strings.EqualFold(evidence.Normalize(w), evidence.Normalize(g))
		}
		return w == g
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(w-g) < 0.001
	case time.Time:
		g, ok := got.(time.Time)
		return ok && w.Equal(g)
	case corpus.Money:
		g, ok := got.(parse.Money)
		return ok && g.Cents == w.Cents && g.Currency == w.Currency
	}
	return false
}

func show(v any) string {
	switch x := v.(type) {
	case time.Time:
		return x.Format(time.DateOnly)
	case parse.Money:
		return x.String()
	case corpus.Money:
		return fmt.Sprintf("%s %v", x.Currency, corpus.JSONValues(map[string]any{"v": x})["v"].(map[string]string)["amount"])
	}
	return fmt.Sprint(v)
}

// cachedExtract runs extract.File; with DOCEVAL_EXTRACT_CACHE set to a directory it
// keeps results there by content hash, so that tuning the reader does not wait for OCR.
func cachedExtract(path string, d corpus.Doc) (*extract.Result, error) {
	dir := os.Getenv("DOCEVAL_EXTRACT_CACHE")
	key := ""
	if dir != "" {
		key = filepath.Join(dir, fmt.Sprintf("%x.json", sha256.Sum256(d.Bytes)))
		if b, err := os.ReadFile(key); err == nil {
			var res extract.Result
			if json.Unmarshal(b, &res) == nil {
				return &res, nil
			}
		}
	}
	res, err := extract.File(context.Background(), path, d.ContentType, extract.Options{Timeout: readerExtractTimeout})
	if err == nil && key != "" {
		if b, err := json.Marshal(res); err == nil {
			_ = os.MkdirAll(dir, 0o755)
			_ = os.WriteFile(key, b, 0o644)
		}
	}
	return res, err
}

// toDocument is the evidence document ingest would store for the upload.
func toDocument(caseID string, d corpus.Doc, res *extract.Result) *evidence.Document {
	doc := &evidence.Document{
		UploadID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(caseID+"/"+d.Name)),
		SlotType: d.Slot, Filename: d.Name,
	}
	doc.ExternalFileID = doc.UploadID.String()
	doc.Pages = append(doc.Pages, res.Pages...)
	return doc
}

// wellFormedMRZ: three lines of 30 or two of 44 characters, as ICAO 9303 prints them.
func wellFormedMRZ(lines []string) bool {
	n := 0
	switch len(lines) {
	case 3:
		n = 30
	case 2:
		n = 44
	default:
		return false
	}
	for _, l := range lines {
		if len(l) != n {
			return false
		}
	}
	return true
}
