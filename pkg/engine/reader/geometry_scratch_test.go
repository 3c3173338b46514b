package reader

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/doceval/doceval/pkg/corpus"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/layout"
	"github.com/doceval/doceval/pkg/extract"
)

// Scratch measurement (not to be committed): the reader accuracy with the words kept.
func TestScratchGeoAccuracy(t *testing.T) {
	if os.Getenv("SCRATCH_GEO") == "" {
		t.Skip()
	}
	os.Setenv("OMP_THREAD_LIMIT", "1")
	cases := corpus.Generate(int64(corpusSeed), corpusNow, corpusSize)
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
			_ = os.WriteFile(path, j.d.Bytes, 0o600)
			res, err := cachedExtract(path, j.d)
			if err != nil {
				res = &extract.Result{}
			}
			j.doc, j.err = toDocument(j.c.ID, j.d, res), err
			if os.Getenv("SCRATCH_GEO") == "words" {
				j.doc.Pages = nil
				for _, p := range res.Pages {
					j.doc.Pages = append(j.doc.Pages, p.Evidence())
				}
			}
		}()
	}
	wg.Wait()
	report := func(name string, jobs []extracted) {
		words, regions, cites := 0, 0, 0
		for _, j := range jobs {
			for _, p := range j.doc.Pages {
				words += len(p.Words)
			}
			scores := Classify(j.doc)
			for _, f := range Facts(j.doc, []string{scores[0].Type}) {
				cites++
				if len(f.Citation.Regions) > 0 {
					regions++
				} else if words > 0 && os.Getenv("SCRATCH_NOREG") != "" {
					pg := j.doc.Page(f.Citation.Pages[0])
					rs := layout.RegionsFor(pg, f.Citation.Excerpt)
					var sample []string
					if len(rs) == 0 {
						for _, w := range pg.Words[:min(40, len(pg.Words))] {
							sample = append(sample, w.Text)
						}
					}
					t.Logf("NOREG %s %s ocr=%v words=%d found=%d %q %q", j.d.Name, f.Key, pg.OCR, len(pg.Words), len(rs), f.Citation.Excerpt, sample)
				}
			}
		}
		m := measure(cases, jobs)
		t.Logf("%s: words %d, citations with regions %d/%d", name, words, regions, cites)
		t.Logf("%s: classification: %d/%d", name, m.classOK, m.classN)
		t.Logf("%s: fields text: %d/%d; scans %d/%d", name, m.textOK, m.textN, m.scanOK, m.scanN)
		t.Logf("%s: citations verifiable: %d/%d", name, m.citeOK, m.citeN)
		for _, miss := range m.misses {
			t.Log(name + " MISS " + miss)
		}
	}
	report("words", jobs)
	plain := make([]extracted, len(jobs))
	for i, j := range jobs {
		d := *j.doc
		d.Pages = nil
		for _, p := range j.doc.Pages {
			p.Words = nil
			d.Pages = append(d.Pages, p)
		}
		j.doc = &d
		plain[i] = j
	}
	report("text", plain)
	_ = evidence.Normalize
}
