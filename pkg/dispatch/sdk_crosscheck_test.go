package dispatch_test

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	stripe "github.com/stripe/stripe-go/v82/webhook"

	"github.com/doceval/doceval/pkg/dispatch"
	sdk "github.com/doceval/doceval/pkg/sdk/webhook"
)

// The SDK's verifier and stripe-go's agree on the t=…,v1=… scheme in both directions:
// what stripe-go signs the SDK accepts, what the SDK signs stripe-go accepts, and both
// refuse a tampered body, a stale timestamp and a wrong secret.
func TestSDKWebhookMatchesStripe(t *testing.T) {
	body := []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000001","type":"evaluation.completed","data":{}}`)
	now := time.Now()
	secret, rotated := "whsec_new", "whsec_old"

	signed := stripe.GenerateTestSignedPayload(&stripe.UnsignedPayload{Payload: body, Secret: secret, Timestamp: now})
	if err := sdk.Verify(signed.Header, body, []string{rotated, secret}, 300*time.Second, now); err != nil {
		t.Errorf("the SDK refuses stripe-go's signature: %v", err)
	}
	header := sdk.Sign(body, now, secret, rotated)
	for _, s := range []string{secret, rotated} {
		if err := stripe.ValidatePayload(body, header, s); err != nil {
			t.Errorf("stripe-go refuses the SDK's signature with %s: %v", s, err)
		}
	}
	tampered := append([]byte{}, body...)
	tampered[10] = 'X'
	if sdk.Verify(signed.Header, tampered, []string{secret}, 300*time.Second, now) == nil || stripe.ValidatePayload(tampered, header, secret) == nil {
		t.Error("a tampered body was accepted")
	}
	stale := sdk.Sign(body, now.Add(-10*time.Minute), secret)
	if sdk.Verify(stale, body, []string{secret}, 300*time.Second, now) == nil || stripe.ValidatePayload(body, stale, secret) == nil {
		t.Error("a stale signature was accepted")
	}
	if sdk.Verify(signed.Header, body, []string{"whsec_other"}, 300*time.Second, now) == nil {
		t.Error("a wrong secret was accepted")
	}
}

// The SDK and the Standard Webhooks reference Go library agree on webhook-signature in
// both directions, and the SDK keys a secret as the dispatcher does, in each form a
// secret was issued in.
func TestSDKStandardWebhooksMatchesTheReferenceLibrary(t *testing.T) {
	body := []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000001","type":"evaluation.completed","data":{}}`)
	id, now := "evt_0190a1b2-0000-7000-8000-000000000001", time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	for _, secret := range []string{issuedSecret, legacySecret, "whsec_x", otherSecret} {
		if got, want := sdk.SigningKey(secret), dispatch.StandardKey([]byte(secret)); !bytes.Equal(got, want) {
			t.Errorf("%s: the SDK keys with %x, the dispatcher with %x", secret, got, want)
		}
	}

	wh, err := standardwebhooks.NewWebhook(issuedSecret)
	if err != nil {
		t.Fatal(err)
	}
	signed, _ := wh.Sign(id, now, body)
	if err := sdk.VerifyStandard(id, ts, signed, body, []string{otherSecret, issuedSecret}, 0, now); err != nil {
		t.Errorf("the SDK refuses the library's signature: %v", err)
	}
	if sdk.VerifyStandard(id, ts, signed, append(bytes.Clone(body), ' '), []string{issuedSecret}, 0, now) == nil {
		t.Error("the SDK accepted a tampered body")
	}
	h := http.Header{}
	sdk.SignRequest(h, id, body, now, otherSecret, issuedSecret)
	if err := wh.Verify(body, h); err != nil {
		t.Errorf("the library refuses the SDK's signature: %v", err)
	}
	if wh.Verify(append(bytes.Clone(body), ' '), h) == nil {
		t.Error("the library accepted a tampered body")
	}
	legacy, err := standardwebhooks.NewWebhook(legacySecretConverted)
	if err != nil {
		t.Fatal(err)
	}
	legacySigned, _ := legacy.Sign(id, now, body)
	if err := sdk.VerifyStandard(id, ts, legacySigned, body, []string{legacySecret}, 0, now); err != nil {
		t.Errorf("the SDK, given a secret issued before as is, refuses the library's signature with it converted: %v", err)
	}
}
