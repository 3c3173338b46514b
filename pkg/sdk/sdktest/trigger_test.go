package sdktest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/sdktest"
)

// TriggerEvent against the fake: a sample event marked triggered goes to the endpoints
// subscribed to its type, or to the one named whatever its filter; an unknown type is
// invalid_field on type.
func TestTriggerEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c := srv.Client()
	all, onlyFailures, _, ep2 := twoReceivers(ctx, t, c)

	ev, err := c.TriggerEvent(ctx, client.TriggerEventRequest{Type: client.EventTypeEvaluationCompleted})
	if err != nil || ev.Type != client.EventTypeEvaluationCompleted || ev.Triggered == nil || !*ev.Triggered {
		t.Fatalf("trigger: %+v %v", ev, err)
	}
	one, err := c.TriggerEvent(ctx, client.TriggerEventRequest{Type: client.EventTypeFileReady, EndpointId: &ep2.Id})
	if err != nil || len(one.Deliveries) != 1 || one.Deliveries[0].EndpointId != ep2.Id {
		t.Fatalf("trigger to one endpoint: %+v %v", one, err)
	}
	if err := srv.WaitForDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if got := all.types(); !slices.Equal(got, []string{"evaluation.completed"}) {
		t.Errorf("all-events endpoint got %v", got)
	}
	if got := onlyFailures.types(); !slices.Equal(got, []string{"file.ready"}) {
		t.Errorf("file.failed endpoint got %v", got)
	}
	all.mu.Lock()
	if len(all.events) != 1 || !all.events[0].Triggered {
		t.Errorf("the delivery is not marked triggered: %+v", all.events)
	}
	all.mu.Unlock()
	if _, err := c.TriggerEvent(ctx, client.TriggerEventRequest{Type: "invoice.paid"}); sdk.Code(err) != "invalid_field" {
		t.Errorf("unknown type: %v", err)
	}
}
