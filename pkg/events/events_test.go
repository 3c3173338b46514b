package events

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestIDRoundTrip(t *testing.T) {
	id := uuid.Must(uuid.NewV7())
	s := FormatID(id)
	if !strings.HasPrefix(s, "evt_") || s != strings.ToLower(s) {
		t.Fatalf("FormatID = %q", s)
	}
	got, err := ParseID(s)
	if err != nil || got != id {
		t.Fatalf("ParseID(%q) = %v, %v", s, got, err)
	}
	for _, bad := range []string{"", "evt_", strings.ToUpper(s), id.String(), s + "0", "evt_" + strings.ReplaceAll(id.String(), "-", "")} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}

// ParseID accepts exactly what FormatID produces.
func FuzzParseID(f *testing.F) {
	f.Add(FormatID(uuid.New()))
	f.Add("evt_00000000-0000-0000-0000-000000000000")
	f.Add("evt_ZZ")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err == nil && FormatID(id) != s {
			t.Fatalf("ParseID(%q) = %v, which formats as %q", s, id, FormatID(id))
		}
	})
}
