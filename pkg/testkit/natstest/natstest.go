// Package natstest starts a real, embedded NATS JetStream server per test.
package natstest

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/devtools/natsembed"
)

// URL starts a JetStream server with its store in a temporary directory and returns its
// client URL; the server stops when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	srv, err := natsembed.Start(natsembed.Options{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatalf("start nats: %v", err)
	}
	t.Cleanup(srv.Shutdown)
	return srv.ClientURL()
}

// JetStream starts a server and returns a JetStream context connected to it.
func JetStream(t testing.TB) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(URL(t))
	if err != nil {
		t.Fatalf("connect nats: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return js
}
