package partnercli_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/events/samples"
	"github.com/doceval/doceval/services/doceval/partnercli"
)

// The acceptance test of `doceval trigger`: for every event type of the spec, the
// triggered event reaches the app behind `doceval listen --forward-to` (through the
// event feed: no dispatcher runs and no endpoint points at the listener), which
// verifies its signature with pkg/sdk/webhook and sees that type, marked triggered,
// with the spec's example as data.
func TestTriggerEveryTypeReachesListen(t *testing.T) {
	t.Parallel()
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	realAPI := newRealAPI(t)
	secret := strings.TrimSpace(realAPI.mustRun(t, "listen", "--print-secret"))
	recv := newForwardReceiver(t, secret)
	listen := startFeedListen(t, realAPI, "--forward-to", recv.url)

	sent := map[string]string{} // event id → type
	for _, v := range doc.Components.Schemas["EventType"].Value.Enum {
		typ := v.(string)
		var ev client.EventDetail
		decode(t, realAPI.mustRun(t, "trigger", typ, "--json"), &ev)
		if string(ev.Type) != typ || ev.Triggered == nil || !*ev.Triggered {
			t.Errorf("trigger %s answered type %s, triggered %v", typ, ev.Type, ev.Triggered)
		}
		sent[ev.Id] = typ
	}
	waitWithin(t, 60*time.Second, "every triggered event forwarded", func() bool { return len(recv.acknowledged()) >= len(sent) })
	// listen prints an event's line once its forward was answered.
	waitWithin(t, 10*time.Second, "listen to print every triggered event", func() bool {
		for id := range sent {
			if !strings.Contains(listen.stdout.String(), id) {
				return false
			}
		}
		return true
	})
	for id, typ := range sent {
		got, ok := recv.event(id)
		if !ok {
			t.Errorf("%s (%s) was not forwarded", id, typ)
			continue
		}
		if string(got.Type) != typ || !got.Triggered {
			t.Errorf("%s forwarded as type %s, triggered %v; want %s, triggered", id, got.Type, got.Triggered, typ)
		}
		want, _, err := samples.Data(events.Type(typ))
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, got.Data, want) {
			t.Errorf("%s (%s) data %s, want the spec's example %s", id, typ, got.Data, want)
		}
	}
	if n := len(recv.acknowledged()); n != len(sent) {
		t.Errorf("%d forwards for %d triggered events", n, len(sent))
	}
	if bad := recv.refused(); len(bad) > 0 {
		t.Errorf("%d forwards failed verification, e.g. %s", len(bad), bad[0])
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// trigger --endpoint sends to that endpoint only; an unknown type is the API's 422 on
// type; flags that do not fit the form are usage errors; completion offers the types.
func TestTriggerCommand(t *testing.T) {
	t.Parallel()
	realAPI := newRealAPI(t)
	id := strings.TrimSpace(realAPI.mustRun(t, "webhooks", "create", "--url", "https://example.com/hooks", "--events", "file.ready", "-q"))
	var ev client.EventDetail
	decode(t, realAPI.mustRun(t, "trigger", "evaluation.failed", "--endpoint", id, "--json"), &ev)
	if ev.Type != client.EventTypeEvaluationFailed || len(ev.Deliveries) != 1 || ev.Deliveries[0].EndpointId.String() != id {
		t.Errorf("trigger --endpoint: %+v", ev)
	}
	if out := realAPI.mustRun(t, "trigger", "file.ready"); !strings.Contains(out, "file.ready") || !strings.Contains(out, "payslip-2026-10") {
		t.Errorf("trigger table:\n%s", out)
	}
	if r := realAPI.run(t, "trigger", "invoice.paid"); r.code != partnercli.ExitError || !strings.Contains(r.stderr, "invalid_field") ||
		!strings.Contains(r.stderr, "param:      type") {
		t.Errorf("unknown type: exit %d, %s", r.code, r.stderr)
	}
	if r := realAPI.run(t, "trigger", "file.ready", "--wait"); r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, "--endpoint") {
		t.Errorf("--wait without --endpoint: exit %d, %s", r.code, r.stderr)
	}
	if r := realAPI.run(t, "trigger", "--endpoint", id); r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, "EVENT_TYPE") {
		t.Errorf("--endpoint without a type: exit %d, %s", r.code, r.stderr)
	}
	// The older form, an endpoint id (or none), still sends webhook_endpoint.test.
	var test client.EventDetail
	decode(t, realAPI.mustRun(t, "trigger", id, "--json"), &test)
	if test.Type != client.EventTypeWebhookEndpointTest || test.Triggered != nil {
		t.Errorf("trigger ENDPOINT_ID: %+v", test)
	}
	r := runCLI(nil, "", "__complete", "trigger", "")
	for _, typ := range []string{"file.ready", "evaluation.completed", "document_slot.updated", "webhook_endpoint.test"} {
		if !strings.Contains(r.stdout, typ+"\n") {
			t.Errorf("completion of trigger lacks %s:\n%s", typ, r.stdout)
		}
	}
}
