package console_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/console"
	"github.com/doceval/doceval/pkg/secretbox"
)

// The console seals TOTP secrets with a key ring of its own: the api's
// DOCEVAL_SECRET_KEY, which seals the webhook signing secrets the console may read,
// is not read, and without DOCEVAL_CONSOLE_SECRET_KEY the console does not start.
func TestConsoleKeyRingIsItsOwn(t *testing.T) {
	t.Setenv("DOCEVAL_SECRET_KEY", secretbox.NewKey())
	t.Setenv("DOCEVAL_CONSOLE_SECRET_KEY", "")
	s, err := config.Load[console.Settings]()
	if err != nil {
		t.Fatal(err)
	}
	if s.SecretKey != "" {
		t.Fatal("the console read DOCEVAL_SECRET_KEY")
	}
	_, err = console.New(console.Deps{Log: slog.New(slog.DiscardHandler), Settings: s})
	if err == nil || !strings.Contains(err.Error(), "DOCEVAL_CONSOLE_SECRET_KEY is required") {
		t.Fatalf("the console without its key: %v", err)
	}
	key := secretbox.NewKey()
	t.Setenv("DOCEVAL_CONSOLE_SECRET_KEY", key+",not-a-key")
	if s, err = config.Load[console.Settings](); err != nil || s.SecretKey != key+",not-a-key" {
		t.Fatalf("DOCEVAL_CONSOLE_SECRET_KEY read as %q (%v)", s.SecretKey, err)
	}
	if _, err = console.New(console.Deps{Log: slog.New(slog.DiscardHandler), Settings: s}); err == nil || !strings.Contains(err.Error(), "DOCEVAL_CONSOLE_SECRET_KEY: key 2") {
		t.Fatalf("the console with a bad ring: %v", err)
	}
}
