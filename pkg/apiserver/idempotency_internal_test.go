package apiserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// A key's release or kept response that the database could not take when the request
// ended is written once it can; other failures are not retried.
func TestSettleRetriesWhileTheDatabaseIsAway(t *testing.T) {
	var calls atomic.Int32
	done := make(chan struct{})
	settle(context.Background(), slog.New(slog.DiscardHandler), "test", func(context.Context) error {
		if calls.Add(1) < 3 {
			return io.ErrUnexpectedEOF // the connection broke: unavailable
		}
		close(done)
		return nil
	})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("written %d times, never succeeded", calls.Load())
	}
	var other atomic.Int32
	settle(context.Background(), slog.New(slog.DiscardHandler), "test", func(context.Context) error {
		other.Add(1)
		return errors.New("constraint")
	})
	time.Sleep(500 * time.Millisecond)
	if other.Load() != 1 {
		t.Fatalf("a non-transient failure was retried %d times", other.Load())
	}
}
