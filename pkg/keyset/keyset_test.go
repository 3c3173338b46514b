package keyset_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/keyset"
)

func TestRoundTrip(t *testing.T) {
	p := keyset.Position{CreatedAt: time.Date(2026, 11, 27, 16, 30, 0, 123456789, time.UTC), ID: uuid.New()}
	got, ok := keyset.Parse(p.Encode())
	if !ok || !got.CreatedAt.Equal(p.CreatedAt) || got.ID != p.ID {
		t.Errorf("Parse(Encode(%+v)) = %+v, %v", p, got, ok)
	}
	for _, s := range []string{"", "not base64!", keyset.Position{ID: uuid.New()}.Encode(), keyset.Position{CreatedAt: time.Now()}.Encode()} {
		if _, ok := keyset.Parse(s); ok {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
}

// Cursors come back from callers: whatever they send, Parse answers without panicking,
// and what it accepts encodes to a cursor that parses to the same position.
func FuzzParse(f *testing.F) {
	f.Add(keyset.Position{CreatedAt: time.Now(), ID: uuid.New()}.Encode())
	f.Add("eyJ0IjoiMjAyNi0wMS0wMVQwMDowMDowMFoiLCJpIjoiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMDAxIn0")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := keyset.Parse(s)
		if !ok {
			return
		}
		again, ok := keyset.Parse(p.Encode())
		if !ok || !again.CreatedAt.Equal(p.CreatedAt) || again.ID != p.ID {
			t.Errorf("%q: %+v does not survive its own encoding", s, p)
		}
	})
}
