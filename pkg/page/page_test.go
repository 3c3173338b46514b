package page

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/apierr"
)

func TestLimit(t *testing.T) {
	ptr := func(n int) *int { return &n }
	for _, tc := range []struct {
		in   *int
		want int
		err  bool
	}{
		{nil, 50, false}, {ptr(1), 1, false}, {ptr(100), 100, false}, {ptr(101), 100, false},
		{ptr(1 << 30), 100, false}, {ptr(0), 0, true}, {ptr(-1), 0, true},
	} {
		got, err := Limit(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("Limit(%v) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if e, ok := apierr.As(err); err != nil && (!ok || e.Param != "limit" || e.Status != 422) {
			t.Errorf("Limit(%v) error %v, want 422 param limit", tc.in, err)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor{CreatedAt: time.Date(2026, 11, 23, 9, 0, 0, 123456000, time.UTC), ID: uuid.Must(uuid.NewV7())}
	s := c.Encode()
	got, err := Decode(&s)
	if err != nil || got == nil || !got.CreatedAt.Equal(c.CreatedAt) || got.ID != c.ID {
		t.Fatalf("Decode(Encode(c)) = %+v, %v; want %+v", got, err, c)
	}
	if got, err := Decode(nil); got != nil || err != nil {
		t.Errorf("Decode(nil) = %v, %v", got, err)
	}
}

func TestTrim(t *testing.T) {
	rows := []int{1, 2, 3}
	key := func(i int) Cursor { return Cursor{CreatedAt: time.Unix(int64(i), 0), ID: uuid.New()} }
	page, next := Trim(rows, 2, key)
	if len(page) != 2 || next == nil {
		t.Fatalf("limit+1 rows: page %v, next %v", page, next)
	}
	c, err := Decode(next)
	if err != nil || c.CreatedAt.Unix() != 2 {
		t.Errorf("next cursor points at %v, %v; want the last row of the page", c, err)
	}
	if page, next := Trim(rows, 3, key); len(page) != 3 || next != nil {
		t.Errorf("last page: %v, next %v", page, next)
	}
}

// Any string a caller sends as cursor either decodes or is 422 param cursor; never a
// panic, never another error.
func FuzzDecode(f *testing.F) {
	valid := Cursor{CreatedAt: time.Unix(1700000000, 0).UTC(), ID: uuid.New()}.Encode()
	for _, s := range []string{"", valid, "not-a-cursor", "eyJ0IjoxfQ", "e30", "bnVsbA", valid + "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Decode(&s)
		if err != nil {
			e, ok := apierr.As(err)
			if !ok || e.Status != 422 || e.Param != "cursor" {
				t.Fatalf("Decode(%q) error %v, want 422 param cursor", s, err)
			}
			return
		}
		if s != "" && (c == nil || c.ID == uuid.Nil || c.CreatedAt.IsZero()) {
			t.Fatalf("Decode(%q) accepted an empty cursor %+v", s, c)
		}
	})
}
