package partnercli

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// A profile's secret from before the Standard Webhooks headers (URL-safe, unpadded) is
// shown in the standard form their libraries take, keying the same bytes; a secret
// already in that form needs no hint.
func TestStandardSecretOfAnOlderProfile(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{0xfb, 0xff, 0x3e}, 11)[:32] // encodes with - and _ in URL-safe base64
	old := "whsec_" + base64.RawURLEncoding.EncodeToString(key)
	standard, ok := standardSecret(old)
	if !ok || standard != "whsec_"+base64.StdEncoding.EncodeToString(key) {
		t.Fatalf("standardSecret(%q) = %q, %v", old, standard, ok)
	}
	if !bytes.Equal(webhook.SigningKey(standard), webhook.SigningKey(old)) {
		t.Error("the standard form keys other bytes")
	}
	if _, ok := standardSecret(standard); ok {
		t.Error("a standard secret got a hint")
	}
	if _, ok := standardSecret(newLocalSecret()); ok {
		t.Error("a new local secret got a hint")
	}
}
