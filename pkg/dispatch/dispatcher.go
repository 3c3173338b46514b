package dispatch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"sync"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/tracing"
)

// Attempt outcomes (DeliveryAttempt.outcome).
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
	claimGap        = 2 * time.Millisecond // between claims started by fan-outs
	maxResponseBody = 64 << 10             // read from a response, then dropped
)

// Dispatcher sends webhook deliveries: it leases due deliveries from PostgreSQL, POSTs
// each event's exact envelope bytes signed with the endpoint's secrets, records every
// attempt, and schedules retries. A disabled API client's deliveries are held: not
// claimed, not tried, no attempt counted, until the client is enabled again.
type Dispatcher struct {
	Store        *store.Store
	Secrets      *secretbox.Box
	Log          *slog.Logger
	Schedule     []time.Duration // delays before the 2nd, 3rd, … attempt
	Timeout      time.Duration   // per attempt
	AllowPrivate bool            // deliver to loopback and private addresses (dev stack)
	Concurrency  int             // sends in flight per process
	// ClientConcurrency bounds the sends of one API client in flight per process (0:
	// half of Concurrency, at least perEndpoint).
	ClientConcurrency int
	Metrics           *Metrics // nil: not measured
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

// perClient is how many sends one API client may have in flight: ClientConcurrency, by
// default half the dispatcher's concurrency, so one client's slow or dead endpoints
// never hold more than that, however many endpoints it has.
func (d *Dispatcher) perClient() int {
	if d.ClientConcurrency > 0 {
		return d.ClientConcurrency
	}
	return max(d.perEndpoint(), d.Concurrency/2)
}

// lease is how long a claimed delivery belongs to this dispatcher: longer than one
// attempt can take (the client's timeout) plus the time to record it. A dispatcher
// killed mid-delivery leaves its deliveries due again when their leases end.
func (d *Dispatcher) lease() time.Duration { return d.Timeout + 5*time.Second }

// errBlocked is a target refused by the egress rules.
var errBlocked = errors.New("blocked: the endpoint resolves to an address webhooks are not delivered to")

// public refuses every address of the IANA special-purpose registries (loopback,
// private use, shared address space, link-local, documentation, benchmarking, 0/8,
// 240/4, multicast; for IPv6 anything outside global unicast — ULA, NAT64, mapped IPv4 —
// and the special-purpose prefixes inside it). code.dny.dev/ssrf keeps those lists
// generated from the registries, so they are not ours to keep up to date. Any port
// may be used.
var public = ssrf.New(ssrf.WithAnyPort())

// privateNets are the targets an operator may allow (DOCEVAL_WEBHOOK_ALLOW_PRIVATE, the
// dev stack): loopback, private use, shared address space, IPv6 unique local.
// Link-local (cloud metadata at 169.254.169.254), multicast and the rest stay refused.
var privateNets = []netip.Prefix{
	netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("fc00::/7"),
}

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
				Proxy:       nil, // deliveries go straight to the endpoint
				DialContext: dialer.DialContext,
				// Every send in flight may go to one host (a partner's endpoints often
				// share it): each keeps its connection for the next send instead of
				// dialing anew.
				MaxIdleConnsPerHost: d.Concurrency,
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
func (d *Dispatcher) guard(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errBlocked
	}
	if d.AllowPrivate {
		ip := ap.Addr().Unmap()
		for _, p := range privateNets {
			if p.Contains(ip) {
				return nil
			}
		}
	}
	if public.Safe(network, address, nil) != nil {
		return errBlocked
	}
	return nil
}

// HandleEvent fans a published event out to its deliveries (the JetStream consumer).
func (d *Dispatcher) HandleEvent(ctx context.Context, msg jetstream.Msg) error {
	d.init()
	var ev jobs.EventPublished
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

// RunOnce sends the deliveries due now and waits for them (tests).
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	d.init()
	claimed, err := d.Store.ClaimDeliveries(ctx, store.ClaimLimits{Max: batchSize, PerEndpoint: d.perEndpoint(), PerClient: d.perClient()}, d.lease())
	if err != nil {
		return 0, err
	}
	d.deliverAll(ctx, claimed)
	return len(claimed), nil
}

