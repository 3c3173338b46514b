package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

const deliveryID = "evt_0190a1b2-0000-7000-8000-000000000000"

// Secrets as the service issues them now (standard base64 with padding) and did before
// (URL-safe base64 without padding), both of the same 32 bytes.
var (
	secretKey     = bytes.Repeat([]byte{0xfb, 0xef, 0x3e}, 11)[:32] // encodes with + and / or - and _
	currentSecret = "whsec_" + base64.StdEncoding.EncodeToString(secretKey)
	legacySecret  = "whsec_" + base64.RawURLEncoding.EncodeToString(secretKey)
	otherSecret   = "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
)

// independentStandardSignature computes webhook-signature's v1 straight from the Standard
// Webhooks scheme, without this package's code: base64 HMAC-SHA256 keyed with key over
// "{id}.{t}.{raw body}".
func independentStandardSignature(key []byte, id string, t time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", id, t.Unix(), body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestVerifyStandard(t *testing.T) {
	t.Parallel()
	ts := strconv.FormatInt(signedAt.Unix(), 10)
	good := independentStandardSignature(secretKey, deliveryID, signedAt, deliveryBody)
	other := independentStandardSignature(SigningKey(otherSecret), deliveryID, signedAt, deliveryBody)
	tampered := bytes.Replace(deliveryBody, []byte("file.ready"), []byte("file.ready "), 1)
	cases := []struct {
		name          string
		id, ts, sig   string
		body          []byte
		secrets       []string
		now           time.Time
		want          error
		wantWithOther error // the same with otherSecret configured alone
	}{
		{"good", deliveryID, ts, good, deliveryBody, []string{currentSecret}, signedAt, nil, ErrMismatch},
		{"a secret issued before, URL-safe without padding: the same key", deliveryID, ts, good, deliveryBody, []string{legacySecret}, signedAt, nil, ErrMismatch},
		{"good, 299 s later", deliveryID, ts, good, deliveryBody, []string{currentSecret}, signedAt.Add(299 * time.Second), nil, ErrMismatch},
		{"tampered body", deliveryID, ts, good, tampered, []string{currentSecret}, signedAt, ErrMismatch, ErrMismatch},
		{"another event id", "evt_0190a1b2-0000-7000-8000-000000000001", ts, good, deliveryBody, []string{currentSecret}, signedAt, ErrMismatch, ErrMismatch},
		{"another timestamp in the tolerance", deliveryID, strconv.FormatInt(signedAt.Unix()+1, 10), good, deliveryBody, []string{currentSecret}, signedAt, ErrMismatch, ErrMismatch},
		{"stale", deliveryID, ts, good, deliveryBody, []string{currentSecret}, signedAt.Add(301 * time.Second), ErrTooOld, ErrTooOld},
		{"from the future", deliveryID, ts, good, deliveryBody, []string{currentSecret}, signedAt.Add(-301 * time.Second), ErrTooOld, ErrTooOld},
		{"rotation: two v1, the second matches", deliveryID, ts, other + " " + good, deliveryBody, []string{currentSecret}, signedAt, nil, nil},
		{"rotated secrets on the receiver: the second matches", deliveryID, ts, good, deliveryBody, []string{otherSecret, currentSecret}, signedAt, nil, ErrMismatch},
		{"other versions and garbage next to a good v1", deliveryID, ts, "v1a,abc v1,!!! v2," + good[3:] + " " + good, deliveryBody, []string{currentSecret}, signedAt, nil, ErrMismatch},
		{"the hex of X-Service-Signature is not a v1 here", deliveryID, ts, "v1," + independentSignature(currentSecret, signedAt, deliveryBody), deliveryBody, []string{currentSecret}, signedAt, ErrNoSignature, ErrNoSignature},
		{"no signature", deliveryID, ts, "", deliveryBody, []string{currentSecret}, signedAt, ErrNoSignature, ErrNoSignature},
		{"no id", "", ts, good, deliveryBody, []string{currentSecret}, signedAt, ErrInvalidHeader, ErrInvalidHeader},
		{"no timestamp", deliveryID, "", good, deliveryBody, []string{currentSecret}, signedAt, ErrInvalidHeader, ErrInvalidHeader},
		{"timestamp not a number", deliveryID, "yesterday", good, deliveryBody, []string{currentSecret}, signedAt, ErrInvalidHeader, ErrInvalidHeader},
		{"no secrets", deliveryID, ts, good, deliveryBody, nil, signedAt, ErrNoSecrets, ErrNoSecrets},
	}
	for _, tc := range cases {
		if err := VerifyStandard(tc.id, tc.ts, tc.sig, tc.body, tc.secrets, 0, tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
		if tc.secrets == nil {
			continue
		}
		if err := VerifyStandard(tc.id, tc.ts, tc.sig, tc.body, []string{otherSecret}, 0, tc.now); !errors.Is(err, tc.wantWithOther) {
			t.Errorf("%s, with another secret: got %v, want %v", tc.name, err, tc.wantWithOther)
		}
	}
}

func TestVerifyStandardCustomTolerance(t *testing.T) {
	t.Parallel()
	sig := SignStandard(deliveryID, deliveryBody, signedAt, currentSecret)
	ts := strconv.FormatInt(signedAt.Unix(), 10)
	if err := VerifyStandard(deliveryID, ts, sig, deliveryBody, []string{currentSecret}, 10*time.Second, signedAt.Add(11*time.Second)); !errors.Is(err, ErrTooOld) {
		t.Errorf("got %v", err)
	}
	if err := VerifyStandard(deliveryID, ts, sig, deliveryBody, []string{currentSecret}, time.Hour, signedAt.Add(30*time.Minute)); err != nil {
		t.Errorf("got %v", err)
	}
}

// SignStandard produces what the service sends: one v1 per secret, space-separated.
func TestSignStandardMatchesTheScheme(t *testing.T) {
	t.Parallel()
	got := SignStandard(deliveryID, deliveryBody, signedAt, currentSecret, otherSecret)
	want := independentStandardSignature(secretKey, deliveryID, signedAt, deliveryBody) + " " +
		independentStandardSignature(bytes.Repeat([]byte{7}, 32), deliveryID, signedAt, deliveryBody)
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestSigningKey(t *testing.T) {
	t.Parallel()
	for _, secret := range []string{
		currentSecret, legacySecret,
		"whsec_" + base64.URLEncoding.EncodeToString(secretKey),
		"whsec_" + base64.RawStdEncoding.EncodeToString(secretKey),
		base64.StdEncoding.EncodeToString(secretKey), // without the prefix, as some receivers store it
	} {
		if got := SigningKey(secret); !bytes.Equal(got, secretKey) {
			t.Errorf("%s: key %x, want %x", secret, got, secretKey)
		}
	}
	if got := SigningKey("whsec_x"); string(got) != "whsec_x" {
		t.Errorf("a secret that is not base64: key %q, want its own bytes", got)
	}
}

// VerifyRequest accepts a delivery by either scheme and refuses it when neither verifies.
func TestVerifyRequest(t *testing.T) {
	t.Parallel()
	both := http.Header{}
	SignRequest(both, deliveryID, deliveryBody, signedAt, currentSecret)
	onlyStandard, onlyLegacy := both.Clone(), both.Clone()
	onlyStandard.Del(SignatureHeader)
	onlyLegacy.Del(StandardSignatureHeader)
	brokenStandard := both.Clone() // a proxy that mangled one header: the other still verifies
	brokenStandard.Set(IDHeader, "evt_other")
	brokenBoth := brokenStandard.Clone()
	brokenBoth.Set(SignatureHeader, Sign(deliveryBody, signedAt, otherSecret))
	staleLegacy := onlyLegacy.Clone()
	staleLegacy.Set(SignatureHeader, Sign(deliveryBody, signedAt.Add(-time.Hour), currentSecret))
	cases := []struct {
		name string
		h    http.Header
		body []byte
		want error
	}{
		{"both", both, deliveryBody, nil},
		{"only Standard Webhooks", onlyStandard, deliveryBody, nil},
		{"only X-Service-Signature", onlyLegacy, deliveryBody, nil},
		{"the Standard Webhooks id changed", brokenStandard, deliveryBody, nil},
		{"neither verifies: the Standard Webhooks error", brokenBoth, deliveryBody, ErrMismatch},
		{"only X-Service-Signature, stale: its error", staleLegacy, deliveryBody, ErrTooOld},
		{"tampered body", both, append(bytes.Clone(deliveryBody), ' '), ErrMismatch},
		{"no headers", http.Header{}, deliveryBody, ErrNoSignature},
	}
	for _, tc := range cases {
		if err := VerifyRequest(tc.h, tc.body, []string{currentSecret}, 0, signedAt); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := VerifyRequest(both, deliveryBody, []string{otherSecret}, 0, signedAt); !errors.Is(err, ErrMismatch) {
		t.Errorf("wrong secret: got %v", err)
	}
}

// The Handler takes a delivery signed with the Standard Webhooks headers alone.
func TestHandlerVerifiesStandardWebhooks(t *testing.T) {
	t.Parallel()
	r := &receiver{}
	h := Handler([]string{legacySecret}, nil, r.handle, WithClock(func() time.Time { return signedAt }))
	send := func(body []byte) int {
		req := httptest.NewRequest(http.MethodPost, "/webhooks/doceval", bytes.NewReader(body))
		req.Header.Set(IDHeader, deliveryID)
		req.Header.Set(TimestampHeader, strconv.FormatInt(signedAt.Unix(), 10))
		req.Header.Set(StandardSignatureHeader, SignStandard(deliveryID, deliveryBody, signedAt, currentSecret))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := send(deliveryBody); code != http.StatusOK || len(r.events) != 1 {
		t.Fatalf("answered %d, handled %d events", code, len(r.events))
	}
	if code := send(bytes.Replace(deliveryBody, []byte("file.ready"), []byte("file.gone_"), 1)); code != http.StatusBadRequest || len(r.events) != 1 {
		t.Errorf("tampered: answered %d, handled %d events", code, len(r.events))
	}
}
