package corpus

import (
	"time"

	"github.com/doceval/doceval/pkg/catalog/builtin"
)

type timeT = time.Time

// FieldKeys are the builtin data fields (pkg/catalog/builtin's data_fields), in
// catalog order.
func FieldKeys() []string { return builtin.MustLoad().DataFieldKeys() }

// statement is what one document (or one part of a merged upload) states.
type statement struct {
	doc    *Doc
	typ    string
	fields map[string]any
	period time.Time
}

func statements(docs []Doc) []statement {
	var out []statement
	for i := range docs {
		d := &docs[i]
		if !d.Readable {
			continue
		}
		if len(d.Parts) == 0 {
			out = append(out, statement{doc: d, typ: d.Types[0], fields: d.Fields, period: d.Period})
			continue
		}
		for _, p := range d.Parts {
			out = append(out, statement{doc: d, typ: p.Type, fields: p.Fields, period: p.Period})
		}
	}
	return out
}

// pickFields chooses each field's value from the readable documents by the product
// rule for which document a builtin data field's value is taken from, the catalog's
// read_from (pkg/catalog/builtin): per field, the document types whose statement
// counts, best first; within a type the newest statement (its period) wins. A field no
// document of a listed type prints has no truth: a value the engine returns for it is
// invented.
func pickFields(docs []Doc) (map[string]any, map[string]string) {
	values, sources := map[string]any{}, map[string]string{}
	all := statements(docs)
	for _, f := range builtin.MustLoad().DataFields {
		key := f.Key
		for _, typ := range f.ReadFrom {
			var best *statement
			for i := range all {
				s := &all[i]
				if s.typ != typ {
					continue
				}
				if _, ok := s.fields[key]; !ok {
					continue
				}
				if best == nil || s.period.After(best.period) {
					best = s
				}
			}
			if best != nil {
				values[key], sources[key] = best.fields[key], best.doc.Name
				break
			}
		}
	}
	return values, sources
}

func monthIndex(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }
