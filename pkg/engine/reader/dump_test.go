package reader

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/devtools/corpus"
)

// TestDumpCorpusDocument prints the extracted text and facts of the corpus uploads
// named by DOCEVAL_DUMP ("case-006/06_Statement" prefixes, comma-separated): a tool for
// tuning the reader, skipped otherwise.
func TestDumpCorpusDocument(t *testing.T) {
	want := os.Getenv("DOCEVAL_DUMP")
	if want == "" {
		t.Skip("set DOCEVAL_DUMP=case-id/file-prefix to print a corpus document")
	}
	n := 40
	if v, err := strconv.Atoi(os.Getenv("DOCEVAL_CORPUS_SIZE")); err == nil && v > 0 {
		n = v
	}
	cases := corpus.Generate(corpusSeed, corpusNow, n)
	for _, c := range cases {
		for _, d := range c.Docs {
			match := false
			for _, w := range strings.Split(want, ",") {
				match = match || strings.HasPrefix(c.ID+"/"+d.Name, w)
			}
			if !match {
				continue
			}
			path := filepath.Join(t.TempDir(), d.Name)
			require := func(err error) {
				if err != nil {
					t.Fatal(err)
				}
			}
			require(os.WriteFile(path, d.Bytes, 0o600))
			res, err := cachedExtract(path, d)
			require(err)
			doc := toDocument(c.ID, d, res)
			t.Logf("== %s/%s %s %s slot %q types %v photo %v", c.ID, d.Name, d.Format, d.Layout, d.Slot, d.Types, d.Photo)
			for _, p := range doc.Pages {
				t.Logf("-- page %d (ocr %v)\n%s", p.Number, p.OCR, p.Text)
			}
			scores := Classify(doc)
			t.Logf("classified %v", scores)
			for _, f := range Facts(doc, []string{scores[0].Type}) {
				t.Logf("fact %s = %v (%.2f, period %s) %q", f.Key, show(f.Value), f.Confidence, f.Period.Format("2006-01"), f.Citation.Excerpt)
			}
			if len(d.Parts) == 0 {
				t.Logf("truth %v", d.Fields)
			}
			for _, p := range d.Parts {
				t.Logf("truth of %s (%s) on pages %v: %v", p.Type, p.Layout, p.Pages, p.Fields)
			}
		}
	}
}
