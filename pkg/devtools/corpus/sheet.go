package corpus

import (
	"math/rand/v2"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// sheet collects the lines of a document, page by page.
type sheet struct {
	pages [][]string
}

func (s *sheet) add(lines ...string) {
	if len(s.pages) == 0 {
		s.pages = append(s.pages, nil)
	}
	last := len(s.pages) - 1
	s.pages[last] = append(s.pages[last], lines...)
}

func (s *sheet) newPage() { s.pages = append(s.pages, nil) }

// kvStyle is how a form prints a label and its value.
type kvStyle int

const (
	kvColon kvStyle = iota // "Label: value"
	kvTab                  // label, then the value in a column
	kvBelow                // the label on one line, the value under it
)

func randomKV(r *rand.Rand) kvStyle { return kvStyle(r.IntN(3)) }

func (s *sheet) kv(style kvStyle, label, value string) {
	switch style {
	case kvColon:
		s.add(label + ": " + value)
	case kvTab:
		s.add(label + "\t" + value)
	default:
		s.add(samplepdf.Small+label, value)
	}
}

// layoutFor draws a page geometry: font size, leading, and the column of values.
func layoutFor(r *rand.Rand, tabs ...float64) samplepdf.Layout {
	size := 9 + float64(r.IntN(5))*0.5
	return samplepdf.Layout{
		FontSize: size,
		Leading:  size * (1.25 + float64(r.IntN(4))*0.1),
		Left:     50 + float64(r.IntN(20)),
		Tabs:     tabs,
	}
}

// tr picks the German or the English text.
func tr(lang, de, en string) string {
	if lang == "de" {
		return de
	}
	return en
}

const (
	bold  = samplepdf.Bold
	mono  = samplepdf.Mono
	large = samplepdf.Large
	small = samplepdf.Small
)
