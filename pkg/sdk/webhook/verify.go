package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header carrying a delivery's signatures.
const SignatureHeader = "X-Service-Signature"

// DefaultTolerance is how far the signature's timestamp may be from now, either way.
const DefaultTolerance = 300 * time.Second

// Verification errors; match them with errors.Is.
var (
	// ErrNoSignature: the header is missing or carries no v1 signature.
	ErrNoSignature = errors.New("webhook: no v1 signature in the signature header")
	// ErrInvalidHeader: the header is not t=<unix seconds>,v1=<hex>[,v1=<hex>…].
	ErrInvalidHeader = errors.New("webhook: malformed signature header")
	// ErrTooOld: the timestamp is further from now than the tolerance (in the past, or
	// in the future: a clock far off is treated the same way).
	ErrTooOld = errors.New("webhook: signature timestamp outside the tolerance")
	// ErrMismatch: no v1 value matches the body under any of the secrets.
	ErrMismatch = errors.New("webhook: signature does not match the body")
	// ErrNoSecrets: Verify was given no secret to check with.
	ErrNoSecrets = errors.New("webhook: no signing secret configured")
)

// Verify checks header (the X-Service-Signature value) against the raw request body,
// byte for byte as received, never a re-serialized object. It accepts when any v1
// value matches under any of secrets: pass the current and, during a rotation, the
// previous endpoint secret. tolerance <= 0 means DefaultTolerance; now is the receiver's
// clock (time.Now() in production).
func Verify(header string, body []byte, secrets []string, tolerance time.Duration, now time.Time) error {
	if len(secrets) == 0 {
		return ErrNoSecrets
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	timestamp, signatures, err := parseHeader(header)
	if err != nil {
		return err
	}
	if age := now.Sub(time.Unix(timestamp, 0)); age > tolerance || age < -tolerance {
		return ErrTooOld
	}
	for _, secret := range secrets {
		expected := sign(secret, timestamp, body)
		for _, sig := range signatures {
			if hmac.Equal(expected, sig) { // constant time
				return nil
			}
		}
	}
	return ErrMismatch
}

// parseHeader reads "t=<unix seconds>,v1=<hex>,v1=<hex>". Schemes other than v1 are
// ignored so that a future scheme can be added next to v1 without breaking receivers;
// v1 values that are not hex can never match and are skipped.
func parseHeader(header string) (int64, [][]byte, error) {
	if strings.TrimSpace(header) == "" {
		return 0, nil, ErrNoSignature
	}
	var (
		timestamp  int64
		haveTime   bool
		signatures [][]byte
	)
	for item := range strings.SplitSeq(header, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return 0, nil, ErrInvalidHeader
		}
		switch key {
		case "t":
			t, err := strconv.ParseInt(value, 10, 64)
			if err != nil || haveTime {
				return 0, nil, ErrInvalidHeader
			}
			timestamp, haveTime = t, true
		case "v1":
			if sig, err := hex.DecodeString(value); err == nil && len(sig) == sha256.Size {
				signatures = append(signatures, sig)
			}
		}
	}
	if !haveTime {
		return 0, nil, ErrInvalidHeader
	}
	if len(signatures) == 0 {
		return 0, nil, ErrNoSignature
	}
	return timestamp, signatures, nil
}

// sign is HMAC-SHA256 keyed with the secret over "{t}.{body}".
func sign(secret string, timestamp int64, body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

// Sign returns a header value for body signed at t with each secret, in the format the
// service sends. It exists for receivers' tests.
func Sign(body []byte, t time.Time, secrets ...string) string {
	var b strings.Builder
	b.WriteString("t=" + strconv.FormatInt(t.Unix(), 10))
	for _, secret := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(sign(secret, t.Unix(), body)))
	}
	return b.String()
}
