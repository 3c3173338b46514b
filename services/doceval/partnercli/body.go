package partnercli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// dataFlag adds --data, the request body of a write as JSON, to cmd.
func dataFlag(cmd *cobra.Command, data *string) {
	cmd.Flags().StringVar(data, "data", "", "request body as JSON, @FILE or - (stdin); flags given beside it set their fields over it")
}

// readData resolves a --data value: JSON as is, @FILE the file's content, - stdin.
func (a *app) readData(arg string) ([]byte, error) {
	switch {
	case arg == "-":
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, fmt.Errorf("read the body from stdin: %w", err)
		}
		return b, nil
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, usagef("--data: %v", err)
		}
		return b, nil
	default:
		return []byte(arg), nil
	}
}

// body is a JSON object request body: --data's fields, then those set by flags. It is
// sent as JSON, so a field the CLI has no flag for yet still reaches the API.
type body struct {
	cmd    *cobra.Command
	fields map[string]any
}

// newBody starts a body from --data (which must hold a JSON object), or empty.
func (a *app) newBody(cmd *cobra.Command, data string) (*body, error) {
	b := &body{cmd: cmd, fields: map[string]any{}}
	if data == "" {
		return b, nil
	}
	raw, err := a.readData(data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // large integers and exact decimals pass through unchanged
	var v any
	err = dec.Decode(&v)
	fields, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, usagef("--data is not a JSON object: %s", problem(err, v))
	}
	b.fields = fields
	return b, nil
}

// problem says why a value is not what was asked for: the parse error, else its kind.
func problem(err error, v any) string {
	if err != nil {
		return err.Error()
	}
	switch v.(type) {
	case nil:
		return "it is null"
	case []any:
		return "it is an array"
	case map[string]any:
		return "it is an object"
	case string:
		return "it is a string"
	case bool:
		return "it is a boolean"
	default:
		return "it is a number"
	}
}

// set puts value at field when the flag was given on the command line.
func (b *body) set(flag, field string, value any) {
	if b.cmd.Flags().Changed(flag) {
		b.fields[field] = value
	}
}

// require fails unless each field is set, by its flag or in --data.
func (b *body) require(flagsAndFields ...string) error {
	for i := 0; i+1 < len(flagsAndFields); i += 2 {
		if _, ok := b.fields[flagsAndFields[i+1]]; !ok {
			return usagef("%s: --%s is required (or %q in --data)", b.cmd.CommandPath(), flagsAndFields[i], flagsAndFields[i+1])
		}
	}
	return nil
}

func (b *body) empty() bool { return len(b.fields) == 0 }

// reader is the body for a generated client's XxxWithBody method.
func (b *body) reader() io.Reader {
	raw, _ := json.Marshal(b.fields) // values come from flags and a decoded object: always encodable
	return bytes.NewReader(raw)
}

// jsonValue parses a flag holding JSON, such as --metadata (what: "a JSON object") or
// --items ("a JSON array").
func (a *app) jsonValue(flag, what, arg string) (any, error) {
	raw, err := a.readData(arg)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err = dec.Decode(&v)
	_, isObject := v.(map[string]any)
	_, isArray := v.([]any)
	if err != nil || (what == "a JSON object" && !isObject) || (what == "a JSON array" && !isArray) {
		return nil, usagef("--%s is not %s: %s", flag, what, problem(err, v))
	}
	return v, nil
}

const jsonContentType = "application/json"

// fieldFlag is a flag that sets one top-level field of a request body.
type fieldFlag struct {
	flag, field, usage string
	// list: repeatable, sent as an array. nullable: "" is sent as null.
	list, nullable bool
}

// bodyFields registers fields' flags on cmd and returns what copies the given ones
// into a body.
func bodyFields(cmd *cobra.Command, fields ...fieldFlag) func(*body) {
	values := make([]any, len(fields))
	for i, f := range fields {
		if f.list {
			v := new([]string)
			cmd.Flags().StringArrayVar(v, f.flag, nil, f.usage)
			values[i] = v
			continue
		}
		v := new(string)
		cmd.Flags().StringVar(v, f.flag, "", f.usage)
		values[i] = v
	}
	return func(b *body) {
		for i, f := range fields {
			switch v := values[i].(type) {
			case *[]string:
				b.set(f.flag, f.field, *v)
			case *string:
				if f.nullable && *v == "" {
					b.set(f.flag, f.field, nil)
					continue
				}
				b.set(f.flag, f.field, *v)
			}
		}
	}
}
