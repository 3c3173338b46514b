package builtin

import (
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The embedded files parse and pass the checks; the catalog is parsed once.
func TestLoad(t *testing.T) {
	t.Parallel()
	c, err := Load()
	require.NoError(t, err)
	again, err := Load()
	require.NoError(t, err)
	require.Same(t, c, again)
	for _, d := range c.DocumentTypes {
		require.NotEmpty(t, d.Description, "document type %s", d.Key)
	}
	for _, ch := range c.Checks {
		require.NotEmpty(t, ch.Description, "check %s", ch.Key)
	}
	f, ok := c.DataField("gross_monthly_income")
	require.True(t, ok)
	require.Equal(t, "currency", f.ValueFormat)
	require.Equal(t, []string{"salary_statement", "employment_contract", "self_disclosure"}, f.ReadFrom)
	_, ok = c.DataField("no_such_field")
	require.False(t, ok)
	ch, ok := c.Check("documents_readable")
	require.True(t, ok)
	require.Empty(t, ch.Prompt, "a check without a prompt gives the model its description")
	require.NotEmpty(t, Hash())
}

// A data file that breaks a rule is refused with a message that names the entry.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	valid := fstest.MapFS{}
	for _, name := range fileNames {
		b, err := fs.ReadFile(files, name)
		require.NoError(t, err)
		valid[name] = &fstest.MapFile{Data: b}
	}
	field := func(extra string) string {
		return "- key: new_field\n  display_name: New field\n  category: income\n" + extra
	}
	for _, tc := range []struct {
		name, file, entry, want string
	}{
		{"unknown read_from", "data_fields.yaml", field("  read_from: [payslip]\n  prompt: The new field.\n"), `builtin data_field "new_field": read_from "payslip" is no builtin document_type`},
		{"no read_from", "data_fields.yaml", field("  prompt: The new field.\n"), `builtin data_field "new_field": read_from and a prompt are required`},
		{"no prompt", "data_fields.yaml", field("  read_from: [salary_statement]\n"), `builtin data_field "new_field": read_from and a prompt are required`},
		{"unknown format", "data_fields.yaml", field("  value_format: euro\n  read_from: [salary_statement]\n  prompt: x\n"), `unknown value_format "euro"`},
		{"duplicate key", "data_fields.yaml", "- key: iban\n  display_name: IBAN\n  category: assets\n  read_from: [bank_statement]\n  prompt: x\n", `builtin data_field "iban": duplicate key`},
		{"unknown field", "data_fields.yaml", field("  read_from: [salary_statement]\n  prompt: x\n  model: gpt\n"), "field model not found"},
		{"unknown product", "checks.yaml", "- key: new_check\n  title: New\n  description: d\n  category: income\n  product_types: [car_loan]\n", `unknown product type "car_loan"`},
		{"unknown category", "document_types.yaml", "- key: new_doc\n  display_name: New\n  category: vehicle\n  description: d\n", `unknown category "vehicle"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := maps(valid)
			fsys[tc.file] = &fstest.MapFile{Data: append(slices.Clone(valid[tc.file].Data), "\n"+tc.entry...)}
			_, err := parse(fsys)
			require.ErrorContains(t, err, tc.want)
		})
	}
	t.Run("template reference", func(t *testing.T) {
		t.Parallel()
		fsys := maps(valid)
		fsys["templates.yaml"] = &fstest.MapFile{Data: []byte("- key: t\n  display_name: T\n  data_field_items:\n    - data_field: no_such_field\n")}
		_, err := parse(fsys)
		require.ErrorContains(t, err, `builtin template "t": no builtin data_field "no_such_field"`)
	})
}

func maps(m fstest.MapFS) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// openapi.yaml's enums and the catalog name the same builtins and the same allowed
// values, and the enums' descriptions give each builtin the catalog's category or
// value format: a builtin added to one and not the other fails here.
func TestSpecAgrees(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../openapi/openapi.yaml")
	require.NoError(t, err)
	var spec struct {
		Components struct {
			Schemas map[string]struct {
				Description string   `yaml:"description"`
				Enum        []string `yaml:"enum"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(b, &spec))
	c := MustLoad()
	schemas := spec.Components.Schemas
	for schema, want := range map[string][]string{
		"BuiltinDocumentTypeKey": c.DocumentTypeKeys(),
		"BuiltinDataFieldKey":    c.DataFieldKeys(),
		"BuiltinCheckKey":        c.CheckKeys(),
		"BuiltinTemplateKey":     c.TemplateKeys(),
		"CheckCategory":          CheckCategories,
		"DataFieldCategory":      DataFieldCategories,
		"DocumentTypeCategory":   DocumentTypeCategories,
		"ProductType":            ProductTypes,
		"ValueFormat":            ValueFormats,
	} {
		got := schemas[schema].Enum
		require.NotEmpty(t, got, "openapi.yaml has no enum %s", schema)
		for _, k := range got {
			if !slices.Contains(want, k) {
				t.Errorf("openapi.yaml's %s has %q, the catalog does not", schema, k)
			}
		}
		for _, k := range want {
			if !slices.Contains(got, k) {
				t.Errorf("the catalog has %q, openapi.yaml's %s does not", k, schema)
			}
		}
	}
	described := func(schema string, key, want string) {
		desc := schemas[schema].Description
		if got := describedAs(desc)[key]; got != want {
			t.Errorf("openapi.yaml's %s describes %s as %q, the catalog as %q", schema, key, got, want)
		}
		if !strings.Contains(desc, "`"+key+"`") {
			t.Errorf("openapi.yaml's %s does not name %s in its description", schema, key)
		}
	}
	for _, d := range c.DocumentTypes {
		described("BuiltinDocumentTypeKey", d.Key, d.Category)
	}
	for _, f := range c.DataFields {
		described("BuiltinDataFieldKey", f.Key, f.ValueFormat) // free text: in no "(format)" group
	}
	for _, ch := range c.Checks {
		described("BuiltinCheckKey", ch.Key, ch.Category)
	}
}

// describedAs reads the groups of a key enum's description, "`a`, `b` and `c` (x)",
// as a → x, b → x, c → x.
func describedAs(desc string) map[string]string {
	desc = strings.Join(strings.Fields(desc), " ")
	out := map[string]string{}
	for _, m := range describedGroup.FindAllStringSubmatch(desc, -1) {
		for _, k := range describedKey.FindAllStringSubmatch(m[1], -1) {
			out[k[1]] = m[2]
		}
	}
	return out
}

var (
	describedGroup = regexp.MustCompile("((?:`[a-z0-9_]+`(?:, | and |,? and )?)+) \\(([a-z_]+)\\)")
	describedKey   = regexp.MustCompile("`([a-z0-9_]+)`")
)
