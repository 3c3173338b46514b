package apiserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
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

// A multipart body's fingerprint does not depend on its boundary nor on how the body
// arrives in reads, a boundary split across two of them included; another body differs.
func TestFingerprintIgnoresBoundaryAndChunking(t *testing.T) {
	body := func(boundary, content string) string {
		return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n"
	}
	sum := func(boundary, b string, chunk int) []byte {
		r, _ := http.NewRequest(http.MethodPost, "/v1/submissions/x/files", nil)
		r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		f := newFingerprint(r)
		for len(b) > 0 {
			n := min(chunk, len(b))
			f.write([]byte(b[:n]))
			b = b[n:]
		}
		return f.sum()
	}
	want := sum("b1b1b1b1", body("b1b1b1b1", "%PDF-1.7 content"), 1<<20)
	for chunk := 1; chunk <= 40; chunk++ {
		if got := sum("b1b1b1b1", body("b1b1b1b1", "%PDF-1.7 content"), chunk); !bytes.Equal(got, want) {
			t.Fatalf("reads of %d bytes: another fingerprint", chunk)
		}
		if got := sum("other-boundary-22", body("other-boundary-22", "%PDF-1.7 content"), chunk); !bytes.Equal(got, want) {
			t.Fatalf("another boundary, reads of %d bytes: another fingerprint", chunk)
		}
		if got := sum("b1b1b1b1", body("b1b1b1b1", "%PDF-1.7 contenT"), chunk); bytes.Equal(got, want) {
			t.Fatalf("another body, reads of %d bytes: the same fingerprint", chunk)
		}
	}
}
