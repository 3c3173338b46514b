// Package samples holds the sample data of every event type: the `data` of the example
// the spec gives each WebhookEvent variant (FileReadyEvent … WebhookEndpointTestEvent),
// read from the embedded openapi.yaml, which triggerEvent sends. A test keeps an
// example, valid against its variant, for every EventType.
package samples

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/events"
)

// WebhookEventSchema is the spec's oneOf of the typed events, discriminated by type.
const WebhookEventSchema = "WebhookEvent"

// Variant is the spec's schema of one event type.
type Variant struct {
	Name   string // FileReadyEvent, …
	Schema *openapi3.Schema
}

// Variants returns the spec's variant schema of every event type, by the
// discriminator mapping of WebhookEvent.
func Variants(doc *openapi3.T) (map[events.Type]Variant, error) {
	union := doc.Components.Schemas[WebhookEventSchema]
	if union == nil || union.Value == nil || union.Value.Discriminator == nil {
		return nil, fmt.Errorf("the spec has no %s with a discriminator", WebhookEventSchema)
	}
	out := map[events.Type]Variant{}
	for typ, ref := range union.Value.Discriminator.Mapping {
		name := strings.TrimPrefix(ref.Ref, "#/components/schemas/")
		variant := doc.Components.Schemas[name]
		if variant == nil || variant.Value == nil {
			return nil, fmt.Errorf("%s maps %s to %s, which the spec does not define", WebhookEventSchema, typ, ref.Ref)
		}
		out[events.Type(typ)] = Variant{Name: name, Schema: variant.Value}
	}
	return out, nil
}

// Data returns the sample data of typ: the data of its variant's example. ok is false
// for a type the spec does not define.
func Data(typ events.Type) (data json.RawMessage, ok bool, err error) {
	all, err := load()
	if err != nil {
		return nil, false, err
	}
	data, ok = all[typ]
	return data, ok, nil
}

// load reads every variant's example data from the embedded spec, once.
var load = sync.OnceValues(func() (map[events.Type]json.RawMessage, error) {
	doc, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("embedded spec: %w", err)
	}
	variants, err := Variants(doc)
	if err != nil {
		return nil, err
	}
	out := make(map[events.Type]json.RawMessage, len(variants))
	for typ, variant := range variants {
		example, _ := variant.Schema.Example.(map[string]any)
		data, ok := example["data"]
		if !ok {
			return nil, fmt.Errorf("the example of %s (%s) has no data", variant.Name, typ)
		}
		if out[typ], err = json.Marshal(data); err != nil {
			return nil, fmt.Errorf("the example of %s (%s): %w", variant.Name, typ, err)
		}
	}
	return out, nil
})
