package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks headers every delivery carries beside X-Service-Signature, so that
// the scheme's libraries in other languages verify deliveries as they are.
const (
	// IDHeader (webhook-id) is the event id: the envelope's id, stable across retries and
	// redeliveries.
	IDHeader = "webhook-id"
	// TimestampHeader (webhook-timestamp) is when the delivery was signed, in unix seconds.
	TimestampHeader = "webhook-timestamp"
	// StandardSignatureHeader (webhook-signature) is "v1,<base64 HMAC-SHA256 of
	// {webhook-id}.{webhook-timestamp}.{raw body}>", one per secret, space-separated.
	StandardSignatureHeader = "webhook-signature"
)

// secretPrefix starts every signing secret the service issues.
const secretPrefix = "whsec_"

// VerifyRequest checks a delivery's headers against its raw body and accepts either
// scheme: the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)
// or X-Service-Signature. The service sends both; a receiver that gets only one of them
// (a proxy that drops headers, an older service) still verifies. When neither verifies,
// the error is the Standard Webhooks one if its signature header is there, else the
// X-Service-Signature one. Arguments are as for Verify.
func VerifyRequest(h http.Header, body []byte, secrets []string, tolerance time.Duration, now time.Time) error {
	legacy := h.Get(SignatureHeader)
	if h.Get(StandardSignatureHeader) == "" {
		return Verify(legacy, body, secrets, tolerance, now)
	}
	err := VerifyStandard(h.Get(IDHeader), h.Get(TimestampHeader), h.Get(StandardSignatureHeader), body, secrets, tolerance, now)
	if err != nil && legacy != "" && Verify(legacy, body, secrets, tolerance, now) == nil {
		return nil
	}
	return err
}

// VerifyStandard checks the Standard Webhooks headers' values (webhook-id,
// webhook-timestamp, webhook-signature) against the raw body. It accepts when any v1
// signature matches under any of secrets, each an endpoint's signing_secret as issued
// (see SigningKey); tolerance and now are as for Verify.
func VerifyStandard(id, timestamp, signature string, body []byte, secrets []string, tolerance time.Duration, now time.Time) error {
	if len(secrets) == 0 {
		return ErrNoSecrets
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	signedAt, signatures, err := parseStandard(id, timestamp, signature)
	if err != nil {
		return err
	}
	if age := now.Sub(time.Unix(signedAt, 0)); age > tolerance || age < -tolerance {
		return ErrTooOld
	}
	for _, secret := range secrets {
		expected := signStandard(SigningKey(secret), id, signedAt, body)
		for _, sig := range signatures {
			if hmac.Equal(expected, sig) { // constant time
				return nil
			}
		}
	}
	return ErrMismatch
}

// parseStandard reads webhook-timestamp (unix seconds) and the v1 signatures of
// webhook-signature ("v1,<base64>" separated by spaces). Other versions (v1a, the
// asymmetric one) are ignored, and so are v1 values that are not the base64 of a
// SHA-256 MAC: they can never match.
func parseStandard(id, timestamp, signature string) (int64, [][]byte, error) {
	if strings.TrimSpace(signature) == "" {
		return 0, nil, ErrNoSignature
	}
	if id == "" {
		return 0, nil, ErrInvalidHeader
	}
	signedAt, err := strconv.ParseInt(strings.TrimSpace(timestamp), 10, 64)
	if err != nil {
		return 0, nil, ErrInvalidHeader
	}
	var signatures [][]byte
	for item := range strings.FieldsSeq(signature) {
		version, value, ok := strings.Cut(item, ",")
		if !ok || version != "v1" {
			continue
		}
		if sig, err := base64.StdEncoding.DecodeString(value); err == nil && len(sig) == sha256.Size {
			signatures = append(signatures, sig)
		}
	}
	if len(signatures) == 0 {
		return 0, nil, ErrNoSignature
	}
	return signedAt, signatures, nil
}

// SigningKey is the HMAC key of webhook-signature for an endpoint's signing_secret: the
// secret without its "whsec_" prefix, base64-decoded, as the Standard Webhooks libraries
// take it. Secrets issued now are standard base64 with padding, which those libraries
// decode as is; secrets issued before were URL-safe base64 without padding, which they
// refuse, so both alphabets, with or without padding, decode here to the same key the
// service signs with. A secret that is not base64 at all (the service never issues one)
// is its own bytes, whole.
func SigningKey(secret string) []byte {
	encoded := strings.TrimRight(strings.TrimPrefix(secret, secretPrefix), "=")
	encoded = strings.NewReplacer("-", "+", "_", "/").Replace(encoded)
	if key, err := base64.RawStdEncoding.DecodeString(encoded); err == nil && len(key) > 0 {
		return key
	}
	return []byte(secret)
}

// signStandard is HMAC-SHA256 keyed with key over "{id}.{timestamp}.{body}".
func signStandard(key []byte, id string, timestamp int64, body []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

// SignStandard returns the webhook-signature value for the delivery of body as event id,
// signed at t with each secret, in the format the service sends; webhook-timestamp is
// t's unix seconds. It exists for receivers' tests.
func SignStandard(id string, body []byte, t time.Time, secrets ...string) string {
	values := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		values = append(values, "v1,"+base64.StdEncoding.EncodeToString(signStandard(SigningKey(secret), id, t.Unix(), body)))
	}
	return strings.Join(values, " ")
}

// SignRequest sets both schemes' headers on a request carrying body as event id, signed at
// t with each secret: X-Service-Signature, webhook-id, webhook-timestamp and
// webhook-signature, as the service sends them. It exists for receivers' tests and for
// tools that forward deliveries.
func SignRequest(h http.Header, id string, body []byte, t time.Time, secrets ...string) {
	h.Set(SignatureHeader, Sign(body, t, secrets...))
	h.Set(IDHeader, id)
	h.Set(TimestampHeader, strconv.FormatInt(t.Unix(), 10))
	h.Set(StandardSignatureHeader, SignStandard(id, body, t, secrets...))
}
