package slug

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

func TestMake(t *testing.T) {
	for in, want := range map[string]string{
		"Income documents recent":   "income_documents_recent",
		"Grundbuchauszug (aktuell)": "grundbuchauszug_aktuell",
		"Wohnfläche über 80 m²":     "wohnflaeche_ueber_80_m2",
		"Straße & Hausnummer":       "strasse_hausnummer",
		"  Café  crème  ":           "cafe_creme",
		"---":                       "check",
		"ID-Card/Passport #2":       "id_card_passport_2",
		"ÄÖÜ":                       "aeoeue",
	} {
		if got := Make(in, "check"); got != want {
			t.Errorf("Make(%q) = %q, want %q", in, got, want)
		}
	}
	long := Make("a very long title that goes on and on and on and on and on and on and on and on", "x")
	if len(long) > MaxLen {
		t.Errorf("len %d > %d", len(long), MaxLen)
	}
}

func TestUnique(t *testing.T) {
	if got := Unique("a", nil); got != "a" {
		t.Error(got)
	}
	if got := Unique("a", []string{"a", "a_2", "a_4"}); got != "a_3" {
		t.Errorf("got %s, want a_3", got)
	}
}

var keyPattern = regexp.MustCompile(`^[a-z0-9_]+$`)

// Any name a client sends yields a valid key of bounded length.
func FuzzMake(f *testing.F) {
	for _, s := range []string{"Income", "Grundbuchauszug", "ß", "\x00\xff", "日本語", "___a___"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) {
			return
		}
		k := Make(name, "entry")
		if !keyPattern.MatchString(k) || len(k) > MaxLen || k[0] == '_' || k[len(k)-1] == '_' {
			t.Fatalf("Make(%q) = %q", name, k)
		}
	})
}
