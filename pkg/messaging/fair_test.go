package messaging

import (
	"testing"

	"github.com/google/uuid"
)

func TestClientLimit(t *testing.T) {
	var l ClientLimit
	a, b := uuid.New(), uuid.New()
	r1, ok1 := l.Acquire(a, 2)
	_, ok2 := l.Acquire(a, 2)
	_, ok3 := l.Acquire(a, 2)
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("a third slot for one client: %v %v %v", ok1, ok2, ok3)
	}
	if _, ok := l.Acquire(b, 2); !ok {
		t.Fatal("another client is refused while the first is at its limit")
	}
	r1()
	r1() // releasing twice gives back one slot only
	if _, ok := l.Acquire(a, 2); !ok {
		t.Fatal("a released slot is not given back")
	}
	if _, ok := l.Acquire(a, 2); ok {
		t.Fatal("a double release gave back two slots")
	}
	if _, ok := l.Acquire(uuid.Nil, 2); !ok {
		t.Fatal("a job without a client is limited")
	}
	for _, tc := range [][3]int{{0, 2, 1}, {0, 1, 1}, {0, 8, 7}, {3, 8, 3}} {
		if got := ClientShare(tc[0], tc[1]); got != tc[2] {
			t.Errorf("ClientShare(%d, %d) = %d, want %d", tc[0], tc[1], got, tc[2])
		}
	}
}
