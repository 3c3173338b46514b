package auth

import (
	"bytes"
	"strings"
	"testing"
)

func TestNewKey(t *testing.T) {
	a, b := NewKey(), NewKey()
	if a == b {
		t.Fatal("two keys are equal")
	}
	for _, k := range []string{a, b} {
		if !strings.HasPrefix(k, "dek_") || len(k) != 4+43 || !WellFormed(k) {
			t.Errorf("key %q: want dek_ and 43 base62 digits", k)
		}
	}
	if bytes.Equal(HashKey(a), HashKey(b)) || len(HashKey(a)) != 32 {
		t.Error("hashes collide or are not SHA-256")
	}
	if p := DisplayPrefix(a); p != a[:10] {
		t.Errorf("display prefix %q", p)
	}
}

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer dek_x", "dek_x", true},
		{"bearer dek_x", "dek_x", true},
		{"Bearer  dek_x", "dek_x", true},
		{"Basic dek_x", "", false},
		{"Bearer", "", false},
		{"", "", false},
		{"Bearer dek_x trailing", "dek_x trailing", true}, // then refused by WellFormed
	} {
		token, ok := BearerToken(tc.header)
		if token != tc.token || ok != tc.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tc.header, token, ok, tc.token, tc.ok)
		}
	}
	if WellFormed("dek_" + strings.Repeat("!", 43)) {
		t.Error("non-base62 key accepted")
	}
}

// Whatever a caller puts in Authorization, parsing never panics, and only a token of a
// key's shape is well formed.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer " + NewKey(), "Basic abc", "Bearer", "", "Bearer dek_", "bEaReR \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		token, ok := BearerToken(header)
		if !ok {
			return
		}
		if WellFormed(token) && (!strings.HasPrefix(token, KeyPrefix) || strings.ContainsAny(token, " \t\r\n")) {
			t.Fatalf("well-formed token %q from %q", token, header)
		}
	})
}
