package reader

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/corpus"
)

func TestFull4Scratch(t *testing.T) {
	if os.Getenv("FULL4") == "" {
		t.Skip()
	}
	size, _ := strconv.Atoi(os.Getenv("FULL4"))
	seed, _ := strconv.ParseInt(os.Getenv("FULL4_SEED"), 10, 64)
	cases := corpus.Generate(seed, corpusNow, size)
	for i := range cases {
		var keep []corpus.Doc
		for _, d := range cases[i].Docs {
			if !corpus.IsScan(d.Format) {
				keep = append(keep, d)
			}
		}
		cases[i].Docs = keep
	}
	docs := extractAll(t, cases)
	m := measure(cases, docs)
	t.Logf("text fields %d/%d invented %d cites %d/%d", m.textOK, m.textN, m.invented, m.citeOK, m.citeN)
	t.Logf("layouts:\n%s", m.byLayout())
	for _, s := range m.misses {
		t.Log(s)
	}
	for _, e := range docs {
		if os.Getenv("FULL4_LAYOUT") == "" || !strings.Contains(e.d.Layout, os.Getenv("FULL4_LAYOUT")) {
			continue
		}
		t.Logf("=== %s %s\n%s", e.c.ID, e.d.Layout, e.doc.Pages[0].Text)
		for _, f := range Facts(e.doc, []string{e.d.Types[0]}) {
			t.Logf("  %s %v (%.2f) %q", f.Key, f.Value, f.Confidence, f.Citation.Excerpt)
		}
		t.Logf("  truth %v", e.d.Fields)
	}
}
