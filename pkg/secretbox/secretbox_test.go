package secretbox

import (
	"bytes"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key, err := ParseKey(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("whsec_abc")
	sealed := b.Seal(secret, []byte("owner-1"))
	if bytes.Contains(sealed, secret) {
		t.Fatal("plaintext visible in the sealed value")
	}
	if got, err := b.Open(sealed, []byte("owner-1")); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := b.Open(sealed, []byte("owner-2")); err == nil {
		t.Error("opened for another owner")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open(sealed, []byte("owner-1")); err == nil {
		t.Error("opened a tampered value")
	}
	if _, err := ParseKey("c2hvcnQ="); err == nil {
		t.Error("short key accepted")
	}
}

// Sealing a response of a few KiB (what an Idempotency-Key keeps) costs microseconds,
// against milliseconds for the request that made it.
func BenchmarkSeal4KiB(b *testing.B) {
	key, err := ParseKey(NewKey())
	if err != nil {
		b.Fatal(err)
	}
	box, err := New(key)
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte(`{"signing_secret":"whsec_0123456789"}`), 4096/37)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		box.Seal(body, []byte("client-and-key"))
	}
}
