package samples_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/events/samples"
)

// validate checks value against schema with the formats the API validates (uuid,
// date-time) and every pattern.
func validate(schema *openapi3.Schema, value any) error {
	return schema.VisitJSON(value, openapi3.MultiErrors(), openapi3.EnableFormatValidation(),
		openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)))
}

// loadVariants is the embedded spec and its event variants.
func loadVariants(t *testing.T) (*openapi3.T, map[events.Type]samples.Variant) {
	t.Helper()
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	variants, err := samples.Variants(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, variants
}

// Every EventType has a variant in WebhookEvent whose example is of that type and
// valid against the variant, and samples.Data gives that example's data.
func TestEveryEventTypeHasAValidExample(t *testing.T) {
	t.Parallel()
	doc, variants := loadVariants(t)
	enum := doc.Components.Schemas["EventType"].Value.Enum
	if len(enum) == 0 {
		t.Fatal("EventType lists no event types")
	}
	for _, v := range enum {
		typ := events.Type(v.(string))
		t.Run(string(typ), func(t *testing.T) {
			variant, ok := variants[typ]
			if !ok {
				t.Fatalf("WebhookEvent's discriminator maps no variant for %s", typ)
			}
			example, ok := variant.Schema.Example.(map[string]any)
			if !ok {
				t.Fatalf("%s has no example object", variant.Name)
			}
			if err := validate(variant.Schema, example); err != nil {
				t.Errorf("the example of %s is not valid against it: %v", variant.Name, err)
			}
			if example["type"] != string(typ) {
				t.Errorf("the example of %s has type %v", variant.Name, example["type"])
			}
			if _, triggered := example["triggered"]; triggered {
				t.Errorf("the example of %s is marked triggered; only triggerEvent's answers are", variant.Name)
			}
			data, ok, err := samples.Data(typ)
			if err != nil || !ok {
				t.Fatalf("samples.Data(%s): %v, found %v", typ, err, ok)
			}
			var got any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, example["data"]) {
				t.Errorf("samples.Data(%s) = %s, not the example's data", typ, data)
			}
		})
	}
	for typ := range variants {
		if !containsValue(enum, string(typ)) {
			t.Errorf("WebhookEvent maps %s, which EventType does not list", typ)
		}
	}
	if _, ok, err := samples.Data("no.such_type"); ok || err != nil {
		t.Errorf("samples.Data of an unknown type: found %v, error %v", ok, err)
	}
}

// The examples of the envelope, the union and every event data schema are valid
// against their schema, and each data example is the data of an event example.
func TestEventSchemaExamplesAreValid(t *testing.T) {
	t.Parallel()
	doc, variants := loadVariants(t)
	var datas []any
	for _, v := range variants {
		datas = append(datas, v.Schema.Example.(map[string]any)["data"])
	}
	checked := 0
	for name, ref := range doc.Components.Schemas {
		isData := strings.HasSuffix(name, "EventData")
		if name != "Event" && name != samples.WebhookEventSchema && !isData {
			continue
		}
		checked++
		if ref.Value.Example == nil {
			t.Errorf("%s has no example", name)
			continue
		}
		if err := validate(ref.Value, ref.Value.Example); err != nil {
			t.Errorf("the example of %s is not valid against it: %v", name, err)
		}
		if isData && !containsValue(datas, ref.Value.Example) {
			t.Errorf("the example of %s is not the data of any event example", name)
		}
	}
	if checked < 6 {
		t.Errorf("checked %d schemas: Event, WebhookEvent and the *EventData schemas expected", checked)
	}
}

func containsValue[T any](list []T, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(any(x), v) {
			return true
		}
	}
	return false
}
