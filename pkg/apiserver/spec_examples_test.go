package apiserver_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/doceval/doceval/openapi"
)

// Every schema an operation uses (its parameters, bodies and responses, webhook
// callbacks included, through every reference) carries an example, and every example
// in components.schemas is valid for its schema: generated docs, Postman collections and
// other-language generators show them, so a wrong one would teach the wrong shape.
// openapi/.spectral.yaml's doceval-schema-example rule says the same for every
// components schema in `make spec-lint`.
func TestSpecExamples(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		s := doc.Components.Schemas[name].Value
		if s.Example == nil {
			continue
		}
		if err := s.VisitJSON(s.Example); err != nil {
			t.Errorf("the example of %s does not match its schema: %v", name, err)
		}
		for _, f := range unknownFields(s, s.Example, name) {
			t.Errorf("the example of %s has a field its schema does not name: %s", name, f)
		}
	}
	var lacking []string
	for _, name := range usedSchemas(doc) {
		if doc.Components.Schemas[name].Value.Example == nil {
			lacking = append(lacking, name)
		}
	}
	if len(lacking) > 0 {
		t.Errorf("schemas used by operations without an example: %s", strings.Join(lacking, ", "))
	}
}

// usedSchemas are the names of the components schemas that an operation (or a callback
// of one) reaches from its parameters, request body and responses, sorted.
func usedSchemas(doc *openapi3.T) []string {
	used := map[string]bool{}
	var visit func(*openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil {
			return
		}
		if name, ok := strings.CutPrefix(ref.Ref, "#/components/schemas/"); ok {
			if used[name] {
				return
			}
			used[name] = true
		}
		s := ref.Value
		if s == nil {
			return
		}
		for _, p := range s.Properties {
			visit(p)
		}
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, r := range group {
				visit(r)
			}
		}
		visit(s.Items)
		visit(s.Not)
		visit(s.AdditionalProperties.Schema)
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			visit(mt.Schema)
		}
	}
	var operation func(*openapi3.Operation)
	operation = func(op *openapi3.Operation) {
		for _, p := range op.Parameters {
			visit(p.Value.Schema)
			content(p.Value.Content)
		}
		if op.RequestBody != nil {
			content(op.RequestBody.Value.Content)
		}
		for _, res := range op.Responses.Map() {
			content(res.Value.Content)
			for _, h := range res.Value.Headers {
				visit(h.Value.Schema)
			}
		}
		for _, cb := range op.Callbacks {
			for _, item := range cb.Value.Map() {
				for _, o := range item.Operations() {
					operation(o)
				}
			}
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, p := range item.Parameters {
			visit(p.Value.Schema)
		}
		for _, op := range item.Operations() {
			operation(op)
		}
	}
	return slices.Sorted(maps.Keys(used))
}

// unknownFields are the paths of the example's object members that the schema does not
// name: the schemas allow unknown members (the contract grows by additions), so
// VisitJSON alone would accept a misspelt field.
func unknownFields(s *openapi3.Schema, example any, path string) []string {
	var found []string
	switch v := example.(type) {
	case map[string]any:
		free := len(s.Properties) == 0 && len(s.AllOf) == 0 // any JSON value, such as ResultField.value
		if free || s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has || s.AdditionalProperties.Schema != nil || len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
			return nil
		}
		props := map[string]*openapi3.Schema{}
		var collect func(*openapi3.Schema)
		collect = func(s *openapi3.Schema) {
			for name, p := range s.Properties {
				props[name] = p.Value
			}
			for _, r := range s.AllOf {
				collect(r.Value)
			}
		}
		collect(s)
		for _, name := range slices.Sorted(maps.Keys(v)) {
			p, ok := props[name]
			if !ok {
				found = append(found, path+"."+name)
				continue
			}
			found = append(found, unknownFields(p, v[name], path+"."+name)...)
		}
	case []any:
		if s.Items != nil {
			for i, item := range v {
				found = append(found, unknownFields(s.Items.Value, item, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return found
}
