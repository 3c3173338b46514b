package reader

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/corpus"
)

func TestFull4Dbg(t *testing.T) {
	if os.Getenv("FULL4_CASE") == "" {
		t.Skip()
	}
	size, _ := strconv.Atoi(os.Getenv("FULL4"))
	seed, _ := strconv.ParseInt(os.Getenv("FULL4_SEED"), 10, 64)
	cases := corpus.Generate(seed, corpusNow, size)
	var keep []corpus.Case
	for _, c := range cases {
		if c.ID != os.Getenv("FULL4_CASE") {
			continue
		}
		var ds []corpus.Doc
		for _, d := range c.Docs {
			if strings.Contains(d.Name, os.Getenv("FULL4_DOC")) {
				ds = append(ds, d)
			}
		}
		c.Docs = ds
		keep = append(keep, c)
	}
	docs := extractAll(t, keep)
	for _, e := range docs {
		for _, p := range e.doc.Pages {
			t.Logf("--- page %d\n%q", p.Number, p.Text)
		}
		r := &reading{t: newText(e.doc), seen: map[string]bool{}}
		loc := documentLocale(r.t)
		t.Log(loc)
		for _, n := range r.t.pageNumbers() {
			r.t = newText(e.doc).onPage(n)
			t.Log(r.payPeriod(loc))
		}
	}
}
