package partnercli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// listenOptions are the flags of `doceval listen`.
type listenOptions struct {
	forwardTo   string
	events      []string
	fromStart   bool
	reset       bool
	printSecret bool
	retryDelay  time.Duration

	direct  bool
	addr    string
	secrets []string
}

const (
	// feedWait is how long one feed read waits for an event (the API allows 30 s).
	feedWait = 25
	// feedPage is how many events one read returns at most (the API's maximum).
	feedPage = 100
	// forwardTimeout bounds one POST to --forward-to, as the service bounds a delivery.
	forwardTimeout = 30 * time.Second
	// maxRetryDelay caps the backoff between failed forwards and failed reads.
	maxRetryDelay = 30 * time.Second
)

func (a *app) listenCommand() *cobra.Command {
	o := &listenOptions{}
	cmd := &cobra.Command{
		Use:   "listen",
		Short: "Receive events on your machine and forward them, signed, to a local URL",
		Long: `Follows the event feed of the API (GET /v1/events/feed, long polling): no inbound
connection is needed, so it works against any deployment. Each event is printed and,
with --forward-to, POSTed there with the same envelope body and an X-Service-Signature
header (t=…,v1=…: HMAC-SHA256 of "{t}.{body}", the scheme of the service's webhooks)
made with a local secret of the profile; configure your receiver with the one
'listen --print-secret' shows. A failed forward (no answer, or not 2xx) is retried with
backoff; nothing is skipped.

Where it continues is stored in the profile after each acknowledged event, so a
restart resumes exactly there. The first start begins at the current end of the feed
(--from-start: at the oldest event kept, 30 days); --reset forgets the stored position.
Run one listen per profile.

--direct keeps the older mode for the dev stack: a local receiver the service's
dispatcher delivers to (register its URL with 'webhooks create'), verifying deliveries
with the endpoint's secret (--secret, or $DOCEVAL_WEBHOOK_SECRET) and forwarding them
unchanged.`,
		Example: `  doceval listen --print-secret
  doceval listen --forward-to http://127.0.0.1:3000/webhooks
  doceval listen --forward-to http://127.0.0.1:3000/webhooks --events evaluation.completed,evaluation.failed
  doceval listen --json | jq .type
  doceval listen --direct --addr 127.0.0.1:4000 --secret whsec_… --forward-to http://127.0.0.1:3000/webhooks`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.forwardTo != "" && !strings.HasPrefix(o.forwardTo, "http://") && !strings.HasPrefix(o.forwardTo, "https://") {
				return usagef("listen: --forward-to must be an http(s) URL, not %q", o.forwardTo)
			}
			// --addr and --secret mean the direct mode, as they did before the feed.
			if o.direct || cmd.Flags().Changed("addr") || cmd.Flags().Changed("secret") {
				return a.runDirect(cmd.Context(), o)
			}
			if o.retryDelay <= 0 {
				return usagef("listen: --retry-delay must be positive")
			}
			return a.runFeed(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.forwardTo, "forward-to", "", "POST each event to this URL")
	f.StringSliceVar(&o.events, "events", nil, "only these event types (comma-separated)")
	f.BoolVar(&o.fromStart, "from-start", false, "with no stored position, start at the oldest event kept instead of now")
	f.BoolVar(&o.reset, "reset", false, "forget the stored position first")
	f.BoolVar(&o.printSecret, "print-secret", false, "print the profile's local signing secret (made on first use) and exit")
	f.DurationVar(&o.retryDelay, "retry-delay", time.Second, "first wait after a failed forward or read; doubles up to 30s")
	f.BoolVar(&o.direct, "direct", false, "receive deliveries from the dev stack's dispatcher instead of reading the feed")
	f.StringVar(&o.addr, "addr", "127.0.0.1:0", "--direct: address to listen on")
	f.StringSliceVar(&o.secrets, "secret", nil, "--direct: the endpoint's signing secret (repeatable or comma-separated; default $DOCEVAL_WEBHOOK_SECRET)")
	completeValues(cmd, "events", eventTypes...)
	return cmd
}

// feedListener follows the feed for one profile.
type feedListener struct {
	a         *app
	api       client.ClientInterface
	profile   string
	secret    string
	forwardTo string
	types     *[]client.EventType
	delay     time.Duration
	http      *http.Client
	// after is the stored position ("" the oldest event kept); forwarded the ids after
	// it already acknowledged.
	after     string
	forwarded []string
}

func (a *app) runFeed(ctx context.Context, o *listenOptions) error {
	name := a.profileName()
	var c *sdk.Client
	if !o.printSecret {
		var err error
		if c, err = a.client(); err != nil {
			return err
		}
	}
	state, err := a.listenState(name, o.reset)
	if err != nil {
		return err
	}
	if o.printSecret {
		a.println(state.Secret)
		if standard, ok := standardSecret(state.Secret); ok {
			fmt.Fprintf(a.stderr, "This secret predates the Standard Webhooks headers; their libraries take it in standard base64, the same key: %s\n", standard)
		}
		return nil
	}
	l := &feedListener{
		a: a, api: c.API(), profile: name, secret: state.Secret, forwardTo: o.forwardTo,
		types: feedTypes(o.events), delay: o.retryDelay, http: &http.Client{Timeout: forwardTimeout},
	}
	if state.After == nil {
		if err := l.begin(ctx, o.fromStart); err != nil {
			return err
		}
	} else {
		l.after, l.forwarded = *state.After, state.Forwarded
	}
	where := "where it stopped"
	switch {
	case state.After == nil && !o.fromStart:
		where = "now"
	case l.after == "":
		where = "the oldest event kept"
	}
	fmt.Fprintf(a.stderr, "Reading the event feed of profile %q from %s", name, where)
	if o.forwardTo != "" {
		fmt.Fprintf(a.stderr, ", forwarding to %s (signed with the secret `doceval listen --print-secret` shows)", o.forwardTo)
	}
	fmt.Fprintln(a.stderr, ". Ctrl-C stops.")
	return l.run(ctx)
}

// listenState returns the profile's listen state, making its secret on first use and
// forgetting the position when reset.
func (a *app) listenState(name string, reset bool) (*listenState, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	if p := cfg.Profiles[name]; p != nil && p.Listen != nil && p.Listen.Secret != "" && !reset {
		return p.Listen, nil
	}
	var state *listenState
	err = a.updateConfig(func(cfg *configFile) error {
		p := cfg.profileOf(name)
		if p.Listen == nil {
			p.Listen = &listenState{}
		}
		if p.Listen.Secret == "" {
			p.Listen.Secret = newLocalSecret()
		}
		if reset {
			p.Listen.After, p.Listen.Forwarded = nil, nil
		}
		state = p.Listen
		return nil
	})
	return state, err
}

// newLocalSecret is made like the service's endpoint secrets: 256 random bits in standard
// base64, which the Standard Webhooks libraries take as is.
// standardSecret is a secret made before the Standard Webhooks headers (URL-safe base64
// without padding, which their libraries refuse) in the form they take: the same bytes,
// standard base64 with padding. ok is false for a secret already in that form.
func standardSecret(secret string) (string, bool) {
	encoded, found := strings.CutPrefix(secret, "whsec_")
	if _, err := base64.StdEncoding.DecodeString(encoded); err == nil || !found {
		return "", false
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(webhook.SigningKey(secret)), true
}

func newLocalSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// begin sets the first position: the current end of the feed, or its start.
func (l *feedListener) begin(ctx context.Context, fromStart bool) error {
	if !fromStart {
		page, err := l.read(ctx, nil, 0)
		if err != nil {
			return err
		}
		l.after = page.NextCursor
	}
	return l.save()
}

// run reads and forwards until ctx ends, which is a normal stop.
func (l *feedListener) run(ctx context.Context) error {
	delay := l.delay
	for ctx.Err() == nil {
		page, err := l.read(ctx, &l.after, feedWait)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if !retryableRead(err) {
				return l.explain(err)
			}
			l.a.warnf("reading the feed failed: %v; retrying in %s", err, delay)
			if !sleep(ctx, delay) {
				break
			}
			delay = min(2*delay, maxRetryDelay)
			continue
		}
		delay = l.delay
		if err := l.deliverPage(ctx, page); err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
	}
	return nil
}

// deliverPage forwards the page's events in order, storing each acknowledgement, then
// moves the position past the page.
func (l *feedListener) deliverPage(ctx context.Context, page *rawFeed) error {
	done := make(map[string]bool, len(l.forwarded))
	for _, id := range l.forwarded {
		done[id] = true
	}
	for _, raw := range page.Data {
		var body bytes.Buffer
		if err := json.Compact(&body, raw); err != nil {
			return fmt.Errorf("the feed sent an event that is not JSON: %w", err)
		}
		event, err := webhook.ParseEvent(body.Bytes())
		if err != nil {
			return fmt.Errorf("the feed sent an event that is not an envelope: %w", err)
		}
		if done[event.ID] {
			continue // acknowledged before a restart
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		status, err := l.forward(ctx, event.ID, body.Bytes())
		if err != nil {
			return err
		}
		l.forwarded = append(l.forwarded, event.ID)
		if err := l.save(); err != nil {
			return err
		}
		l.print(event, body.Bytes(), status)
	}
	if page.NextCursor == l.after && len(l.forwarded) == 0 {
		return nil
	}
	l.after, l.forwarded = page.NextCursor, nil
	return l.save()
}

// forward POSTs one event until the receiver acknowledges it (2xx), waiting longer
// after each failure. A POST under way when ctx ends is finished, so an event the
// receiver took is recorded as taken. Without --forward-to printing is all there is.
func (l *feedListener) forward(ctx context.Context, id string, body []byte) (int, error) {
	if l.forwardTo == "" {
		return 0, nil
	}
	delay := l.delay
	for {
		status, err := l.post(context.WithoutCancel(ctx), id, body)
		if err == nil && status >= 200 && status < 300 {
			return status, nil
		}
		why := fmt.Sprintf("answered %d", status)
		if err != nil {
			why = err.Error()
		}
		l.a.warnf("forwarding %s to %s failed (%s); retrying in %s", id, l.forwardTo, why, delay)
		if !sleep(ctx, delay) {
			return 0, ctx.Err()
		}
		delay = min(2*delay, maxRetryDelay)
	}
}

func (l *feedListener) post(ctx context.Context, id string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forwardTo, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", jsonContentType)
	req.Header.Set("User-Agent", userAgent())
	// Signed at each attempt, so the timestamp passes the receiver's tolerance check; both
	// schemes, as the service signs deliveries.
	webhook.SignRequest(req.Header, id, body, time.Now(), l.secret)
	res, err := l.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, nil
}

// rawFeed is a feed page whose events stay as the API sent them.
type rawFeed struct {
	Data       []json.RawMessage `json:"data"`
	NextCursor string            `json:"next_cursor"`
}

// read asks for the events after the position; after nil means the end of the feed,
// "" its start.
func (l *feedListener) read(ctx context.Context, after *string, wait int) (*rawFeed, error) {
	limit := feedPage
	params := &client.ListEventFeedParams{Limit: &limit, Type: l.types}
	switch {
	case after == nil:
	case *after == "":
		fromStart := true
		params.FromStart = &fromStart
	default:
		params.Cursor = after
	}
	if wait > 0 {
		params.Wait = &wait
	}
	page, err := receive[rawFeed](l.api.ListEventFeed(ctx, sdk.FeedParamsForEveryServer(params)))
	if err != nil {
		return nil, err
	}
	if page.NextCursor == "" {
		return nil, errors.New("the feed answered without a next_cursor")
	}
	return page, nil
}

// save stores the position in the profile.
func (l *feedListener) save() error {
	return l.a.updateConfig(func(cfg *configFile) error {
		p := cfg.profileOf(l.profile)
		if p.Listen == nil {
			p.Listen = &listenState{Secret: l.secret}
		}
		after := l.after
		p.Listen.After, p.Listen.Forwarded = &after, append([]string(nil), l.forwarded...)
		return nil
	})
}

// explain adds what to do to an error that stops listen.
func (l *feedListener) explain(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) && (apiErr.Param == "cursor" || apiErr.Param == "after") {
		return fmt.Errorf("%w\nThe stored position is older than the events kept; start again with `doceval listen --reset`", err)
	}
	return err
}

// retryableRead tells a passing failure (network, 429, 5xx) from one that a retry
// cannot fix (a wrong key, a bad filter, an expired position).
func retryableRead(err error) bool {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500
	}
	return true
}

