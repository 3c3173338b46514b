package partnercli

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// signingSecrets are --secret's values, else $DOCEVAL_WEBHOOK_SECRET's (comma-separated).
func (a *app) signingSecrets(command string, flagged []string) ([]string, error) {
	secrets := flagged
	if len(secrets) == 0 {
		secrets = splitList(a.env("DOCEVAL_WEBHOOK_SECRET"))
	}
	if len(secrets) == 0 {
		return nil, usagef("%s: no signing secret: pass --secret or set DOCEVAL_WEBHOOK_SECRET", command)
	}
	return secrets, nil
}

// deliveryBody reads --body: @FILE, - (stdin) or the JSON itself, byte for byte, since
// the signatures cover the raw bytes.
func (a *app) deliveryBody(command, arg string) ([]byte, error) {
	if arg == "" {
		return nil, usagef("%s: --body is required (@FILE, - for stdin, or the JSON itself)", command)
	}
	return a.readData(arg)
}

// webhooksSign signs a body as the service signs a delivery, for testing a receiver
// offline: both schemes' headers, one line each, ready for curl -H.
func (a *app) webhooksSign() *cobra.Command {
	var (
		secrets   []string
		bodyArg   string
		id        string
		timestamp int64
	)
	cmd := &cobra.Command{
		Use:   "sign --secret SECRET --body @FILE",
		Short: "Sign a body as a delivery: print X-Service-Signature and the Standard Webhooks headers",
		Long: `Signs a body as the service signs a webhook delivery, without calling the API, and prints
the headers, one "Name: value" line each: X-Service-Signature and the Standard Webhooks
webhook-id, webhook-timestamp and webhook-signature (one signature per --secret, as during a
rotation). webhook-id is the body's event id unless --id is given; the time is now unless
--timestamp is given. --json prints the headers as a JSON object.`,
		Example: `  doceval webhooks sign --secret whsec_… --body @event.json
  doceval webhooks sign --secret whsec_… --body @event.json > headers.txt
  curl -H @headers.txt -H "Content-Type: application/json" --data-binary @event.json http://127.0.0.1:3000/webhooks
  cat event.json | doceval webhooks sign --secret whsec_new --secret whsec_old --body - --timestamp 1767322800 --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			secrets, err := a.signingSecrets("webhooks sign", secrets)
			if err != nil {
				return err
			}
			body, err := a.deliveryBody("webhooks sign", bodyArg)
			if err != nil {
				return err
			}
			if id == "" {
				event, err := webhook.ParseEvent(body)
				if err != nil || event.ID == "" {
					return usagef("webhooks sign: the body is not an event envelope with an id; give webhook-id with --id")
				}
				id = event.ID
			}
			at := time.Now()
			if cmd.Flags().Changed("timestamp") {
				at = time.Unix(timestamp, 0)
			}
			h := http.Header{}
			webhook.SignRequest(h, id, body, at, secrets...)
			names := []string{webhook.SignatureHeader, webhook.IDHeader, webhook.TimestampHeader, webhook.StandardSignatureHeader}
			if a.global.json {
				out := make(map[string]string, len(names))
				for _, name := range names {
					out[name] = h.Get(name)
				}
				return a.printJSON(out)
			}
			for _, name := range names {
				a.println(name + ": " + h.Get(name))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&secrets, "secret", nil, "signing secret (repeatable or comma-separated; default $DOCEVAL_WEBHOOK_SECRET)")
	f.StringVar(&bodyArg, "body", "", "the delivery body: @FILE, - (stdin) or the JSON itself, signed byte for byte")
	f.StringVar(&id, "id", "", "webhook-id (default: the body's event id)")
	f.Int64Var(&timestamp, "timestamp", 0, "the signing time in unix seconds (default: now)")
	return cmd
}

// verifyResult is `webhooks verify --json`'s answer: whether the delivery verifies and
// each scheme's outcome ("valid", "absent" or why it failed).
type verifyResult struct {
	Verified         bool   `json:"verified"`
	ServiceSignature string `json:"x_service_signature"`
	StandardWebhooks string `json:"standard_webhooks"`
}

// webhooksVerify checks a captured delivery's headers and body as a receiver would: each
// scheme on its own, and the verdict of the SDK's verifier (either scheme).
func (a *app) webhooksVerify() *cobra.Command {
	var (
		secrets    []string
		bodyArg    string
		headerArgs []string
		headersArg string
		tolerance  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "verify --secret SECRET --body @FILE -H 'NAME: VALUE'...",
		Short: "Verify a delivery's signature headers against its body (exit 0 valid, 1 not)",
		Long: `Verifies a delivery as a receiver does, without calling the API: the body byte for byte,
the headers given with -H "Name: value" (repeatable) or --headers @FILE (one "Name: value"
per line, as 'webhooks sign' prints them), and the endpoint's signing secret (several during a
rotation). Prints each scheme's outcome, X-Service-Signature and Standard Webhooks
(webhook-id, webhook-timestamp, webhook-signature), and exits 0 when either verifies, as
the SDK accepts, else 1 with the reason. The timestamp must be within --tolerance of now.`,
		Example: `  doceval webhooks verify --secret whsec_… --body @event.json -H "webhook-id: evt_…" -H "webhook-timestamp: 1767322800" -H "webhook-signature: v1,…"
  doceval webhooks sign --secret whsec_… --body @event.json > headers.txt
  doceval webhooks verify --secret whsec_… --body @event.json --headers @headers.txt`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			secrets, err := a.signingSecrets("webhooks verify", secrets)
			if err != nil {
				return err
			}
			if bodyArg == "-" && headersArg == "-" {
				return usagef("webhooks verify: --body and --headers cannot both be read from stdin")
			}
			body, err := a.deliveryBody("webhooks verify", bodyArg)
			if err != nil {
				return err
			}
			h, err := a.deliveryHeaders(headerArgs, headersArg)
			if err != nil {
				return err
			}
			now := time.Now()
			res := verifyResult{
				ServiceSignature: outcome(h.Get(webhook.SignatureHeader) != "", func() error {
					return webhook.Verify(h.Get(webhook.SignatureHeader), body, secrets, tolerance, now)
				}),
				StandardWebhooks: outcome(h.Get(webhook.StandardSignatureHeader) != "", func() error {
					return webhook.VerifyStandard(h.Get(webhook.IDHeader), h.Get(webhook.TimestampHeader), h.Get(webhook.StandardSignatureHeader), body, secrets, tolerance, now)
				}),
			}
			verdict := webhook.VerifyRequest(h, body, secrets, tolerance, now)
			res.Verified = verdict == nil
			if a.global.json {
				if err := a.printJSON(res); err != nil {
					return err
				}
			} else if err := a.details("X-Service-Signature", res.ServiceSignature, "Standard Webhooks", res.StandardWebhooks); err != nil {
				return err
			}
			if verdict != nil {
				return fmt.Errorf("the delivery does not verify: %w", verdict)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&secrets, "secret", nil, "signing secret (repeatable or comma-separated; default $DOCEVAL_WEBHOOK_SECRET)")
	f.StringVar(&bodyArg, "body", "", "the delivery body as received: @FILE, - (stdin) or the JSON itself")
	f.StringArrayVarP(&headerArgs, "header", "H", nil, `a received header, "Name: value" (repeatable)`)
	f.StringVar(&headersArg, "headers", "", `received headers, one "Name: value" per line: @FILE or - (stdin)`)
	f.DurationVar(&tolerance, "tolerance", webhook.DefaultTolerance, "how far the signing time may be from now")
	return cmd
}

// outcome is one scheme's result for people and --json.
func outcome(present bool, verify func() error) string {
	if !present {
		return "absent"
	}
	if err := verify(); err != nil {
		return strings.TrimPrefix(err.Error(), "webhook: ")
	}
	return "valid"
}

// deliveryHeaders gathers -H values and --headers lines into one header set. A line
// without a colon (an HTTP request line, say) is skipped; an -H value without one is a
// usage error.
func (a *app) deliveryHeaders(flagged []string, file string) (http.Header, error) {
	h := http.Header{}
	if file != "" {
		if !strings.HasPrefix(file, "@") && file != "-" {
			return nil, usagef("--headers takes @FILE or - (stdin); use -H for one header")
		}
		raw, err := a.readData(file)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			if name, value, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(name) != "" && !strings.ContainsAny(name, " \t") {
				h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read --headers: %w", err)
		}
	}
	for _, arg := range flagged {
		name, value, ok := strings.Cut(arg, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usagef(`-H %q: want "Name: value"`, arg)
		}
		h.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if len(h) == 0 {
		return nil, usagef("webhooks verify: no headers: give the received ones with -H or --headers")
	}
	return h, nil
}
