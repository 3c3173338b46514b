package dispatch_test

import (
	"testing"
	"time"

	stripe "github.com/stripe/stripe-go/v82/webhook"

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
