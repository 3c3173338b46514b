// Command doceval is the partner command line tool for the doceval API: every operation
// as a command, profiles, shell completion, and `listen` to receive events locally.
// All logic lives in package partnercli; this file only wires the process to it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/doceval/doceval/services/doceval/partnercli"
)

func main() {
	// Ctrl-C cancels the context, so `--wait` and `listen` stop cleanly instead of dying
	// mid-request.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := partnercli.Run(ctx, os.Args[1:], partnercli.Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Getenv)
	stop()
	os.Exit(code)
}
