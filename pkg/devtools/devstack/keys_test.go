package devstack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/secretbox"
)

// make run keeps two keys in .data: the api's (webhook secrets, replayed responses) and
// the console's own for staff TOTP secrets, never the same one, so the console does not
// hold the key that opens the webhook signing secrets.
func TestDevStackKeepsTheConsolesOwnKey(t *testing.T) {
	t.Parallel()
	dir, _ := startDevStack(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, ".data", name))
		if err != nil {
			t.Fatal(err)
		}
		key := strings.TrimSpace(string(b))
		if _, err := secretbox.ParseKey(key); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return key
	}
	if read("secret.key") == read("console-secret.key") {
		t.Fatal("the console's key is the api's")
	}
}