// deliverAll sends claimed deliveries at once and settles them together.
func (d *Dispatcher) deliverAll(ctx context.Context, claimed []store.Delivery) {
	ready := d.prepare(ctx, claimed)
	settled := make([]store.Settlement, len(ready))
	var wg sync.WaitGroup
	for i, o := range ready {
		wg.Go(func() { settled[i] = d.send(ctx, o) })
	}
	wg.Wait()
	d.settleAll(ctx, settled)
}

// Run sends due deliveries until ctx ends: at most Concurrency in flight, at most
// perEndpoint per endpoint and perClient per API client, so a slow or dead endpoint, or
// a client's many of them, never holds up the others.
//
// Claims, sends and settles overlap: each send hands its outcome to one settling
// goroutine, which records all the outcomes waiting in one statement, and a send's slot
// is free once its outcome is recorded. A claim runs when a fan-out announces new
// deliveries (at most one per claimGap), when the last claim filled its batch, on a
// tick, and when sends end: once half a client's share of slots is free again (or
// none is in flight), so a dispatcher held at its bounds claims in batches rather than
// one delivery per ended send.
func (d *Dispatcher) Run(ctx context.Context) error {
	d.init()
	sem := make(chan struct{}, d.Concurrency)
	var mu sync.Mutex
	perEndpoint, perClient := map[uuid.UUID]int{}, map[uuid.UUID]int{}
	freedSinceClaim := 0
	refill := max(1, min(batchSize, d.perClient(), d.Concurrency)/2)
	freed := make(chan struct{}, 1)

	sent := make(chan store.Settlement, d.Concurrency)
	settler := make(chan struct{})
	go func() {
		defer close(settler)
		d.settleLoop(context.WithoutCancel(ctx), sent, func(settled []store.Settlement) {
			mu.Lock()
			for _, s := range settled {
				del := s.Delivery
				if perEndpoint[del.EndpointID]--; perEndpoint[del.EndpointID] == 0 {
					delete(perEndpoint, del.EndpointID)
				}
				if perClient[del.APIClientID]--; perClient[del.APIClientID] == 0 {
					delete(perClient, del.APIClientID)
				}
				<-sem
			}
			freedSinceClaim += len(settled)
			mu.Unlock()
			select {
			case freed <- struct{}{}:
			default:
			}
		})
	}()
	var inFlight sync.WaitGroup
	defer func() { inFlight.Wait(); close(sent); <-settler }()

	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var lastClaim time.Time
	// await waits until a claim may find work: false when ctx ends.
	await := func() bool {
		for {
			select {
			case <-ctx.Done():
				return false
			case <-tick.C:
				return true
			case <-d.wake:
				// Fan-outs a moment apart share one claim: at 1,000 events/s a claim
				// each would cost more than the sends.
				if gap := time.Until(lastClaim.Add(claimGap)); gap > 0 {
					select {
					case <-ctx.Done():
						return false
					case <-time.After(gap):
					}
				}
				return true
			case <-freed:
				mu.Lock()
				again := freedSinceClaim >= refill || len(sem) == 0
				mu.Unlock()
				if again {
					return true
				}
			}
		}
	}
	for {
		full := false // the claim filled its batch: more are probably due, claim again at once
		if free := cap(sem) - len(sem); free > 0 {
			want := min(free, batchSize)
			lastClaim = time.Now()
			mu.Lock()
			freedSinceClaim = 0
			limits := store.ClaimLimits{Max: want, PerEndpoint: d.perEndpoint(), PerClient: d.perClient(), InFlight: maps.Clone(perClient)}
			mu.Unlock()
			claimed, err := d.Store.ClaimDeliveries(ctx, limits, d.lease())
			full = len(claimed) == want
			if err != nil && ctx.Err() == nil {
				d.Log.WarnContext(ctx, "claim deliveries", "error", err)
			}
			for _, o := range d.prepare(context.WithoutCancel(ctx), claimed) {
				del := o.del
				mu.Lock()
				busy := perEndpoint[del.EndpointID] >= d.perEndpoint() || perClient[del.APIClientID] >= d.perClient()
				if !busy {
					perEndpoint[del.EndpointID]++
					perClient[del.APIClientID]++
				}
				mu.Unlock()
				// The claim counted slots from the leases in the database, which a settled
				// send clears a moment before its slot is counted free here: give the
				// delivery back due at once, in its place in line, for the next claim
				// (at most a tick away) to take. Pushing it a second later made it wait
				// behind newer deliveries, and forever under a stopped test clock.
				if busy {
					d.release(context.WithoutCancel(ctx), del, 0)
					full = false
					continue
				}
				sem <- struct{}{}
				inFlight.Go(func() { sent <- d.send(context.WithoutCancel(ctx), o) })
			}
		}
		if full && len(sem) < cap(sem) {
			continue
		}
		if !await() {
			return nil
		}
	}
}

