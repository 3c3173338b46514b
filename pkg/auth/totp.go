package auth

import (
	"bytes"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// Staff second factor: time-based one-time passwords (RFC 6238) through
// github.com/pquerna/otp, with the parameters every authenticator app understands:
// HMAC-SHA-1, six digits, a new code every 30 seconds, a 160-bit secret.

// TOTPPeriod is how long one code is valid; TOTPSkew is how many periods before and
// after the current one are accepted too (a phone's clock a little off).
const (
	TOTPPeriod = 30 * time.Second
	TOTPSkew   = 1
)

var totpOpts = totp.ValidateOpts{Period: uint(TOTPPeriod / time.Second), Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPEnrolment is what an authenticator app needs to add an account: the otpauth://
// URI, the same as a QR code (a PNG data: URI), and the secret to type in by hand.
type TOTPEnrolment struct {
	Secret string // base32, no padding
	URI    string
	QR     string // data:image/png;base64,…
}

// NewTOTPSecret returns a fresh random secret (base32, as apps take it).
func NewTOTPSecret() (string, error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: "doceval", AccountName: "new", Period: totpOpts.Period, Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
	if err != nil {
		return "", err
	}
	return key.Secret(), nil
}

// TOTPEnrolmentOf describes a secret for the account (an e-mail) of issuer.
func TOTPEnrolmentOf(issuer, account, secret string) (TOTPEnrolment, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	if err != nil {
		return TOTPEnrolment{}, fmt.Errorf("totp secret: %w", err)
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Secret: raw, Period: totpOpts.Period, Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm})
	if err != nil {
		return TOTPEnrolment{}, err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return TOTPEnrolment{}, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return TOTPEnrolment{}, err
	}
	return TOTPEnrolment{Secret: key.Secret(), URI: key.URL(), QR: "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}, nil
}

// TOTPCode is the code of secret at t (for tests and the enrolment check).
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totpOpts)
}

// MatchTOTP checks code against the codes of secret from TOTPSkew periods before now to
// TOTPSkew after, and returns the time step (Unix time / period) of the one it
// matches. The caller refuses a step not later than the last one it accepted, so a code
// is good for one sign-in.
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(code) != totpOpts.Digits.Length() {
		return 0, false
	}
	current := now.Unix() / int64(totpOpts.Period)
	for d := int64(-TOTPSkew); d <= TOTPSkew; d++ {
		s := current + d
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*int64(totpOpts.Period), 0), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			step, ok = s, true // keep looking: every candidate costs the same time
		}
	}
	return step, ok
}
