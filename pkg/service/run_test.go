package service_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

func testCommon(t *testing.T) config.Common {
	t.Helper()
	_, dbURL := dbtest.NewWithURL(t)
	return config.Common{DatabaseURL: dbURL, NatsURL: natstest.URL(t), StreamReplicas: 1, OpsAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second}
}

// Each worker is built once, with the runtime, and its loops run until the service stops.
func TestRunWorkerBuildsEachWorkerOnce(t *testing.T) {
	t.Parallel()
	var builds, running atomic.Int32
	loop := func(ctx context.Context) error {
		running.Add(1)
		<-ctx.Done()
		return nil
	}
	build := func(_ context.Context, rt *service.Runtime) ([]service.Loop, error) {
		if rt == nil || rt.Store == nil {
			t.Error("built without a started runtime")
		}
		builds.Add(1)
		return []service.Loop{loop, loop}, nil
	}
	common := testCommon(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- service.RunWorker(ctx, "worker", common, slog.New(slog.DiscardHandler), build, build) }()
	deadline := time.Now().Add(30 * time.Second)
	for running.Load() < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 4 loops running", running.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := builds.Load(); n != 2 {
		t.Fatalf("%d builds, want one per worker", n)
	}
}

// A server that cannot be built stops the service with the build's error, and its
// listeners are closed, not left accepting.
func TestRunServerClosesListenersWhenBuildFails(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	err = service.RunServer(context.Background(), "server", testCommon(t), slog.New(slog.DiscardHandler), ln, ops,
		func(context.Context, *service.Runtime) (service.Server, error) { return service.Server{}, refused })
	if !errors.Is(err, refused) {
		t.Fatalf("run: %v, want the build's error", err)
	}
	for _, l := range []net.Listener{ln, ops} {
		if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("%s: accept %v, want closed", l.Addr(), err)
		}
	}
}
