package httpx

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/doceval/doceval/pkg/apierr"
)

// stallGuard cuts off an upload whose client stops sending mid-body: it moves the
// connection's read deadline idle ahead as bytes arrive (through http.ResponseController,
// so HTTP/1 and HTTP/2 alike), and a read that waited idle for a byte fails with 400
// invalid_request. The server's own ReadTimeout cannot do this: it bounds the whole
// body, and a 100 MiB upload over a slow link is not a stalled one.
type stallGuard struct {
	body     io.ReadCloser
	rc       *http.ResponseController
	idle     time.Duration
	extended time.Time
}

// guardStall wraps body; idle <= 0 leaves it unguarded.
func guardStall(w http.ResponseWriter, body io.ReadCloser, idle time.Duration) io.ReadCloser {
	if idle <= 0 {
		return body
	}
	g := &stallGuard{body: body, rc: http.NewResponseController(w), idle: idle, extended: time.Now()}
	if err := g.rc.SetReadDeadline(g.extended.Add(idle)); err != nil {
		return body // a writer without deadlines (a test recorder): nothing to guard
	}
	return g
}

func (g *stallGuard) Read(p []byte) (int, error) {
	n, err := g.body.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		// The whole body arrived. The server now reads the connection in the background
		// to notice a client that goes away, and a deadline left behind would end that
		// read, and the request's context, while the handler still works.
		_ = g.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays in the past, so the server's own reads of what is left of
		// the body fail at once too and the connection is closed after the answer.
		err = apierr.BadRequest(fmt.Sprintf("no bytes of the request body arrived for %s; the upload was cut off: send it again", g.idle))
	case n > 0:
		// Moving the deadline costs a timer update: do it once per 1/16 of idle, so a
		// stall is cut off after 15/16 to 16/16 of idle.
		if now := time.Now(); now.Sub(g.extended) >= g.idle/16 {
			g.extended = now
			_ = g.rc.SetReadDeadline(now.Add(g.idle))
		}
	}
	return n, err
}

func (g *stallGuard) Close() error { return g.body.Close() }
