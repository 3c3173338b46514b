package dispatch

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// SignatureHeader is the header carrying a delivery's signatures (X-Service-Signature).
const SignatureHeader = "X-Service-Signature"

// The Standard Webhooks headers, sent on every delivery beside X-Service-Signature so that
// the scheme's libraries in other languages verify deliveries with the signing_secret as
// issued.
const (
	IDHeader                = standardwebhooks.HeaderWebhookID        // the event id
	TimestampHeader         = standardwebhooks.HeaderWebhookTimestamp // unix seconds
	StandardSignatureHeader = standardwebhooks.HeaderWebhookSignature // v1,<base64> per secret
)

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

// SignStandard returns the webhook-signature value for the delivery of body as event id
// (its webhook-id) at time t: one "v1,<base64 HMAC-SHA256 of {id}.{t}.{body}>" per
// secret, in Sign's order, space-separated, each keyed with StandardKey(secret).
func SignStandard(id string, body []byte, t time.Time, secrets ...[]byte) string {
	values := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		// Neither errs: a raw key is taken as is and signing cannot fail.
		wh, _ := standardwebhooks.NewWebhookRaw(StandardKey(secret))
		v, _ := wh.Sign(id, t, body)
		values = append(values, v)
	}
	return strings.Join(values, " ")
}

// StandardKey is the Standard Webhooks HMAC key of a signing secret, as receivers derive
// it (webhook.SigningKey): the base64 after "whsec_", decoded, in either alphabet, so
// secrets issued before in URL-safe base64 key with the same bytes as new ones.
func StandardKey(secret []byte) []byte {
	return webhook.SigningKey(string(secret))
}

// signDelivery sets both schemes' headers on a delivery of body as event id, signed now
// with each secret.
func signDelivery(h http.Header, id string, body []byte, now time.Time, secrets [][]byte) {
	h.Set(SignatureHeader, Sign(body, now, secrets...))
	h.Set(IDHeader, id)
	h.Set(TimestampHeader, strconv.FormatInt(now.Unix(), 10))
	h.Set(StandardSignatureHeader, SignStandard(id, body, now, secrets...))
}
