package messaging

import (
	"errors"
	"sync"

	"github.com/google/uuid"
)

// ErrDeferred is returned by a handler that leaves a message for later without it being
// a failure: the message is redelivered after a backoff, its delivery counts for no
// attempt budget, and nothing is logged as an error.
var ErrDeferred = errors.New("deferred")

// FairBacklog is the MaxAckPending of a consumer that defers messages for fairness
// (ClientLimit): deferred messages stay unacknowledged until redelivered, so the
// window of messages the consumer looks past must hold one client's flood.
const FairBacklog = 10000

// ClientLimit lets one process work on at most a share of its slots for one API client
// at a time, so a client that floods the shared queue cannot take all of them: its
// other jobs are deferred (ErrDeferred) and the consumer reaches the jobs of other
// clients queued behind them. The zero value is ready to use.
type ClientLimit struct {
	mu   sync.Mutex
	busy map[uuid.UUID]int
}

// ClientShare is how many slots of concurrency one client may hold: perClient, or when
// that is 0 one slot less than concurrency (at least 1), so a flood leaves a slot free.
func ClientShare(perClient, concurrency int) int {
	if perClient > 0 {
		return perClient
	}
	return max(1, concurrency-1)
}

// Acquire takes a slot of client; ok is false when client has share jobs in work here.
// A job without a client (enqueued before jobs named one) is never limited. release
// gives the slot back.
func (l *ClientLimit) Acquire(client uuid.UUID, share int) (release func(), ok bool) {
	if share <= 0 || client == uuid.Nil {
		return func() {}, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == nil {
		l.busy = map[uuid.UUID]int{}
	}
	if l.busy[client] >= share {
		return nil, false
	}
	l.busy[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.busy[client]--; l.busy[client] <= 0 {
				delete(l.busy, client)
			}
		})
	}, true
}
