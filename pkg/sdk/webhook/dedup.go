package webhook

import (
	"context"
	"sync"
	"time"
)

// DedupStore remembers which events were handled, so a delivery that arrives twice
// (retries and redeliveries reuse the event id) is handled once. Back it with your
// database for more than one receiver process; MemoryDedupStore serves one process.
type DedupStore interface {
	// Claim atomically records eventID as taken and reports true, or reports false when
	// it was already taken (handled, or being handled) and has not expired.
	Claim(ctx context.Context, eventID string) (bool, error)
	// Release forgets a claim whose handling failed, so that the service's retry of the
	// delivery is handled.
	Release(ctx context.Context, eventID string) error
}

// DefaultDedupTTL outlives the whole retry schedule (1m, 5m, 30m, 2h, 12h, 24h: about
// 39 hours). A manual redelivery later than that is handled again.
const DefaultDedupTTL = 72 * time.Hour

// MemoryDedupStore is a DedupStore in memory with a time to live. It is safe for
// concurrent use.
type MemoryDedupStore struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	expires map[string]time.Time
	claims  int // since the last sweep of expired entries
}

// sweepEvery is how many claims pass between two sweeps of expired entries, so memory
// follows the live set without scanning on every request.
const sweepEvery = 1024

// NewMemoryDedupStore keeps event ids for ttl (<= 0: DefaultDedupTTL).
func NewMemoryDedupStore(ttl time.Duration) *MemoryDedupStore {
	return newMemoryDedupStore(ttl, time.Now)
}

func newMemoryDedupStore(ttl time.Duration, now func() time.Time) *MemoryDedupStore {
	if ttl <= 0 {
		ttl = DefaultDedupTTL
	}
	return &MemoryDedupStore{ttl: ttl, now: now, expires: map[string]time.Time{}}
}

// Claim implements DedupStore.
func (m *MemoryDedupStore) Claim(_ context.Context, eventID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.claims++; m.claims >= sweepEvery {
		m.sweepLocked(now)
	}
	if expiry, ok := m.expires[eventID]; ok && now.Before(expiry) {
		return false, nil
	}
	m.expires[eventID] = now.Add(m.ttl)
	return true, nil
}

// Release implements DedupStore.
func (m *MemoryDedupStore) Release(_ context.Context, eventID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.expires, eventID)
	return nil
}

// Len is how many event ids are remembered, expired ones not yet swept included.
func (m *MemoryDedupStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.expires)
}

func (m *MemoryDedupStore) sweepLocked(now time.Time) {
	m.claims = 0
	for id, expiry := range m.expires {
		if !now.Before(expiry) {
			delete(m.expires, id)
		}
	}
}
