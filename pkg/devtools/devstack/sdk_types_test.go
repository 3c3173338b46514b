package devstack_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// clientPlumbing are the generated client's own types, not the contract's: a partner
// reaches the generated client through sdk.Client.API and needs none of them by name.
var clientPlumbing = []string{
	"Client", "ClientOption", "ClientInterface", "ClientWithResponses", "ClientWithResponsesInterface",
	"HttpRequestDoer", "RequestEditorFn", "CallbackInitiator", "CallbackInitiatorOption", "CallbackInitiatorInterface",
}

// A partner imports only pkg/sdk: it re-exports, as aliases of the same name, every type
// of the contract's schemas that the generated client has (components/schemas and their
// enums; not components/parameters and components/responses, the requests' bodies,
// responses and headers, nor the client's plumbing), every list and request-parameter
// type (…Params) a call of the SDK takes, and every constant of those types. A type or
// enum value added to the spec fails this test until pkg/sdk/types.go names it; the
// failure lists the lines to add.
func TestSDKReexportsTheClientTypes(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	gen, err := parser.ParseFile(fset, filepath.Join(repo, "gen/client/client.gen.go"), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	notSchemas := specComponentNames(t, filepath.Join(repo, "openapi/openapi.yaml"), "parameters", "responses")
	sdkFiles := parseSDK(t, fset, filepath.Join(repo, "pkg/sdk"))

	want := map[string]bool{}
	var order []string
	for _, d := range gen.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, spec := range g.Specs {
			name := spec.(*ast.TypeSpec).Name.Name
			if slices.Contains(clientPlumbing, name) || notSchemas[name] ||
				strings.HasSuffix(name, "Response") || strings.HasSuffix(name, "Headers") ||
				strings.HasSuffix(name, "RequestBody") || strings.HasSuffix(name, "Params") {
				continue
			}
			want[name] = true
			order = append(order, name)
		}
	}
	for _, name := range paramsTakenBySDK(sdkFiles) {
		if !want[name] {
			want[name] = true
			order = append(order, name)
		}
	}
	var consts []string
	for _, d := range gen.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if typ, ok := v.Type.(*ast.Ident); ok && want[typ.Name] {
				for _, n := range v.Names {
					consts = append(consts, n.Name)
				}
			}
		}
	}

	types, values := sdkAliases(t, sdkFiles)
	var missing []string
	for _, name := range order {
		if types[name] != name {
			missing = append(missing, fmt.Sprintf("\t%s = client.%s", name, name))
		}
	}
	if len(missing) > 0 {
		t.Errorf("pkg/sdk does not re-export %d types of the client; add to the type block of types.go:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	missing = nil
	for _, name := range consts {
		if values[name] != name {
			missing = append(missing, fmt.Sprintf("\t%s = client.%s", name, name))
		}
	}
	if len(missing) > 0 {
		t.Errorf("pkg/sdk does not re-export %d constants of the client; add to the const block of types.go:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	for alias, of := range types {
		if alias != of {
			t.Errorf("sdk.%s is client.%s: a re-export keeps the client's name", alias, of)
		}
	}
	for alias, of := range values {
		if alias != of {
			t.Errorf("sdk.%s is client.%s: a re-export keeps the client's name", alias, of)
		}
	}
}

// specComponentNames are the names under the given sections of the spec's components.
func specComponentNames(t *testing.T, file string, sections ...string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Components map[string]map[string]yaml.Node `yaml:"components"`
	}
	if err := yaml.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range sections {
		for name := range spec.Components[s] {
			names[name] = true
		}
	}
	return names
}

// parseSDK parses the non-test files of package sdk.
func parseSDK(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// paramsTakenBySDK are the client's …Params types named in the signatures of the SDK's
// exported functions and methods.
func paramsTakenBySDK(files []*ast.File) []string {
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			ast.Inspect(fn.Type, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && isIdent(sel.X, "client") && strings.HasSuffix(sel.Sel.Name, "Params") && !slices.Contains(names, sel.Sel.Name) {
					names = append(names, sel.Sel.Name)
				}
				return true
			})
		}
	}
	return names
}

// sdkAliases maps each type alias of the form `X = client.Y` in package sdk to Y, and
// each constant `X = client.Y` to Y.
func sdkAliases(t *testing.T, files []*ast.File) (types, values map[string]string) {
	t.Helper()
	types, values = map[string]string{}, map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if sel, ok := s.Type.(*ast.SelectorExpr); ok && s.Assign.IsValid() && isIdent(sel.X, "client") {
						types[s.Name.Name] = sel.Sel.Name
					}
				case *ast.ValueSpec:
					if g.Tok != token.CONST {
						continue
					}
					for i, v := range s.Values {
						if sel, ok := v.(*ast.SelectorExpr); ok && isIdent(sel.X, "client") {
							values[s.Names[i].Name] = sel.Sel.Name
						}
					}
				}
			}
		}
	}
	return types, values
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
