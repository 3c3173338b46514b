package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Write puts the case's uploads into dir/<case id>/ with a truth.json beside them.
func (c Case) Write(dir string) error {
	out := filepath.Join(dir, c.ID)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, d := range c.Docs {
		if err := os.WriteFile(filepath.Join(out, d.Name), d.Bytes, 0o644); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(c.truthJSON(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "truth.json"), append(b, '\n'), 0o644)
}

// truthJSON is the case with values in the API's JSON shapes: money as
// {"amount": "3250.00", "currency": "EUR"}, dates as "YYYY-MM-DD".
func (c Case) truthJSON() any {
	docs := make([]map[string]any, len(c.Docs))
	for i, d := range c.Docs {
		var m map[string]any
		b, _ := json.Marshal(d)
		_ = json.Unmarshal(b, &m)
		m["fields"] = JSONValues(d.Fields)
		if parts, ok := m["parts"].([]any); ok {
			for j, p := range parts {
				p.(map[string]any)["fields"] = JSONValues(d.Parts[j].Fields)
			}
		}
		docs[i] = m
	}
	// The builtin fields nothing prints, spelled out: a value for one is invented.
	none := []string{}
	for _, k := range FieldKeys() {
		if _, ok := c.Fields[k]; !ok {
			none = append(none, k)
		}
	}
	return map[string]any{
		"fields_none": none,
		"id":          c.ID, "language": c.Language, "now": c.Now.Format(time.DateOnly), "template": c.Template,
		"scenarios": c.Scenarios, "fields": JSONValues(c.Fields), "field_sources": c.FieldSources,
		"checks": c.Checks, "checks_also": c.ChecksAlso, "docs": docs,
	}
}

// JSONValues converts field values to their API JSON form.
func JSONValues(fields map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range fields {
		switch x := v.(type) {
		case Money:
			out[k] = map[string]string{"amount": fmt.Sprintf("%d.%02d", x.Cents/100, abs(x.Cents%100)), "currency": x.Currency}
			if x.Cents < 0 && x.Cents > -100 {
				out[k] = map[string]string{"amount": fmt.Sprintf("-0.%02d", -x.Cents), "currency": x.Currency}
			}
		case time.Time:
			out[k] = x.Format(time.DateOnly)
		default:
			out[k] = v
		}
	}
	return out
}
