package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/tracing"
)

// Attempt outcomes (DECISIONS.md).
const (
	OutcomeSucceeded    = "succeeded"
	OutcomeHTTPError    = "http_error"
	OutcomeTimeout      = "timeout"
	OutcomeNetworkError = "network_error"
	OutcomeBlocked      = "blocked"
)

// Limits of one dispatcher process.
const (
	batchSize       = 64
	maxResponseBody = 64 << 10 // read from a response, then dropped
)

// Dispatcher sends webhook deliveries: it leases due deliveries from PostgreSQL, POSTs
// each event's exact envelope bytes signed with the endpoint's secrets, records every
// attempt, and schedules retries.
type Dispatcher struct {
	Store        *store.Store
	Secrets      *secretbox.Box
	Log          *slog.Logger
	Schedule     []time.Duration // delays before the 2nd, 3rd, … attempt
	Timeout      time.Duration   // per attempt
	AllowPrivate bool            // deliver to private addresses (loopback is always allowed)
	Concurrency  int             // sends in flight per process
	Metrics      *Metrics        // nil: not measured
	// Tracer starts a client span per attempt, a child of the event's fan-out (nil: no
	// spans).
	Tracer trace.TracerProvider

	once   sync.Once
	client *http.Client
	tracer trace.Tracer
	wake   chan struct{}
}

// perEndpoint is how many sends one endpoint may have in flight: a quarter of the
// dispatcher's concurrency, so a slow or dead endpoint never takes more than that.
func (d *Dispatcher) perEndpoint() int { return max(2, d.Concurrency/4) }

// lease is how long a claimed delivery belongs to this dispatcher: longer than one
// attempt can take (the client's timeout) plus the time to record it. A dispatcher
// killed mid-delivery leaves its deliveries due again when their leases end.
func (d *Dispatcher) lease() time.Duration { return d.Timeout + 5*time.Second }

// errBlocked is a target refused by the SSRF rules.
var errBlocked = errors.New("target address refused: private, link-local or metadata addresses are not delivered to")

func (d *Dispatcher) init() {
	d.once.Do(func() {
		if d.Timeout <= 0 {
			d.Timeout = 30 * time.Second
		}
		if d.Concurrency <= 0 {
			d.Concurrency = 32
		}
		dialer := &net.Dialer{Timeout: 10 * time.Second, Control: d.guard}
		d.client = &http.Client{
			Timeout: d.Timeout,
			Transport: &http.Transport{
				Proxy:               nil, // deliveries go straight to the endpoint
				DialContext:         dialer.DialContext,
				MaxIdleConnsPerHost: d.perEndpoint(),
				IdleConnTimeout:     90 * time.Second,
				TLSHandshakeTimeout: 10 * time.Second,
			},
			// Redirects are not followed: the endpoint answers for itself.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		tp := d.Tracer
		if tp == nil {
			tp = noop.NewTracerProvider()
		}
		d.tracer = tp.Tracer("github.com/doceval/doceval/pkg/dispatch")
		d.wake = make(chan struct{}, 1)
	})
}

// guard runs after DNS resolution, on the very address dialed: a name cannot resolve to
// a refused address between a check and the connection.
func (d *Dispatcher) guard(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errBlocked
	}
	ip := ap.Addr().Unmap()
	switch {
	case ip.IsLoopback():
		return nil
	case ip.IsUnspecified() || ip.IsMulticast() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return errBlocked // 169.254.169.254 and friends: never
	case !d.AllowPrivate && (ip.IsPrivate() || sharedAddressSpace.Contains(ip)):
		return errBlocked
	}
	return nil
}

var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// HandleEvent fans a published event out to its deliveries (the JetStream consumer).
func (d *Dispatcher) HandleEvent(ctx context.Context, msg jetstream.Msg) error {
	d.init()
	var ev messaging.EventPublished
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		return fmt.Errorf("event message: %v: %w", err, messaging.ErrPermanent)
	}
	n, err := d.Store.FanOut(ctx, ev.EventID)
	if err != nil {
		return err
	}
	if n > 0 {
		d.poke()
	}
	return nil
}

// poke wakes Run without blocking.
func (d *Dispatcher) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// RunOnce sends the deliveries due now and waits for them (tests, and Run's inner step).
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	d.init()
	claimed, err := d.Store.ClaimDeliveries(ctx, batchSize, d.perEndpoint(), d.lease())
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	for _, del := range claimed {
		wg.Go(func() { d.deliver(ctx, del) })
	}
	wg.Wait()
	return len(claimed), nil
}

// Run sends due deliveries until ctx ends: at most Concurrency in flight, at most
// perEndpoint per endpoint, so a slow or dead endpoint never holds up the others.
func (d *Dispatcher) Run(ctx context.Context) error {
	d.init()
	sem := make(chan struct{}, d.Concurrency)
	var mu sync.Mutex
	perEndpoint := map[uuid.UUID]int{}
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		full := false // the claim filled its batch: more are probably due, claim again at once
		if free := cap(sem) - len(sem); free > 0 {
			want := min(free, batchSize)
			claimed, err := d.Store.ClaimDeliveries(ctx, want, d.perEndpoint(), d.lease())
			full = len(claimed) == want
			if err != nil && ctx.Err() == nil {
				d.Log.WarnContext(ctx, "claim deliveries", "error", err)
			}
			for _, del := range claimed {
				mu.Lock()
				busy := perEndpoint[del.EndpointID] >= d.perEndpoint()
				if !busy {
					perEndpoint[del.EndpointID]++
				}
				mu.Unlock()
				if busy { // give it back for a moment (the claim's own limit makes this rare)
					if err := d.Store.Release(context.WithoutCancel(ctx), del, d.Store.Now().Add(time.Second)); err != nil {
						d.Log.WarnContext(ctx, "release delivery", "error", err)
					}
					full = false
					continue
				}
				sem <- struct{}{}
				inFlight.Go(func() {
					defer func() {
						mu.Lock()
						perEndpoint[del.EndpointID]--
						mu.Unlock()
						<-sem
						d.poke() // a slot is free: look for more work now
					}()
					d.deliver(context.WithoutCancel(ctx), del)
				})
			}
		}
		if full && len(sem) < cap(sem) {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-d.wake:
		}
	}
}

