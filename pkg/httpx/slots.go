package httpx

import (
	"sync"

	"github.com/google/uuid"
)

// ClientSlots bounds how many requests of one kind (uploads, long-polls) each API client
// has in progress on this replica. The count lives in the replica's memory: behind N
// replicas a client may hold up to N times the bound, which the spec says.
type ClientSlots struct {
	mu   sync.Mutex
	max  int
	held map[uuid.UUID]int
}

// NewClientSlots allows max requests in progress per client; max <= 0 allows any number.
func NewClientSlots(max int) *ClientSlots {
	return &ClientSlots{max: max, held: map[uuid.UUID]int{}}
}

// Max is the bound per client (0: none).
func (s *ClientSlots) Max() int { return max(s.max, 0) }

// Take takes one of client's slots; ok is false when the client holds them all.
// release gives the slot back and must be called once when ok.
func (s *ClientSlots) Take(client uuid.UUID) (release func(), ok bool) {
	if s == nil || s.max <= 0 {
		return func() {}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[client] >= s.max {
		return nil, false
	}
	s.held[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.held[client]--; s.held[client] <= 0 {
				delete(s.held, client) // the map holds clients with requests in progress only
			}
		})
	}, true
}
