package messaging_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/natstest"
)

// A publish nobody acknowledges (here a plain subscriber that never answers; in
// production a stream leader killed before it replied) ends with a timeout instead of
// waiting for ever, so the outbox relay releases its rows.
func TestPublishAckTimesOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nc, js, err := messaging.Connect(ctx, natstest.URL(t), "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("silent.sink")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	f, err := js.PublishAsync("silent.sink", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Ok():
		t.Fatal("acknowledged by a subscriber that never answers")
	case err := <-f.Err():
		if !errors.Is(err, jetstream.ErrAsyncPublishTimeout) {
			t.Fatalf("err = %v, want ErrAsyncPublishTimeout", err)
		}
	case <-time.After(messaging.PublishAckTimeout + 10*time.Second):
		t.Fatal("the publish neither succeeded nor failed: a relay would hold its rows for ever")
	}
}