// settleLoop records the outcomes sent on sent, all those waiting in one statement,
// and hands each recorded batch to done; it returns when sent is closed.
func (d *Dispatcher) settleLoop(ctx context.Context, sent <-chan store.Settlement, done func([]store.Settlement)) {
	batch := make([]store.Settlement, 0, batchSize)
	for s := range sent {
		batch = append(batch[:0], s)
	drain:
		for len(batch) < cap(batch) {
			select {
			case s, ok := <-sent:
				if !ok {
					break drain
				}
				batch = append(batch, s)
			default:
				break drain
			}
		}
		d.settleAll(ctx, batch)
		done(batch)
	}
}

// outbound is a claimed delivery ready to send, its signing secrets opened.
type outbound struct {
	del     store.Delivery
	secrets [][]byte
}

// prepare sorts claimed deliveries: those of a client disabled since the claim are
// given back untried (held, not counted; claimed again as soon as the client is
// enabled, never while it is disabled), those of a deleted endpoint fail for good, and
// the rest are returned ready to send, each endpoint's secrets opened once.
func (d *Dispatcher) prepare(ctx context.Context, claimed []store.Delivery) []outbound {
	if len(claimed) == 0 {
		return nil
	}
	clients := make([]uuid.UUID, 0, 1)
	for _, del := range claimed {
		if !slices.Contains(clients, del.APIClientID) {
			clients = append(clients, del.APIClientID)
		}
	}
	disabled, err := d.Store.DisabledClients(ctx, clients)
	if err != nil {
		d.Log.WarnContext(ctx, "delivery clients", "error", err)
		for _, del := range claimed {
			d.release(ctx, del, 5*time.Second)
		}
		return nil
	}
	opened := map[string][]byte{}
	ready := make([]outbound, 0, len(claimed))
next:
	for _, del := range claimed {
		switch {
		case disabled[del.APIClientID]:
			d.release(ctx, del, 0)
			continue
		case del.Target.EndpointDeleted:
			del.Status, del.NextRetryAt = store.DeliveryFailedPermanent, nil
			if err := d.Store.Settle(ctx, del, nil); err != nil {
				d.Log.WarnContext(ctx, "settle delivery", "delivery_id", del.ID, "error", err)
				continue
			}
			d.Metrics.settled(del.Status)
			continue
		}
		secrets := make([][]byte, 0, len(del.Target.SealedSecrets))
		for _, sealed := range del.Target.SealedSecrets {
			key := string(del.EndpointID[:]) + string(sealed)
			secret, ok := opened[key]
			if !ok {
				if secret, err = d.Secrets.Open(sealed, del.EndpointID[:]); err != nil {
					// A configuration problem, not the endpoint's: try again later, record nothing.
					d.Log.ErrorContext(ctx, "open signing secret (wrong DOCEVAL_SECRET_KEY?)", "endpoint_id", del.EndpointID)
					d.release(ctx, del, 5*time.Minute)
					continue next
				}
				opened[key] = secret
			}
			secrets = append(secrets, secret)
		}
		ready = append(ready, outbound{del: del, secrets: secrets})
	}
	return ready
}

// send makes one attempt and returns the delivery's new state with it.
func (d *Dispatcher) send(ctx context.Context, o outbound) store.Settlement {
	del := o.del
	now := d.Store.Now()
	attempt := d.attempt(ctx, del, del.Target, o.secrets)
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
	return store.Settlement{Delivery: del, Attempt: attempt}
}

