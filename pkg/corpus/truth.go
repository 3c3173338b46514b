package corpus

import (
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

type timeT = time.Time

// pickFields chooses each field's value from the readable documents by FieldPriority.
func pickFields(docs []Doc) (map[string]any, map[string]string) {
	values, sources := map[string]any{}, map[string]string{}
	for key, types := range evidence.FieldPriority {
	byType:
		for _, typ := range types {
			var best *Doc
			for i := range docs {
				d := &docs[i]
				if !d.Readable || d.Types[0] != typ {
					continue
				}
				if _, ok := d.Fields[key]; !ok {
					continue
				}
				if best == nil || d.Period.After(best.Period) {
					best = d
				}
			}
			if best != nil {
				values[key], sources[key] = best.Fields[key], best.Name
				break byType
			}
		}
	}
	return values, sources
}

func monthIndex(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }
