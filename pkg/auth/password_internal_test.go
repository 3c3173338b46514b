package auth

import (
	"context"
	"errors"
	"testing"
	"time"
)

// With every slot taken, a check waits its time and gives up with ErrBusy; a freed slot
// is taken again.
func TestPasswordCheckerBounded(t *testing.T) {
	t.Parallel()
	c := NewPasswordChecker(2, 50*time.Millisecond)
	ctx := context.Background()
	r1, err1 := c.acquire(ctx)
	r2, err2 := c.acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	start := time.Now()
	if _, err := c.Check(ctx, nil, "a password of twelve"); !errors.Is(err, ErrBusy) {
		t.Fatalf("third check with two slots taken: %v", err)
	}
	if waited := time.Since(start); waited < 40*time.Millisecond {
		t.Fatalf("gave up after %v without waiting", waited)
	}
	r1()
	hash, err := HashPassword("a password of twelve")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Check(ctx, &hash, "a password of twelve"); !ok || err != nil {
		t.Fatalf("check with a slot free: %v %v", ok, err)
	}
	r2()
}
