package dispatch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/doceval/doceval/pkg/dispatch"
)

// An independent implementation of the same t=…,v1=… scheme (stripe-go's) accepts the
// signature with each secret of a rotation and rejects a changed body or an old one.
func TestSignVerifiesIndependently(t *testing.T) {
	body := []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000000","type":"file.ready","data":{}}`)
	current, previous := "whsec_current", "whsec_previous"
	header := dispatch.Sign(body, time.Now(), []byte(current), []byte(previous))
	if strings.Contains(header, " ") || strings.Count(header, "v1=") != 2 || !strings.HasPrefix(header, "t=") {
		t.Fatalf("header %q", header)
	}
	for _, secret := range []string{current, previous} {
		if err := webhook.ValidatePayload(body, header, secret); err != nil {
			t.Errorf("secret %s: %v", secret, err)
		}
	}
	if err := webhook.ValidatePayload(body, header, "whsec_other"); err == nil {
		t.Error("accepted with a wrong secret")
	}
	changed := append([]byte{}, body...)
	changed[len(changed)-2] = ' '
	if err := webhook.ValidatePayload(changed, header, current); err == nil {
		t.Error("accepted a changed body")
	}
	stale := dispatch.Sign(body, time.Now().Add(-10*time.Minute), []byte(current))
	if err := webhook.ValidatePayload(body, stale, current); err == nil {
		t.Error("accepted a signature older than the 300 s tolerance")
	}
}
