//go:build linux || darwin

package partnercli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is a pseudo-terminal: the side a user types into and sees (the controller)
// and the one the CLI reads as its stdin (tty).
type terminal struct {
	controller, tty *os.File
	mu              sync.Mutex
	shown           bytes.Buffer // everything the terminal has shown
}

func openTerminal(t *testing.T) *terminal {
	t.Helper()
	controller, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	term := &terminal{controller: controller, tty: tty}
	done := make(chan struct{})
	go func() { // ends when the tty is closed (the controller then reads an error)
		defer close(done)
		buf := make([]byte, 256)
		for {
			n, err := controller.Read(buf)
			term.mu.Lock()
			term.shown.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); <-done; controller.Close() })
	return term
}

// echoed types into the terminal and returns what it shows within a moment.
func (term *terminal) echoed(t *testing.T, typed string) string {
	t.Helper()
	term.mu.Lock()
	from := term.shown.Len()
	term.mu.Unlock()
	if _, err := term.controller.WriteString(typed); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.shown.String()[from:]
}

// On a terminal, doceval login reads the key without showing it, and the terminal
// echoes again afterwards; a pipe is read as is (TestLogin*).
func TestReadKeyHidesInputOnATerminal(t *testing.T) {
	term := openTerminal(t)
	var stderr strings.Builder
	a := &app{stdin: term.tty, stderr: &stderr}
	got := make(chan string, 1)
	go func() {
		key, err := a.readKey(context.Background(), "default")
		if err != nil {
			t.Error(err)
		}
		got <- key
	}()
	time.Sleep(200 * time.Millisecond) // until the prompt waits, its echo off
	if shown := term.echoed(t, "dk_live_secret\n"); strings.Contains(shown, "dk_live_secret") {
		t.Errorf("the key was echoed: %q", shown)
	}
	if key := <-got; key != "dk_live_secret" || !strings.Contains(stderr.String(), `API key for profile "default" (input hidden)`) {
		t.Errorf("key %q after %q", key, stderr.String())
	}
	if shown := term.echoed(t, "after\n"); !strings.Contains(shown, "after") {
		t.Errorf("the echo is still off after the key was read: %q", shown)
	}
}

// Ctrl-C while the prompt waits gives the terminal its echo back.
func TestReadKeyRestoresEchoWhenCanceled(t *testing.T) {
	term := openTerminal(t)
	var stderr strings.Builder
	a := &app{stdin: term.tty, stderr: &stderr}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.readKey(ctx, "default")
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("readKey: %v", err)
	}
	// The line also ends the read left waiting, so the terminal can close.
	if shown := term.echoed(t, "visible\n"); !strings.Contains(shown, "visible") {
		t.Errorf("the echo stayed off after the prompt was canceled: %q", shown)
	}
}
