// Command doceval-corpus writes a synthetic corpus of credit submissions, one folder per
// case with its uploads and a truth.json, so people can look at the documents.
//
//	go run ./services/corpus -out /tmp/corpus -n 20 -now 2026-11-23
//	go run ./services/corpus -out /tmp/payslips -n 40 -only salary_statement/
//
// -only keeps the uploads whose layout family contains the text (see the layouts list
// it prints), and the cases that have one.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/devtools/corpus"
)

func main() {
	out := flag.String("out", "corpus", "output directory")
	seed := flag.Int64("seed", 1, "random seed: the same seed gives the same corpus")
	n := flag.Int("n", 10, "number of cases")
	nowFlag := flag.String("now", "", "submission date YYYY-MM-DD (default today)")
	only := flag.String("only", "", "write only uploads whose layout family contains this text")
	flag.Parse()
	now := time.Now().UTC()
	if *nowFlag != "" {
		t, err := time.Parse(time.DateOnly, *nowFlag)
		if err != nil {
			fmt.Fprintln(os.Stderr, "doceval-corpus: -now:", err)
			os.Exit(2)
		}
		now = t
	}
	cases, docs := 0, 0
	layouts := map[string]int{}
	for _, c := range corpus.Generate(*seed, now, *n) {
		c.Docs = slices.DeleteFunc(c.Docs, func(d corpus.Doc) bool { return !strings.Contains(d.LayoutFamily(), *only) })
		if len(c.Docs) == 0 {
			continue
		}
		if err := c.Write(*out); err != nil {
			fmt.Fprintln(os.Stderr, "doceval-corpus:", err)
			os.Exit(1)
		}
		cases++
		docs += len(c.Docs)
		for _, d := range c.Docs {
			layouts[d.LayoutFamily()]++
		}
	}
	names := make([]string, 0, len(layouts))
	for k := range layouts {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Printf("  %-40s %d\n", k, layouts[k])
	}
	fmt.Printf("wrote %d cases with %d documents to %s\n", cases, docs, *out)
}