func (l *feedListener) print(event webhook.Event, body []byte, status int) {
	switch {
	case l.a.global.json:
		// One event per line, the body as forwarded: easy to pipe into jq.
		fmt.Fprintf(l.a.stdout, "%s\n", body)
		return
	case l.a.global.quiet:
		fmt.Fprintln(l.a.stdout, event.ID)
		return
	}
	answer := ""
	if status != 0 {
		answer = fmt.Sprintf("-> %d", status)
	}
	fmt.Fprintln(l.a.stdout, eventLine(event, answer))
}

// eventLine is the one line listen prints per event.
func eventLine(event webhook.Event, suffix string) string {
	line := fmt.Sprintf("%s  %-22s %s  %s", time.Now().Format(time.TimeOnly), event.Type, event.ID, summarizeEvent(event))
	if suffix != "" {
		line += "  " + suffix
	}
	return strings.TrimRight(line, " ")
}

func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "warning: "+format+"\n", args...)
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// summarizeEvent is the one-line summary of a verified event.
func summarizeEvent(e webhook.Event) string {
	if ev, err := e.Evaluation(); err == nil {
		sub := "-"
		if ev.ExternalSubmissionId != nil {
			sub = *ev.ExternalSubmissionId
		}
		line := fmt.Sprintf("submission %s evaluation %s %s %d%%", sub, ev.Id, ev.Status, ev.ProgressPercent)
		if ev.Result != nil {
			line += fmt.Sprintf(" outcome %s", ev.Result.Summary.Outcome)
		}
		return line
	}
	if up, err := e.Upload(); err == nil {
		return fmt.Sprintf("upload %s (%s) %s", up.ExternalFileId, up.Filename, up.UploadStatus)
	}
	if d, err := e.DocumentSlotUpdated(); err == nil {
		return fmt.Sprintf("submission %s slot %s %s -> %s", d.ExternalSubmissionId, d.DocumentSlot.Id, d.PreviousStatus, d.DocumentSlot.Status)
	}
	return ""
}
