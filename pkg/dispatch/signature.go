package dispatch

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header carrying a delivery's signatures (X-Service-Signature).
const SignatureHeader = "X-Service-Signature"

// Sign returns the X-Service-Signature value for a delivery of body at time t:
// "t=<unix seconds>" and one "v1=<hex HMAC-SHA256 of {t}.{body}>" per secret (the
// current one first; during a rotation also the previous one), without spaces.
func Sign(body []byte, t time.Time, secrets ...[]byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte(ts))
		mac.Write([]byte{'.'})
		mac.Write(body)
		b.WriteString(",v1=" + hex.EncodeToString(mac.Sum(nil)))
	}
	return b.String()
}
