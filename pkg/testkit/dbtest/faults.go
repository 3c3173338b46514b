package dbtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Faults breaks a pool's connections on cue (FaultyPool), to test what a lost answer
// or an outage does to the code above: a statement that reached the server and whose
// answer never came back, one that never reached it, a database out of reach.
type Faults struct {
	mu      sync.Mutex
	markers [][]byte // still to be seen, in order, in what is sent; the last one's write is cut
	drop    bool     // cut before sending it, rather than after
	goDown  bool     // the database goes out of reach when the cut happens
	down    bool
	fired   bool
	// roundTrips counts the answers waited for: reads that follow a write.
	roundTrips int
}

// LoseAnswer arms a cut: once statements containing each of markers (case-insensitive,
// e.g. "INSERT INTO uploads", "commit") have been sent in that order, the last one is
// sent and its connection closed before its answer arrives; the answers of statements
// sent before it in the same write (a pipeline) still arrive. With goDown the database
// is out of reach from then on, until SetDown(false).
func (f *Faults) LoseAnswer(goDown bool, markers ...string) { f.arm(false, goDown, markers) }

// DropWrite arms a cut like LoseAnswer's, except that the last statement is never sent.
func (f *Faults) DropWrite(goDown bool, markers ...string) { f.arm(true, goDown, markers) }

func (f *Faults) arm(drop, goDown bool, markers []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.markers = f.markers[:0]
	for _, m := range markers {
		f.markers = append(f.markers, bytes.ToLower([]byte(m)))
	}
	f.drop, f.goDown, f.fired = drop, goDown, false
}

// Fired reports whether the armed cut happened.
func (f *Faults) Fired() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired
}

// SetDown puts the database out of reach (new connections refused, every write on an
// open one fails and closes it) or back.
func (f *Faults) SetDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// RoundTrips counts the times a connection of the pool waited for an answer to what it
// had sent: what a sequence of statements costs in latency.
func (f *Faults) RoundTrips() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.roundTrips
}

func (f *Faults) isDown() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down
}

var errFault = errors.New("connection cut by dbtest.Faults")

type faultConn struct {
	net.Conn
	f *Faults
	// cutNext: the statement of the last marker was sent on this connection; the write
	// that executes it is cut.
	cutNext bool
	// last is the last marker, to find its statement in a write that holds several.
	last []byte
	// wrote: the next read waits for an answer.
	wrote bool
	// cutAfter is how many more statements' answers are read before the connection is
	// closed, when cutReads is set; pending holds the part of one not yet read.
	cutReads bool
	cutAfter int
	pending  []byte
}

func (c *faultConn) Read(p []byte) (int, error) {
	f := c.f
	f.mu.Lock()
	if c.wrote {
		f.roundTrips++
		c.wrote = false
	}
	f.mu.Unlock()
	if !c.cutReads {
		return c.Conn.Read(p)
	}
	if len(c.pending) == 0 {
		if c.cutAfter == 0 {
			c.Conn.Close()
			return 0, &net.OpError{Op: "read", Net: "tcp", Err: errFault}
		}
		msg := make([]byte, 5)
		if _, err := io.ReadFull(c.Conn, msg); err != nil {
			return 0, err
		}
		msg = append(msg, make([]byte, int(binary.BigEndian.Uint32(msg[1:5]))-4)...)
		if _, err := io.ReadFull(c.Conn, msg[5:]); err != nil {
			return 0, err
		}
		if msg[0] == 'C' || msg[0] == 'I' || msg[0] == 'E' { // a statement's last answer
			c.cutAfter--
		}
		c.pending = msg
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *faultConn) Write(p []byte) (int, error) {
	f := c.f
	f.mu.Lock()
	if f.down {
		f.mu.Unlock()
		c.Conn.Close()
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: errFault}
	}
	c.wrote = true
	if len(f.markers) > 0 && bytes.Contains(lowerASCII(p), f.markers[0]) {
		c.last = f.markers[0]
		f.markers = f.markers[1:]
		c.cutNext = len(f.markers) == 0
	}
	if !c.cutNext || !executes(p) {
		f.mu.Unlock()
		return c.Conn.Write(p)
	}
	c.cutNext = false
	f.fired = true
	drop := f.drop
	f.down = f.goDown
	f.mu.Unlock()
	if drop {
		c.Conn.Close()
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: errFault}
	}
	n, err := c.Conn.Write(p)
	if before := executesBefore(p, bytes.Index(lowerASCII(p), c.last)); before > 0 {
		c.cutReads, c.cutAfter = true, before
		return n, err
	}
	c.Conn.Close() // the server still reads what was sent before the end of the stream
	return n, err
}

// lowerASCII lower-cases the ASCII letters of p only, keeping every offset: p holds
// binary parameters (a sealed body), which bytes.ToLower would reencode.
func lowerASCII(p []byte) []byte {
	out := make([]byte, len(p))
	for i, c := range p {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// executesBefore counts the statements p runs in messages that start before offset end.
func executesBefore(p []byte, end int) int {
	count := 0
	for off := 0; off+5 <= len(p) && off < end; {
		if p[off] == 'Q' || p[off] == 'E' {
			count++
		}
		off += 1 + int(binary.BigEndian.Uint32(p[off+1:off+5]))
	}
	return count
}

// executes reports whether p, frontend protocol messages, runs a statement: a simple
// Query ('Q') or an Execute ('E'). The extended protocol may send a statement's text
// (Parse) in one write and run it in the next.
func executes(p []byte) bool {
	for len(p) >= 5 {
		typ, n := p[0], int(binary.BigEndian.Uint32(p[1:5]))
		if typ == 'Q' || typ == 'E' {
			return true
		}
		if n < 4 || n+1 > len(p) {
			return true // not whole messages: take it as the statement's run
		}
		p = p[1+n:]
	}
	return false
}

// FaultyPool opens a pool on the database at url whose connections go through the
// returned Faults. Every statement's text is sent each time (no cached prepared
// statements), so markers match statements run before.
func FaultyPool(t testing.TB, url string) (*pgxpool.Pool, *Faults) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	f := &Faults{}
	dial := cfg.ConnConfig.DialFunc
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if f.isDown() {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errFault}
		}
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &faultConn{Conn: c, f: f}, nil
	}
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, f
}
