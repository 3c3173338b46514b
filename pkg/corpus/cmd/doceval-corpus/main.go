// Command doceval-corpus writes a synthetic corpus of credit submissions, one folder per
// case with its uploads and a truth.json, so people can look at the documents.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/doceval/doceval/pkg/corpus"
)

func main() {
	out := flag.String("out", "corpus", "output directory")
	seed := flag.Int64("seed", 1, "random seed: the same seed gives the same corpus")
	n := flag.Int("n", 10, "number of cases")
	nowFlag := flag.String("now", "", "submission date YYYY-MM-DD (default today)")
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
	docs := 0
	for _, c := range corpus.Generate(*seed, now, *n) {
		if err := c.Write(*out); err != nil {
			fmt.Fprintln(os.Stderr, "doceval-corpus:", err)
			os.Exit(1)
		}
		docs += len(c.Docs)
	}
	fmt.Printf("wrote %d cases with %d documents to %s\n", *n, docs, *out)
}
