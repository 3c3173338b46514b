package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/catalog/builtin"
	"github.com/doceval/doceval/pkg/engine/evidence"
)

// The engine and the builtin catalog (pkg/catalog/builtin) name the same things: every
// builtin data field has a reader in pkg/engine/reader, every field key the reader or
// the engine's checks name is a builtin field (or one of evidence's Fact* keys), every
// builtin check has a rule, and the document types the engine names are the
// catalog's. openapi.yaml's side is pkg/catalog/builtin's TestSpecAgrees.
func TestEngineAgreesWithCatalog(t *testing.T) {
	t.Parallel()
	c := builtin.MustLoad()
	fields := c.DataFieldKeys()
	factKeys := []string{evidence.FactPayPeriod, evidence.FactBankCredit, evidence.FactMRZ, evidence.FactGarnishment,
		evidence.FactReturnedDebit, evidence.FactProbation, evidence.FactFixedTerm, evidence.FactLedger}

	read := fieldKeysNamed(t, "reader")
	for _, k := range fields {
		if !slices.Contains(read, k) {
			t.Errorf("builtin data field %s has no reader: nothing in pkg/engine/reader records a fact of it", k)
		}
	}
	for _, k := range append(read, fieldKeysNamed(t, ".")...) {
		if !slices.Contains(fields, k) && !slices.Contains(factKeys, k) {
			t.Errorf("the engine reads field %q, which is no builtin data field", k)
		}
	}

	checks := c.CheckKeys()
	for _, k := range checks {
		if _, ok := builtinChecks[k]; !ok {
			t.Errorf("builtin check %s has no rule in builtinChecks", k)
		}
	}
	for k := range builtinChecks {
		if !slices.Contains(checks, k) {
			t.Errorf("builtinChecks has a rule for %q, which is no builtin check", k)
		}
	}

	types := c.DocumentTypeKeys()
	for k := range typeNames {
		require.Contains(t, types, k, "typeNames")
	}
	for _, k := range types {
		_, ok := typeNames[k]
		require.True(t, ok, "builtin document type %s has no name in typeNames", k)
	}
}

// fieldKeysNamed are the field keys the package in dir (its non-test files) names as
// string literals: passed as the first argument, named key, of a function or closure,
// compared with a variable named key, a case of a switch on key or on a fact's Key, or
// listed in a variable whose name ends in Keys.
func fieldKeysNamed(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	takesKey := map[string]bool{} // names of functions whose first parameter is key string
	keyFirst := func(ft *ast.FuncType) bool {
		if ft.Params == nil || len(ft.Params.List) == 0 || len(ft.Params.List[0].Names) == 0 {
			return false
		}
		p := ft.Params.List[0]
		typ, ok := p.Type.(*ast.Ident)
		return p.Names[0].Name == "key" && ok && typ.Name == "string"
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if keyFirst(n.Type) {
					takesKey[n.Name.Name] = true
				}
			case *ast.AssignStmt:
				for i, rhs := range n.Rhs {
					if lit, ok := rhs.(*ast.FuncLit); ok && keyFirst(lit.Type) && i < len(n.Lhs) {
						if id, ok := n.Lhs[i].(*ast.Ident); ok {
							takesKey[id.Name] = true
						}
					}
				}
			}
			return true
		})
	}
	var keys []string
	literal := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			if !slices.Contains(keys, s) {
				keys = append(keys, s)
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				var name string
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				}
				if takesKey[name] && len(n.Args) > 0 {
					literal(n.Args[0])
				}
			case *ast.BinaryExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "key" && (n.Op == token.EQL || n.Op == token.NEQ) {
					literal(n.Y)
				}
			case *ast.SwitchStmt: // switch key { case "…": } or switch f.Key { … }
				if namesKey(n.Tag) {
					for _, c := range n.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							literal(e)
						}
					}
				}
			case *ast.ValueSpec: // var verdictKeys = map[string]bool{"…": true}
				for i, name := range n.Names {
					if !strings.HasSuffix(name.Name, "Keys") || i >= len(n.Values) {
						continue
					}
					if lit, ok := n.Values[i].(*ast.CompositeLit); ok {
						for _, e := range lit.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok {
								literal(kv.Key)
							} else {
								literal(e)
							}
						}
					}
				}
			}
			return true
		})
	}
	require.NotEmpty(t, keys, "no field keys found in %s: has the way readers name them changed?", dir)
	return keys
}

// namesKey reports whether e is a variable named key or a selector of a field named Key
// (f.Key).
func namesKey(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "key"
	case *ast.SelectorExpr:
		return e.Sel.Name == "Key"
	}
	return false
}
