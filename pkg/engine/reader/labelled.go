package reader

import (
	"strings"
	"time"
	"unicode"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/layout"
)

// Confidence of a custom field's value read after its label: on the label's line, and
// under the label or its heading.
const (
	labelledSameLine = 0.7
	labelledBelow    = 0.65
)

// LabelledValue reads a field that no reader knows (a custom data field) by its label
// on the documents' pages: every label–value pair a page holds is harvested by its
// geometry (layout.Page.Pairs, with no list of labels), and the first pair whose label
// is the field's (folded, in whole words; see sameLabel) and whose value reads in the
// field's format gives the value, cited as the builtin readers cite. format is the
// data field's value_format: "currency" (parse.Money, in the document's currency and
// none where it states none), "date" (time.Time), "percent", "years", "square_meters"
// (float64), "" for the text as printed. Pages without words have no pairs.
func LabelledValue(docs []*evidence.Document, label, format string) (evidence.Fact, bool) {
	want := labelTerms(label)
	if len(want) == 0 {
		return evidence.Fact{}, false
	}
	for _, doc := range docs {
		r := &reading{t: newText(doc), seen: map[string]bool{}}
		loc := documentLocale(r.t)
		read := valueReader(format, loc)
		for _, p := range doc.Pages {
			g := r.t.geometry(p.Number)
			if g == nil {
				continue
			}
			for _, pair := range g.Pairs() {
				if !sameLabel(labelTerms(pair.Label.Text()), want) {
					continue
				}
				v, ok := read(pair.Value.Text)
				if !ok {
					continue
				}
				c, ok := g.Cite(doc, p.Number, pair.Label.Words, pair.Value.Words)
				if !ok {
					continue
				}
				base := labelledBelow
				if pair.Value.How == layout.SameLine {
					base = labelledSameLine
				}
				conf := r.confidence(c, base)
				return evidence.Fact{Key: label, Value: v, Confidence: conf, Citation: c}, true
			}
		}
	}
	return evidence.Fact{}, false
}

// valueReader reads a value in a data field's format.
func valueReader(format string, loc locale) func(string) (any, bool) {
	wrap := func(f func(string) (float64, bool)) func(string) (any, bool) {
		return func(s string) (any, bool) { return f(s) }
	}
	switch format {
	case "currency":
		return func(s string) (any, bool) { return loc.money(s) }
	case "date":
		return func(s string) (any, bool) {
			d, ok := loc.cellDate(s)
			return d, ok && d.After(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC))
		}
	case "percent":
		return wrap(readPercent)
	case "years":
		return wrap(readYears)
	case "square_meters":
		return wrap(readArea)
	}
	return func(s string) (any, bool) {
		s = strings.TrimSpace(strings.TrimLeft(s, ":"))
		return s, s != "" && len(s) <= 200
	}
}

// labelTerms are a label's words folded (see foldString), without punctuation:
// "Steuer-ID:" is "steuer id".
func labelTerms(s string) []string {
	return strings.FieldsFunc(foldString(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// sameLabel reports a printed label that is the field's: the same words, or the field's
// words in a row within a label of at most two words more ("Krankenkasse (KK)" for
// "Krankenkasse", "Tax ID No" for "Tax ID"). A word of the field's inside a longer word
// does not count.
func sameLabel(printed, field []string) bool {
	if len(printed) < len(field) || len(printed) > len(field)+2 {
		return false
	}
	for i := 0; i+len(field) <= len(printed); i++ {
		match := true
		for j, w := range field {
			if printed[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
