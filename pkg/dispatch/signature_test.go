package dispatch_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
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

// The Standard Webhooks signature verifies with the scheme's reference Go library given
// each secret of a rotation as a partner holds it, with webhook-id being the id signed,
// and fails for a changed body, another id, a wrong secret or an old timestamp.
func TestSignStandardVerifiesWithTheReferenceLibrary(t *testing.T) {
	body := []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000000","type":"file.ready","data":{}}`)
	id := "evt_0190a1b2-0000-7000-8000-000000000000"
	header := func(id, body string, at time.Time, secrets ...string) http.Header {
		raw := make([][]byte, len(secrets))
		for i, s := range secrets {
			raw[i] = []byte(s)
		}
		h := http.Header{}
		h.Set(dispatch.IDHeader, id)
		h.Set(dispatch.TimestampHeader, strconv.FormatInt(at.Unix(), 10))
		h.Set(dispatch.StandardSignatureHeader, dispatch.SignStandard(id, []byte(body), at, raw...))
		return h
	}
	verify := func(secret string, h http.Header, body []byte) error {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return err
		}
		return wh.Verify(body, h)
	}
	now := time.Now()
	h := header(id, string(body), now, issuedSecret, legacySecret)
	if sig := h.Get(dispatch.StandardSignatureHeader); len(strings.Fields(sig)) != 2 || !strings.HasPrefix(sig, "v1,") {
		t.Fatalf("webhook-signature %q", sig)
	}
	for _, secret := range []string{issuedSecret, legacySecretConverted} {
		if err := verify(secret, h, body); err != nil {
			t.Errorf("secret %s: %v", secret, err)
		}
	}
	if _, err := standardwebhooks.NewWebhook(legacySecret); err == nil {
		t.Error("the reference library took a URL-safe secret as is: the spec's conversion advice is stale")
	}
	if verify(otherSecret, h, body) == nil {
		t.Error("accepted with a wrong secret")
	}
	if verify(issuedSecret, h, append(bytes.Clone(body), ' ')) == nil {
		t.Error("accepted a changed body")
	}
	other := h.Clone()
	other.Set(dispatch.IDHeader, "evt_0190a1b2-0000-7000-8000-000000000001")
	if verify(issuedSecret, other, body) == nil {
		t.Error("accepted another webhook-id")
	}
	if verify(issuedSecret, header(id, string(body), now.Add(-10*time.Minute), issuedSecret), body) == nil {
		t.Error("accepted a signature older than the 5-minute tolerance")
	}
}

// A secret's Standard Webhooks key is its base64 decoded, whichever alphabet and padding
// it was issued in; a secret that is not base64 keys with its own bytes.
func TestStandardKey(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb, 0xff, 0xbe}, 11)[:32]
	for _, secret := range []string{
		"whsec_" + base64.StdEncoding.EncodeToString(key), "whsec_" + base64.RawStdEncoding.EncodeToString(key),
		"whsec_" + base64.URLEncoding.EncodeToString(key), legacySecret,
	} {
		if got := dispatch.StandardKey([]byte(secret)); !bytes.Equal(got, key) {
			t.Errorf("%s: key %x", secret, got)
		}
	}
	if got := dispatch.StandardKey([]byte("whsec_x")); string(got) != "whsec_x" {
		t.Errorf("whsec_x: key %q", got)
	}
}
