package auth_test

import (
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/auth"
)

func TestTOTP(t *testing.T) {
	t.Parallel()
	secret, err := auth.NewTOTPSecret()
	if err != nil || len(secret) < 32 {
		t.Fatalf("secret %q: %v", secret, err)
	}
	e, err := auth.TOTPEnrolmentOf("Bank & Co", "a@example.com", secret)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.URI, "otpauth://totp/") || !strings.Contains(e.URI, "secret="+secret) || !strings.HasPrefix(e.QR, "data:image/png;base64,") {
		t.Fatalf("enrolment: %+v", e.URI)
	}
	now := time.Unix(1_800_000_015, 0)
	step := now.Unix() / 30
	for d, want := range map[time.Duration]bool{0: true, -30 * time.Second: true, 30 * time.Second: true, -60 * time.Second: false, 90 * time.Second: false} {
		code, err := auth.TOTPCode(secret, now.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := auth.MatchTOTP(secret, code, now)
		if ok != want || (ok && got != step+int64(d/(30*time.Second))) {
			t.Errorf("code of %v from now: ok %v step %d (now %d)", d, ok, got, step)
		}
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if _, ok := auth.MatchTOTP(secret, bad, now); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
