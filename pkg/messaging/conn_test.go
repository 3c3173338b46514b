package messaging_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/testkit/natstest"
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

// After a reconnect the log names the server without the credentials in its URL.
func TestReconnectLogHidesCredentials(t *testing.T) {
	t.Parallel()
	start := func(port int) *server.Server {
		srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, Username: "svc", Password: "s3cret-pass", NoSigs: true, NoLog: true})
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		if !srv.ReadyForConnections(10 * time.Second) {
			t.Fatal("nats server not ready")
		}
		return srv
	}
	srv := start(server.RANDOM_PORT)
	port := srv.Addr().(*net.TCPAddr).Port
	var mu sync.Mutex
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	nc, _, err := messaging.Connect(context.Background(), fmt.Sprintf("nats://svc:s3cret-pass@127.0.0.1:%d", port), "test", log)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	srv.Shutdown()
	srv.WaitForShutdown()
	srv = start(port)
	defer srv.Shutdown()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		text := logged.String()
		mu.Unlock()
		if strings.Contains(text, "nats reconnected") {
			if strings.Contains(text, "s3cret-pass") {
				t.Fatalf("the log shows the password: %s", text)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reconnect logged: %s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
