package partnercli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/pkg/sdk"
)

// emit prints one answer: the API's JSON with --json, ids with -q, else what human
// prints for people.
func (a *app) emit(v any, ids []string, human func() error) error {
	switch {
	case a.global.json:
		return a.printJSON(v)
	case a.global.quiet:
		for _, id := range ids {
			a.println(id)
		}
		return nil
	default:
		return human()
	}
}

// columns are how a list prints: an item's id (for -q) and its table row.
type columns[T any] struct {
	id     func(*T) string
	header []string
	row    func(*T) []any
}

// emitList prints a list as JSON, ids or a table with one row per item.
func emitList[T any](a *app, items []*T, cols columns[T]) error {
	ids := make([]string, len(items))
	for i, item := range items {
		ids[i] = cols.id(item)
	}
	return a.emit(items, ids, func() error {
		t := a.table(cols.header...)
		for _, item := range items {
			t.row(cols.row(item)...)
		}
		return t.flush()
	})
}

// pages is a list command's request: the SDK's iterator for its arguments and flags,
// asking for pages of pageSize.
type pages[T any] func(ctx context.Context, args []string, pageSize *int) (iter.Seq2[*T, error], error)

// listRunE is the RunE of a list command: read as many items as --limit/--all ask for
// and print them.
func listRunE[T any](a *app, list *listFlags, fetch pages[T], cols columns[T]) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		limit, err := list.max()
		if err != nil {
			return err
		}
		items, err := fetch(cmd.Context(), args, pageSize(limit))
		if err != nil {
			return err
		}
		got, err := collect(items, limit)
		if err != nil {
			return err
		}
		return emitList(a, got, cols)
	}
}

// done reports a write the API answers without a body (204): a message for people, the
// id with -q, and {"id": id, result: true} with --json.
func (a *app) done(id, result, message string) error {
	return a.emit(map[string]any{"id": id, result: true}, []string{id}, func() error {
		a.println(message)
		return nil
	})
}

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
	// A nil pointer of any type (an unassigned slot id, a missing time) is a dash.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "-"
	}
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
