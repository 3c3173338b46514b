package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"
)

var (
	deliveryBody = []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000000","type":"file.ready","created_at":"2026-01-02T03:04:05Z","api_client_id":"0190a1b2-0000-7000-8000-00000000000c","data":{"upload":{}}}`)
	signedAt     = time.Unix(1767322800, 0)
)

// independentSignature computes v1 straight from the documented scheme, without this package's
// code: hex HMAC-SHA256 keyed with the secret over "{t}.{raw body}".
func independentSignature(secret string, t time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.%s", t.Unix(), body)
	return hex.EncodeToString(mac.Sum(nil))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	good := fmt.Sprintf("t=%d,v1=%s", signedAt.Unix(), independentSignature("whsec_current", signedAt, deliveryBody))
	tampered := append([]byte{}, deliveryBody...)
	tampered[len(tampered)-3] = 'X'
	cases := []struct {
		name    string
		header  string
		body    []byte
		secrets []string
		now     time.Time
		want    error
	}{
		{"good", good, deliveryBody, []string{"whsec_current"}, signedAt, nil},
		{"good, 299 s later", good, deliveryBody, []string{"whsec_current"}, signedAt.Add(299 * time.Second), nil},
		{"tampered body", good, tampered, []string{"whsec_current"}, signedAt, ErrMismatch},
		{"re-serialized body", good, append(deliveryBody, ' '), []string{"whsec_current"}, signedAt, ErrMismatch},
		{"wrong secret", good, deliveryBody, []string{"whsec_other"}, signedAt, ErrMismatch},
		{"stale", good, deliveryBody, []string{"whsec_current"}, signedAt.Add(301 * time.Second), ErrTooOld},
		{"from the future", good, deliveryBody, []string{"whsec_current"}, signedAt.Add(-301 * time.Second), ErrTooOld},
		{"rotation: several v1, the second matches",
			fmt.Sprintf("t=%d,v1=%s,v1=%s", signedAt.Unix(), independentSignature("whsec_new", signedAt, deliveryBody), independentSignature("whsec_old", signedAt, deliveryBody)),
			deliveryBody, []string{"whsec_old"}, signedAt, nil},
		{"rotated secrets on the receiver: the old one matches",
			good, deliveryBody, []string{"whsec_next", "whsec_current"}, signedAt, nil},
		{"garbage v1 next to a good one",
			fmt.Sprintf("t=%d,v1=zz,v0=abc,v1=%s", signedAt.Unix(), independentSignature("whsec_current", signedAt, deliveryBody)),
			deliveryBody, []string{"whsec_current"}, signedAt, nil},
		{"spaces after commas", fmt.Sprintf("t=%d, v1=%s", signedAt.Unix(), independentSignature("whsec_current", signedAt, deliveryBody)),
			deliveryBody, []string{"whsec_current"}, signedAt, nil},
		{"no header", "", deliveryBody, []string{"whsec_current"}, signedAt, ErrNoSignature},
		{"no v1", fmt.Sprintf("t=%d", signedAt.Unix()), deliveryBody, []string{"whsec_current"}, signedAt, ErrNoSignature},
		{"no t", "v1=" + independentSignature("whsec_current", signedAt, deliveryBody), deliveryBody, []string{"whsec_current"}, signedAt, ErrInvalidHeader},
		{"t not a number", "t=yesterday,v1=00", deliveryBody, []string{"whsec_current"}, signedAt, ErrInvalidHeader},
		{"no secrets", good, deliveryBody, nil, signedAt, ErrNoSecrets},
	}
	for _, tc := range cases {
		if err := Verify(tc.header, tc.body, tc.secrets, 0, tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestVerifyCustomTolerance(t *testing.T) {
	t.Parallel()
	header := Sign(deliveryBody, signedAt, "s")
	if err := Verify(header, deliveryBody, []string{"s"}, 10*time.Second, signedAt.Add(11*time.Second)); !errors.Is(err, ErrTooOld) {
		t.Errorf("got %v", err)
	}
	if err := Verify(header, deliveryBody, []string{"s"}, time.Hour, signedAt.Add(30*time.Minute)); err != nil {
		t.Errorf("got %v", err)
	}
}

// Sign produces what the service sends: the format of pkg/dispatch.Sign.
func TestSignMatchesTheServiceFormat(t *testing.T) {
	t.Parallel()
	got := Sign(deliveryBody, signedAt, "a", "b")
	want := fmt.Sprintf("t=%d,v1=%s,v1=%s", signedAt.Unix(), independentSignature("a", signedAt, deliveryBody), independentSignature("b", signedAt, deliveryBody))
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