// deliver makes one attempt and settles the delivery.
func (d *Dispatcher) deliver(ctx context.Context, del store.Delivery) {
	target, err := d.Store.Target(ctx, del.ID)
	if err != nil {
		d.Log.WarnContext(ctx, "delivery target", "delivery_id", del.ID, "error", err)
		d.release(ctx, del, 5*time.Second)
		return
	}
	if target.EndpointDeleted {
		del.Status, del.NextRetryAt = store.DeliveryFailedPermanent, nil
		d.settle(ctx, del, nil)
		return
	}
	var secrets [][]byte
	for _, sealed := range target.SealedSecrets {
		secret, err := d.Secrets.Open(sealed, del.EndpointID[:])
		if err != nil {
			// A configuration problem, not the endpoint's: try again later, record nothing.
			d.Log.ErrorContext(ctx, "open signing secret (wrong DOCEVAL_SECRET_KEY?)", "endpoint_id", del.EndpointID)
			d.release(ctx, del, 5*time.Minute)
			return
		}
		secrets = append(secrets, secret)
	}
	now := d.Store.Now()
	attempt := d.attempt(ctx, del, target, secrets)
	attempt.Number, attempt.AttemptedAt = del.AttemptCount+1, now
	del.AttemptCount, del.LastAttemptedAt = attempt.Number, &now
	switch {
	case attempt.Outcome == OutcomeSucceeded:
		del.Status, del.NextRetryAt = store.DeliverySucceeded, nil
	case attempt.Number <= len(d.Schedule):
		next := now.Add(d.Schedule[attempt.Number-1])
		del.Status, del.NextRetryAt = store.DeliveryFailedRetryable, &next
	default:
		del.Status, del.NextRetryAt = store.DeliveryAbandoned, nil
	}
	d.settle(ctx, del, &attempt)
}

// settle records the delivery's new state (and the attempt, when one was made).
func (d *Dispatcher) settle(ctx context.Context, del store.Delivery, attempt *store.Attempt) {
	if err := d.Store.Settle(ctx, del, attempt); err != nil {
		d.Log.WarnContext(ctx, "settle delivery", "delivery_id", del.ID, "error", err)
		return
	}
	d.Metrics.settled(del.Status)
}

// attempt sends the delivery once, in a client span that continues the trace of the
// event's fan-out. The trace context stays inside doceval: no traceparent goes to the
// partner's endpoint, which would learn internal trace ids from it.
func (d *Dispatcher) attempt(ctx context.Context, del store.Delivery, target store.DeliveryTarget, secrets [][]byte) store.Attempt {
	ctx, span := d.tracer.Start(tracing.FromFields(ctx, del.TraceContext), http.MethodPost,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			semconv.HTTPRequestMethodKey.String(http.MethodPost),
			semconv.HTTPRequestResendCount(del.AttemptCount),
			attribute.String("doceval.delivery_id", del.ID.String()),
			attribute.String("doceval.endpoint_id", del.EndpointID.String()),
			attribute.String("doceval.event_id", del.EventID.String()),
		))
	defer span.End()
	if u, err := url.Parse(target.URL); err == nil {
		span.SetAttributes(semconv.ServerAddress(u.Hostname()))
	}
	start := time.Now()
	a := d.post(ctx, target, secrets)
	d.Metrics.attempted(a.Outcome, time.Since(start))
	if a.ResponseStatus != nil {
		span.SetAttributes(semconv.HTTPResponseStatusCode(*a.ResponseStatus))
	}
	if a.Outcome != OutcomeSucceeded {
		span.SetAttributes(semconv.ErrorTypeKey.String(a.Outcome))
		span.SetStatus(codes.Error, a.Outcome)
	}
	return a
}

func (d *Dispatcher) release(ctx context.Context, del store.Delivery, after time.Duration) {
	if err := d.Store.Release(ctx, del, d.Store.Now().Add(after)); err != nil {
		d.Log.WarnContext(ctx, "release delivery", "delivery_id", del.ID, "error", err)
	}
}

// post sends the envelope and classifies the result.
func (d *Dispatcher) post(ctx context.Context, target store.DeliveryTarget, secrets [][]byte) store.Attempt {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.URL, bytes.NewReader(target.Envelope))
	if err != nil {
		msg := "invalid endpoint URL"
		return store.Attempt{Outcome: OutcomeNetworkError, TransportError: &msg}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "doceval-webhooks/1")
	req.Header.Set(SignatureHeader, Sign(target.Envelope, time.Now(), secrets...))
	res, err := d.client.Do(req)
	elapsed := int(time.Since(start).Milliseconds())
	if err != nil {
		msg := err.Error()
		a := store.Attempt{Outcome: OutcomeNetworkError, TransportError: &msg, ResponseTimeMs: elapsed}
		var netErr net.Error
		switch {
		case errors.Is(err, errBlocked):
			a.Outcome = OutcomeBlocked
		case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
			a.Outcome = OutcomeTimeout
		}
		return a
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxResponseBody))
	res.Body.Close()
	status := res.StatusCode
	a := store.Attempt{Outcome: OutcomeHTTPError, ResponseStatus: &status, ResponseTimeMs: elapsed}
	if status >= 200 && status < 300 {
		a.Outcome = OutcomeSucceeded
	}
	return a
}
