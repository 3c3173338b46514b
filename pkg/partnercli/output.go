package partnercli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/doceval/doceval/pkg/sdk"
)

// printJSON writes v indented: with --json, stdout is the API's JSON and nothing else.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// println writes one line of prose between tables.
func (a *app) println(s string) { _, _ = io.WriteString(a.stdout, s+"\n") }

// table writes aligned columns; call row for each line and flush at the end.
type table struct{ w *tabwriter.Writer }

func (a *app) table(header ...string) *table {
	t := &table{w: tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)}
	t.row(toAny(header)...)
	return t
}

func (t *table) row(cells ...any) {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = cell(c)
	}
	fmt.Fprintln(t.w, strings.Join(parts, "\t"))
}

func (t *table) flush() error { return t.w.Flush() }

// details prints "key: value" lines for one object.
func (a *app) details(pairs ...any) error {
	t := &table{w: tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)}
	for i := 0; i+1 < len(pairs); i += 2 {
		t.row(fmt.Sprint(pairs[i])+":", pairs[i+1])
	}
	return t.flush()
}

func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "-"
	case string:
		if v == "" {
			return "-"
		}
		// Tabs or newlines in a value would break the columns.
		return strings.NewReplacer("\t", " ", "\n", " ").Replace(v)
	case time.Time:
		if v.IsZero() {
			return "-"
		}
		return v.UTC().Format(time.RFC3339)
	case *time.Time:
		if v == nil {
			return "-"
		}
		return cell(*v)
	case *string:
		if v == nil {
			return "-"
		}
		return cell(*v)
	case fmt.Stringer:
		return cell(v.String())
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return cell(strings.Trim(string(b), `"`))
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// receive decodes a raw generated-client response for the calls the SDK does not wrap,
// turning error answers into *sdk.Error like the SDK does.
func receive[T any](res *http.Response, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if err := sdk.ParseError(res, body); err != nil {
		return nil, err
	}
	v := new(T)
	if len(body) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return v, nil
}