// settleAll records attempts and their deliveries' new states in one statement; when
// PostgreSQL refuses it, one by one, so one bad record does not lose the others (a
// database out of reach is not asked again per record: the leases end and the
// deliveries are sent again).
func (d *Dispatcher) settleAll(ctx context.Context, settled []store.Settlement) {
	if len(settled) == 0 {
		return
	}
	err := d.Store.SettleAttempts(ctx, settled)
	if err != nil && len(settled) > 1 && store.Refused(err) {
		for _, s := range settled {
			if err := d.Store.SettleAttempts(ctx, []store.Settlement{s}); err != nil {
				d.Log.WarnContext(ctx, "settle delivery", "delivery_id", s.Delivery.ID, "error", err)
				continue
			}
			d.Metrics.settled(s.Delivery.Status)
		}
		return
	}
	if err != nil {
		d.Log.WarnContext(ctx, "settle deliveries", "deliveries", len(settled), "error", err)
		return
	}
	for _, s := range settled {
		d.Metrics.settled(s.Delivery.Status)
	}
}

// attempt sends the delivery once, in a client span that continues the trace of the
// event's fan-out. The trace context stays inside doceval: no traceparent goes to the
// partner's endpoint, which would learn internal trace ids from it.
func (d *Dispatcher) attempt(ctx context.Context, del store.Delivery, target store.DeliveryTarget, secrets [][]byte) store.Attempt {
	ctx, span := d.tracer.Start(tracing.FromFields(ctx, del.TraceContext), http.MethodPost, trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	// The attributes are built only for a span that is recorded (without tracing they
	// were a good part of an attempt's own CPU).
	recording := span.IsRecording()
	if recording {
		span.SetAttributes(
			semconv.HTTPRequestMethodKey.String(http.MethodPost),
			semconv.HTTPRequestResendCount(del.AttemptCount),
			attribute.String("doceval.delivery_id", del.ID.String()),
			attribute.String("doceval.endpoint_id", del.EndpointID.String()),
			attribute.String("doceval.event_id", del.EventID.String()),
		)
		if u, err := url.Parse(target.URL); err == nil {
			span.SetAttributes(semconv.ServerAddress(u.Hostname()))
		}
	}
	start := time.Now()
	a := d.post(ctx, events.FormatID(del.EventID), target, secrets)
	d.Metrics.attempted(a.Outcome, time.Since(start))
	if recording && a.ResponseStatus != nil {
		span.SetAttributes(semconv.HTTPResponseStatusCode(*a.ResponseStatus))
	}
	if recording && a.Outcome != OutcomeSucceeded {
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

// post sends the envelope of event id and classifies the result. Each attempt is signed
// anew, so its timestamp passes the receiver's tolerance; webhook-id stays the event id.
func (d *Dispatcher) post(ctx context.Context, id string, target store.DeliveryTarget, secrets [][]byte) store.Attempt {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.URL, bytes.NewReader(target.Envelope))
	if err != nil {
		msg := "invalid endpoint URL"
		return store.Attempt{Outcome: OutcomeNetworkError, TransportError: &msg}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "doceval-webhooks/1")
	signDelivery(req.Header, id, target.Envelope, time.Now(), secrets)
	res, err := d.client.Do(req)
	elapsed := int(time.Since(start).Milliseconds())
	if err != nil {
		outcome, category := transportFailure(err)
		return store.Attempt{Outcome: outcome, TransportError: &category, ResponseTimeMs: elapsed}
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

// transportFailure sorts an attempt without an HTTP answer into its outcome and a
// category partners may read. The error text itself is never shown: it names the
// addresses dialed and the resolver asked, which are the deployment's, not the
// partner's.
func transportFailure(err error) (outcome, category string) {
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.Is(err, errBlocked):
		return OutcomeBlocked, "blocked: the endpoint resolves to an address webhooks are not delivered to"
	case errors.As(err, &dnsErr):
		if dnsErr.IsTimeout {
			return OutcomeTimeout, "dns failure"
		}
		return OutcomeNetworkError, "dns failure"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return OutcomeTimeout, "timeout"
	case errors.As(err, &certErr), errors.As(err, &recordErr), errors.As(err, &alert),
		errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid):
		return OutcomeNetworkError, "tls error"
	case errors.Is(err, syscall.ECONNREFUSED):
		return OutcomeNetworkError, "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return OutcomeNetworkError, "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return OutcomeNetworkError, "host unreachable"
	}
	return OutcomeNetworkError, "network error"
}
