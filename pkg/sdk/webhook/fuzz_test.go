package webhook

import (
	"bytes"
	"strconv"
	"testing"
	"time"
)

// FuzzParseHeader: any X-Service-Signature value parses without panicking, and what
// parses has a timestamp and at least one 32-byte v1; a header Sign made always parses.
func FuzzParseHeader(f *testing.F) {
	f.Add(Sign(deliveryBody, signedAt, "whsec_a", "whsec_b"))
	f.Add("t=1,v1=zz, v0=abc")
	f.Add("t=,v1=")
	f.Add("v1=00,t=1,t=2")
	f.Fuzz(func(t *testing.T, header string) {
		timestamp, signatures, err := parseHeader(header)
		if err != nil {
			return
		}
		if len(signatures) == 0 {
			t.Fatalf("%q parsed without a signature", header)
		}
		for _, sig := range signatures {
			if len(sig) != 32 {
				t.Fatalf("%q gave a %d-byte signature", header, len(sig))
			}
		}
		if err := Verify(header, deliveryBody, []string{"whsec_a"}, time.Hour, time.Unix(timestamp, 0)); err != nil && err != ErrMismatch {
			t.Fatalf("%q parsed but Verify says %v", header, err)
		}
	})
}

// FuzzParseStandard: any webhook-id, webhook-timestamp and webhook-signature values parse
// without panicking; what parses has 32-byte v1 signatures only; and a delivery signed with
// SignStandard for the fuzzed id and body verifies, and stops verifying when the body
// changes.
func FuzzParseStandard(f *testing.F) {
	f.Add(deliveryID, strconv.FormatInt(signedAt.Unix(), 10), SignStandard(deliveryID, deliveryBody, signedAt, currentSecret, otherSecret), deliveryBody)
	f.Add("msg_1", "1", "v1a,abc v1,!!! v1,", []byte{})
	f.Add("", "-5", "v1,AAAA", []byte("{}"))
	f.Fuzz(func(t *testing.T, id, timestamp, signature string, body []byte) {
		if _, signatures, err := parseStandard(id, timestamp, signature); err == nil {
			for _, sig := range signatures {
				if len(sig) != 32 {
					t.Fatalf("%q gave a %d-byte signature", signature, len(sig))
				}
			}
		}
		if id == "" {
			return
		}
		signed := SignStandard(id, body, signedAt, currentSecret)
		ts := strconv.FormatInt(signedAt.Unix(), 10)
		if err := VerifyStandard(id, ts, signed, body, []string{legacySecret}, 0, signedAt); err != nil {
			t.Fatalf("id %q: its own signature refused: %v", id, err)
		}
		changed := append(bytes.Clone(body), 'x')
		if err := VerifyStandard(id, ts, signed, changed, []string{currentSecret}, 0, signedAt); err != ErrMismatch {
			t.Fatalf("id %q: a changed body gave %v", id, err)
		}
	})
}
