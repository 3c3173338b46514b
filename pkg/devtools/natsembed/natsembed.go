// Package natsembed runs an in-process NATS server with JetStream, for the dev stack
// (make run) and tests: nothing to install, nothing listening on a fixed port.
package natsembed

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configure the embedded server.
type Options struct {
	StoreDir string // JetStream file store; state survives a restart when it is kept
	Host     string // default 127.0.0.1
	Port     int    // 0 = any free port
}

// Start runs the server and waits until it accepts connections.
func Start(o Options) (*server.Server, error) {
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	port := o.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	srv, err := server.NewServer(&server.Options{
		ServerName: "doceval-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		NoSigs:     true,
		NoLog:      true,
	})
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("nats server did not become ready")
	}
	return srv, nil
}
