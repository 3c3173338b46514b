package dispatch_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/dispatch"
	domainwebhook "github.com/doceval/doceval/pkg/domain/webhook"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

// Secrets as createWebhookEndpoint issues them now (standard base64, padded) and did before
// (URL-safe base64 without padding), and the latter converted as the spec tells partners
// to for the Standard Webhooks libraries. Their bytes give both alphabets' extra letters.
var (
	issuedSecret          = "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff, 0xbf}, 11)[:32])
	legacySecret          = "whsec_" + base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xff, 0xbe}, 11)[:32])
	legacySecretConverted = "whsec_" + strings.NewReplacer("-", "+", "_", "/").Replace(strings.TrimPrefix(legacySecret, "whsec_")) + "="
	otherSecret           = "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
)

// verifyStandard checks a delivery's Standard Webhooks headers with the scheme's reference
// Go library, given the secret as a partner holds it.
func verifyStandard(got delivery, secret string) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	return wh.Verify(got.body, got.header)
}

// receiver records deliveries and answers with status.
type receiver struct {
	mu     sync.Mutex
	status int
	got    []delivery
}

type delivery struct {
	body      []byte
	signature string
	ctype     string
	header    http.Header
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, delivery{body: b, signature: req.Header.Get(dispatch.SignatureHeader), ctype: req.Header.Get("Content-Type"), header: req.Header.Clone()})
	status := r.status
	r.mu.Unlock()
	w.WriteHeader(status)
}

type fixture struct {
	t      *testing.T
	ctx    context.Context
	clock  *clock.Fake
	st     *store.Store
	box    *secretbox.Box
	tenant store.Tenant
	client uuid.UUID
	d      *dispatch.Dispatcher
}

func newFixture(t *testing.T, schedule ...time.Duration) *fixture {
	ctx := context.Background()
	fake := clock.NewFake(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	pool, url := dbtest.NewWithURL(t)
	st := store.New(pool, store.WithClock(fake))
	// The dispatcher connects as its database role (migration 00018): a query it is not
	// granted fails the test. The test's own fixtures use the owner (st).
	dispatcherStore := store.New(dbtest.RolePool(t, url, "dispatcher"), store.WithClock(fake))
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, _ := secretbox.New(key)
	c, _, _, err := st.CreateClient(ctx, "hooks", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, ctx: ctx, clock: fake, st: st, box: box, tenant: st.Tenant(c.ID), client: c.ID,
		// The receivers are httptest servers on loopback: allowed as in the dev stack.
		d: &dispatch.Dispatcher{Store: dispatcherStore, Secrets: box, Log: slog.New(slog.DiscardHandler), Schedule: schedule, Timeout: 5 * time.Second, AllowPrivate: true}}
}

func (f *fixture) endpoint(url, secret string, events []string) uuid.UUID {
	f.t.Helper()
	w, err := f.tenant.CreateWebhookEndpoint(f.ctx, url, "", events, func(id uuid.UUID) []byte { return f.box.Seal([]byte(secret), id[:]) })
	if err != nil {
		f.t.Fatal(err)
	}
	return w.ID
}

// emit writes an event and fans it out, as the consumer of the events stream does.
func (f *fixture) emit(typ events.Type) uuid.UUID {
	f.t.Helper()
	var id uuid.UUID
	err := f.st.InTx(f.ctx, func(tx *store.Tx) error {
		env, err := tx.Emit(f.ctx, events.Draft{APIClientID: f.client, Type: typ, Data: map[string]string{"k": "v"}})
		if err == nil {
			id, err = events.ParseID(env.ID)
		}
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.d.Store.FanOut(f.ctx, id); err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *fixture) run() int {
	f.t.Helper()
	n, err := f.d.RunOnce(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

func (f *fixture) deliveries(event uuid.UUID) []store.Delivery {
	f.t.Helper()
	ds, err := f.st.EventDeliveries(f.ctx, event)
	if err != nil {
		f.t.Fatal(err)
	}
	return ds
}

// A delivery is the exact envelope, signed so that an independent verifier accepts it.
func TestDeliverySigned(t *testing.T) {
	f := newFixture(t, time.Minute)
	rec := &receiver{status: 200}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	f.endpoint(srv.URL+"/hook", issuedSecret, nil)
	f.endpoint(srv.URL+"/only-evaluations", "whsec_two", []string{"evaluation.completed"})
	ev := f.emit(events.FileReady)
	if n := f.run(); n != 1 {
		t.Fatalf("%d deliveries sent, want 1 (the second endpoint does not subscribe)", n)
	}
	stored, err := f.tenant.Event(f.ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	got := rec.got[0]
	if string(got.body) != string(stored.Envelope) || got.ctype != "application/json" {
		t.Errorf("delivered %s (%s), stored %s", got.body, got.ctype, stored.Envelope)
	}
	if err := webhook.ValidatePayload(got.body, got.signature, issuedSecret); err != nil {
		t.Errorf("signature: %v", err)
	}
	if id := got.header.Get(dispatch.IDHeader); id != events.FormatID(ev) {
		t.Errorf("webhook-id %q, want the event id %s", id, events.FormatID(ev))
	}
	if err := verifyStandard(got, issuedSecret); err != nil {
		t.Errorf("Standard Webhooks signature: %v", err)
	}
	ds := f.deliveries(ev)
	if len(ds) != 1 || ds[0].Status != "succeeded" || ds[0].AttemptCount != 1 || len(ds[0].Attempts) != 1 ||
		ds[0].Attempts[0].Outcome != "succeeded" || *ds[0].Attempts[0].ResponseStatus != 200 || ds[0].NextRetryAt != nil {
		t.Errorf("delivery: %+v", ds)
	}
	if n := f.run(); n != 0 {
		t.Errorf("a succeeded delivery was sent again")
	}
}

// A failing endpoint is retried on the schedule, every attempt recorded, then abandoned.
func TestRetryScheduleToAbandoned(t *testing.T) {
	f := newFixture(t, time.Minute, 5*time.Minute)
	rec := &receiver{status: 503}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	f.endpoint(srv.URL, "whsec_x", nil)
	ev := f.emit(events.FileReady)

	f.run()
	d := f.deliveries(ev)[0]
	if d.Status != "failed_retryable" || d.NextRetryAt == nil || !d.NextRetryAt.Equal(f.clock.Now().Add(time.Minute)) {
		t.Fatalf("after attempt 1: %+v", d)
	}
	f.clock.Advance(59 * time.Second)
	if n := f.run(); n != 0 {
		t.Fatal("retried before its time")
	}
	f.clock.Advance(time.Second)
	f.run()
	d = f.deliveries(ev)[0]
	if d.Status != "failed_retryable" || d.AttemptCount != 2 || !d.NextRetryAt.Equal(f.clock.Now().Add(5*time.Minute)) {
		t.Fatalf("after attempt 2: %+v", d)
	}
	f.clock.Advance(5 * time.Minute)
	f.run()
	d = f.deliveries(ev)[0]
	if d.Status != "abandoned" || d.AttemptCount != 3 || d.NextRetryAt != nil || len(d.Attempts) != 3 {
		t.Fatalf("after the last attempt: %+v", d)
	}
	for i, a := range d.Attempts {
		if a.Number != i+1 || a.Outcome != "http_error" || a.ResponseStatus == nil || *a.ResponseStatus != 503 {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	f.clock.Advance(48 * time.Hour)
	if n := f.run(); n != 0 || len(rec.got) != 3 {
		t.Errorf("an abandoned delivery was sent again (%d requests)", len(rec.got))
	}
}

// Disabled endpoints pause their deliveries and get no events emitted meanwhile;
// deleted endpoints' deliveries fail permanently.
func TestDisabledAndDeletedEndpoints(t *testing.T) {
	f := newFixture(t, time.Minute)
	rec := &receiver{status: 200}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	ep := f.endpoint(srv.URL, "whsec_x", nil)
	pending := f.emit(events.FileReady) // fanned out while active
	disabled := "disabled"
	if _, err := f.tenant.UpdateWebhookEndpoint(f.ctx, ep, domainwebhook.Change{Status: &disabled}); err != nil {
		t.Fatal(err)
	}
	meanwhile := f.emit(events.FileFailed)
	if n := f.run(); n != 0 {
		t.Fatal("delivered to a disabled endpoint")
	}
	if ds := f.deliveries(meanwhile); len(ds) != 0 {
		t.Fatalf("an event emitted while disabled got a delivery: %+v", ds)
	}
	active := "active"
	if _, err := f.tenant.UpdateWebhookEndpoint(f.ctx, ep, domainwebhook.Change{Status: &active}); err != nil {
		t.Fatal(err)
	}
	if n := f.run(); n != 1 || f.deliveries(pending)[0].Status != "succeeded" {
		t.Fatalf("the paused delivery did not resume")
	}

	rec.status = 500
	failing := f.emit(events.FileReady)
	f.run()
	if err := f.tenant.DeleteWebhookEndpoint(f.ctx, ep); err != nil {
		t.Fatal(err)
	}
	if d := f.deliveries(failing)[0]; d.Status != "failed_permanent" || d.AttemptCount != 1 || d.NextRetryAt != nil {
		t.Errorf("after deletion: %+v", d)
	}
	f.clock.Advance(time.Minute)
	if n := f.run(); n != 0 {
		t.Error("a deleted endpoint's delivery was tried")
	}
}

// In production (no AllowPrivate) every special-purpose address is refused at connect
// time, loopback included: the attempt ends blocked and nothing reaches the target.
// With AllowPrivate (the dev stack) loopback and private targets are delivered to, but
// link-local (cloud metadata) never.
func TestEgressRefusals(t *testing.T) {
	f := newFixture(t)
	f.d.AllowPrivate = false
	rec := &receiver{status: 200}
	local := httptest.NewServer(rec)
	defer local.Close()
	refused := []string{
		local.URL, // http on loopback: registrable, never delivered in production
		"https://10.1.2.3:9/x", "https://169.254.169.254/latest/meta-data", "https://192.168.0.10/x",
		"https://100.64.0.1/x", "https://198.18.0.1/x", "https://192.0.0.8/x", "https://240.0.0.1/x",
		"https://0.1.2.3/x", "https://[fd00::1]/x", "https://[64:ff9b::7f00:1]/x", "https://[::ffff:127.0.0.1]/x",
		"https://[fe80::1]/x", "https://[2001:db8::1]/x",
	}
	for _, url := range refused {
		f.endpoint(url, "whsec_x", nil)
	}
	ev := f.emit(events.FileReady)
	f.run()
	ds := f.deliveries(ev)
	if len(ds) != len(refused) {
		t.Fatalf("%d deliveries for %d endpoints", len(ds), len(refused))
	}
	for _, d := range ds {
		if len(d.Attempts) != 1 || d.Attempts[0].Outcome != "blocked" || d.Status != "abandoned" {
			t.Errorf("%s: %+v", d.EndpointURL, d)
		}
	}
	if len(rec.got) != 0 {
		t.Errorf("the loopback receiver got %d deliveries in production mode", len(rec.got))
	}

	f.d = &dispatch.Dispatcher{Store: f.st, Secrets: f.box, Log: slog.New(slog.DiscardHandler), AllowPrivate: true, Timeout: time.Second}
	meta := f.endpoint("https://169.254.169.254/latest", "whsec_y", nil)
	ev2 := f.emit(events.FileReady)
	f.run()
	for _, d := range f.deliveries(ev2) {
		switch {
		case d.EndpointID == meta && d.Attempts[0].Outcome != "blocked":
			t.Errorf("metadata address with AllowPrivate: %+v", d.Attempts[0])
		case d.EndpointURL == local.URL && d.Attempts[0].Outcome != "succeeded":
			t.Errorf("loopback with AllowPrivate: %+v", d.Attempts[0])
		}
	}
}

// A failed connection is reported to partners as a category, never with the addresses
// dialed or the resolver asked.
func TestTransportErrorsAreCategories(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/hook"
	ln.Close() // nothing listens there: connection refused
	f.endpoint(closed, "whsec_x", nil)
	f.endpoint("https://no-such-host.invalid/hook", "whsec_x", nil)
	ev := f.emit(events.FileReady)
	f.run()
	want := map[string]string{closed: "connection refused", "https://no-such-host.invalid/hook": "dns failure"}
	for _, d := range f.deliveries(ev) {
		if len(d.Attempts) != 1 || d.Attempts[0].TransportError == nil {
			t.Fatalf("%s: %+v", d.EndpointURL, d)
		}
		got := *d.Attempts[0].TransportError
		if got != want[d.EndpointURL] {
			t.Errorf("%s: transport error %q, want %q", d.EndpointURL, got, want[d.EndpointURL])
		}
		if strings.Contains(got, "127.0.0.1") || strings.ContainsAny(got, ":[]") {
			t.Errorf("%s: transport error %q shows an address", d.EndpointURL, got)
		}
	}
}

// During a rotation every delivery carries both signatures.
func TestRotationSignsWithBothSecrets(t *testing.T) {
	f := newFixture(t)
	rec := &receiver{status: 200}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	// The old secret in the form issued before (URL-safe base64): Standard Webhooks
	// libraries take it converted to standard base64 (legacySecretConverted).
	ep := f.endpoint(srv.URL, legacySecret, nil)
	if _, err := f.tenant.RotateWebhookSecret(f.ctx, ep, 24*time.Hour, func(id uuid.UUID) []byte { return f.box.Seal([]byte(issuedSecret), id[:]) }); err != nil {
		t.Fatal(err)
	}
	f.emit(events.FileReady)
	f.run()
	got := rec.got[0]
	for _, secret := range []string{issuedSecret, legacySecret} {
		if err := webhook.ValidatePayload(got.body, got.signature, secret); err != nil {
			t.Errorf("%s: %v", secret, err)
		}
	}
	if n := len(strings.Fields(got.header.Get(dispatch.StandardSignatureHeader))); n != 2 {
		t.Errorf("webhook-signature has %d values, want one per secret", n)
	}
	for _, secret := range []string{issuedSecret, legacySecretConverted} {
		if err := verifyStandard(got, secret); err != nil {
			t.Errorf("Standard Webhooks signature with %s: %v", secret, err)
		}
	}
	// After the grace period only the new secret signs.
	f.clock.Advance(25 * time.Hour)
	f.emit(events.FileReady)
	f.run()
	late := rec.got[1]
	if webhook.ValidatePayload(late.body, late.signature, legacySecret) == nil || verifyStandard(late, legacySecretConverted) == nil {
		t.Error("the expired secret still signs")
	}
	if err := verifyStandard(late, issuedSecret); err != nil {
		t.Errorf("Standard Webhooks signature after the grace period: %v", err)
	}
}

// A dispatcher killed during a burst (deliveries leased, some sent, none settled) loses
// nothing: when its leases end, another dispatcher delivers every event at least once.
func TestDispatcherKilledDuringBurst(t *testing.T) {
	f := newFixture(t, time.Minute)
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id, _, _ := strings.Cut(strings.TrimPrefix(string(b), `{"id":"`), `"`)
		mu.Lock()
		seen[id]++
		mu.Unlock()
	}))
	defer srv.Close()
	f.endpoint(srv.URL, "whsec_x", nil)
	var ids []string
	for range 60 {
		ids = append(ids, events.FormatID(f.emit(events.FileReady)))
	}

	// The dying dispatcher leases 20, sends 8 of them, and is killed before settling any.
	dying, err := f.st.ClaimDeliveries(f.ctx, store.ClaimLimits{Max: 20, PerEndpoint: 20, PerClient: 20}, 35*time.Second)
	if err != nil || len(dying) != 20 {
		t.Fatalf("claimed %d: %v", len(dying), err)
	}
	for _, d := range dying[:8] {
		target, err := f.st.Target(f.ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		http.Post(srv.URL, "application/json", bytes.NewReader(target.Envelope))
	}
	// The surviving dispatcher delivers the rest now, and the dead one's after its leases.
	for f.run() > 0 {
	}
	f.clock.Advance(36 * time.Second)
	for f.run() > 0 {
	}
	for _, id := range ids {
		if seen[id] == 0 {
			t.Errorf("event %s never reached the receiver", id)
		}
	}
	dups := 0
	for _, n := range seen {
		dups += n - 1
	}
	if dups != 8 {
		t.Logf("%d duplicate deliveries (the 8 sent before the kill are expected)", dups)
	}
}

// The real process, killed with SIGKILL in the middle of a burst and started again:
// every event reaches the receiver at least once.
func TestDispatcherProcessKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dispatcher processes")
	}
	ctx := context.Background()
	pool, dbURL := dbtest.NewWithURL(t)
	st := store.New(pool)
	key := secretbox.NewKey()
	k, _ := secretbox.ParseKey(key)
	box, _ := secretbox.New(k)
	c, _, _, err := st.CreateClient(ctx, "kill", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	total := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		time.Sleep(20 * time.Millisecond) // a receiver that takes a moment: the burst lasts
		id, _, _ := strings.Cut(strings.TrimPrefix(string(b), `{"id":"`), `"`)
		mu.Lock()
		seen[id]++
		total++
		mu.Unlock()
	}))
	defer srv.Close()
	if _, err := st.Tenant(c.ID).CreateWebhookEndpoint(ctx, srv.URL, "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_k"), id[:]) }); err != nil {
		t.Fatal(err)
	}
	natsURL := natstest.URL(t)
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), dispatcherProcessEnv+"=1", "DATABASE_URL="+dbtest.RoleURL(t, dbURL, "dispatcher"), "DOCEVAL_MIGRATE=false", "NATS_URL="+natsURL,
			"DOCEVAL_SECRET_KEY="+key, "DOCEVAL_OPS_ADDR=127.0.0.1:0", "DOCEVAL_WEBHOOK_TIMEOUT=2s", "DOCEVAL_WEBHOOK_ALLOW_PRIVATE=true",
			"DOCEVAL_FANOUT_ACK_WAIT=2s", "DOCEVAL_BLOB_URL="+blob.FileURL(t.TempDir()), "DOCEVAL_LOG_LEVEL=warn")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	first := start()
	var ids []string
	for range 200 {
		if err := st.InTx(ctx, func(tx *store.Tx) error {
			env, err := tx.Emit(ctx, events.Draft{APIClientID: c.ID, Type: events.FileReady, Data: map[string]string{"k": "v"}})
			ids = append(ids, env.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	received := func() int {
		mu.Lock()
		defer mu.Unlock()
		return total
	}
	deadline := time.Now().Add(30 * time.Second)
	for received() < 40 {
		if time.Now().After(deadline) {
			t.Fatal("the first dispatcher delivered nothing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	first.Process.Kill() // SIGKILL, mid-burst
	first.Wait()
	killedAt := received()
	second := start()
	defer func() { second.Process.Signal(syscall.SIGTERM); second.Wait() }()

	deadline = time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		missing := 0
		for _, id := range ids {
			if seen[id] == 0 {
				missing++
			}
		}
		mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never arrived (killed after %d)", missing, len(ids), killedAt)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if killedAt >= len(ids) {
		t.Fatalf("the burst was over before the kill (%d received): the test proved nothing", killedAt)
	}
}

// A slow endpoint with a backlog does not hold up a fast one.
func TestSlowEndpointDoesNotStarveOthers(t *testing.T) {
	f := newFixture(t, time.Minute)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer slow.Close()
	var fastHits atomic.Int32
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fastHits.Add(1) }))
	defer fast.Close()
	f.endpoint(slow.URL, "whsec_s", nil)
	for range 60 {
		f.emit(events.FileReady) // 60 deliveries to the slow endpoint
	}
	f.endpoint(fast.URL, "whsec_f", nil)
	f.clock.Advance(time.Second)
	f.emit(events.FileReady) // one to each; the fast endpoint's is the youngest delivery

	f.d.Concurrency = 8
	f.d.Timeout = 20 * time.Second
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() { f.d.Run(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for fastHits.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the fast endpoint got nothing while the slow one had a backlog")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	close(release) // let the in-flight slow sends end
	<-done
}

// One API client's many slow endpoints hold at most its share of a dispatcher's sends
// (half the slots here): another client's delivery goes out while they hang, and a
// claim never goes past the client's bound.
func TestSlowClientDoesNotStarveOthers(t *testing.T) {
	f := newFixture(t, time.Minute)
	release := make(chan struct{})
	var inFlight, most atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		inFlight.Add(-1)
	}))
	defer slow.Close()
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	defer free() // before the server closes, which waits for its handlers
	var fastHits atomic.Int32
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fastHits.Add(1) }))
	defer fast.Close()
	for i := range 6 {
		f.endpoint(slow.URL+"/"+strconv.Itoa(i), "whsec_s", nil)
	}
	for range 10 {
		f.emit(events.FileReady) // 60 deliveries to the slow client's endpoints
	}
	other := *f
	c, _, _, err := f.st.CreateClient(f.ctx, "other", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	other.tenant, other.client = f.st.Tenant(c.ID), c.ID
	other.endpoint(fast.URL, "whsec_f", nil)
	f.clock.Advance(time.Second)
	other.emit(events.FileReady) // the youngest delivery

	f.d.Concurrency = 8 // 2 per endpoint, 4 per client: without the client's bound the slow one takes all 8
	f.d.Timeout = 20 * time.Second
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() { f.d.Run(ctx); close(done) }()
	defer func() { cancel(); free(); <-done }()
	deadline := time.Now().Add(5 * time.Second)
	for fastHits.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the other client got nothing while one client's endpoints hung")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for inFlight.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// A claim counts the client's sends in flight: at its bound none, else the rest.
	for inFlight, want := range map[int]int{4: 0, 1: 3} {
		claimed, err := f.st.ClaimDeliveries(f.ctx, store.ClaimLimits{Max: 10, PerEndpoint: 10, PerClient: 4, InFlight: map[uuid.UUID]int{f.client: inFlight}}, time.Millisecond)
		if err != nil || len(claimed) != want {
			t.Errorf("with %d in flight a claim took %d (%v), want %d", inFlight, len(claimed), err, want)
		}
	}
	cancel()
	free()
	<-done
	if m := most.Load(); m != 4 {
		t.Errorf("%d sends of one client in flight at most, want 4 (its bound)", m)
	}
}

// A redelivery asked for while that delivery is being sent is applied when the send
// ends: one POST per attempt, every attempt recorded.
func TestRedeliverWhileInFlight(t *testing.T) {
	f := newFixture(t, time.Minute)
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posts.Add(1) }))
	defer srv.Close()
	ep := f.endpoint(srv.URL, "whsec_x", nil)
	ev := f.emit(events.FileReady)
	claimed, err := f.st.ClaimDeliveries(f.ctx, store.ClaimLimits{Max: 10, PerEndpoint: 4, PerClient: 10}, 35*time.Second)
	if err != nil || len(claimed) != 1 {
		t.Fatal(claimed, err)
	}
	// Redeliver while this dispatcher holds the lease: nothing else may send it now.
	if n, err := f.st.Redeliver(f.ctx, ev, &ep); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if n := f.run(); n != 0 {
		t.Fatal("a second dispatcher sent a delivery that is in flight")
	}
	// The first send succeeds and settles; the redelivery then makes it due again.
	del := claimed[0]
	now := f.st.Now()
	del.Status, del.AttemptCount, del.LastAttemptedAt = "succeeded", 1, &now
	status := 200
	if err := f.st.Settle(f.ctx, del, &store.Attempt{Number: 1, AttemptedAt: now, Outcome: "succeeded", ResponseStatus: &status}); err != nil {
		t.Fatal(err)
	}
	if d := f.deliveries(ev)[0]; d.Status != "pending" || len(d.Attempts) != 1 {
		t.Fatalf("after the in-flight send: %+v", d)
	}
	if n := f.run(); n != 1 {
		t.Fatal("the requested redelivery did not happen")
	}
	if d := f.deliveries(ev)[0]; d.Status != "succeeded" || d.AttemptCount != 2 || len(d.Attempts) != 2 || posts.Load() != 1 {
		t.Fatalf("after redelivery: %+v, %d posts by the dispatcher", d, posts.Load())
	}
	// A settle with a lost lease changes nothing.
	if err := f.st.Settle(f.ctx, del, &store.Attempt{Number: 3, AttemptedAt: now, Outcome: "succeeded"}); err != nil {
		t.Fatal(err)
	}
	if d := f.deliveries(ev)[0]; d.AttemptCount != 2 || len(d.Attempts) != 2 {
		t.Fatalf("a stale settle was recorded: %+v", d)
	}
}

// Fan-out routes an event by the endpoints as they were when it happened, even when
// the dispatcher gets to it late.
func TestFanOutUsesStateAtEventTime(t *testing.T) {
	f := newFixture(t)
	var id uuid.UUID
	if err := f.st.InTx(f.ctx, func(tx *store.Tx) error {
		env, err := tx.Emit(f.ctx, events.Draft{APIClientID: f.client, Type: events.FileReady, Data: map[string]string{}})
		if err == nil {
			id, err = events.ParseID(env.ID)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	f.endpoint("https://late.example/hook", "whsec_l", nil) // created after the event
	if _, err := f.d.Store.FanOut(f.ctx, id); err != nil {
		t.Fatal(err)
	}
	if ds := f.deliveries(id); len(ds) != 0 {
		t.Errorf("an endpoint created after the event got it: %+v", ds)
	}
}

// A receiver that does not answer in time is a timeout; one that cannot be reached a
// network error; both are recorded with their transport error and retried.
func TestTimeoutAndNetworkErrorOutcomes(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.d.Timeout = 300 * time.Millisecond
	hold := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hold)
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close() // nothing listens there any more
	slowEP := f.endpoint(slow.URL, "whsec_s", nil)
	goneEP := f.endpoint(goneURL, "whsec_g", nil)
	ev := f.emit(events.FileReady)
	f.run()
	want := map[uuid.UUID]string{slowEP: "timeout", goneEP: "network_error"}
	for _, d := range f.deliveries(ev) {
		a := d.Attempts[0]
		if a.Outcome != want[d.EndpointID] || a.TransportError == nil || *a.TransportError == "" || a.ResponseStatus != nil ||
			d.Status != "failed_retryable" || d.NextRetryAt == nil {
			t.Errorf("%s: %+v, attempt %+v", d.EndpointURL, d, a)
		}
	}
}

// Outcomes settled together are each recorded as a lone settle records it: a success,
// an HTTP error scheduled for a retry, and a send whose lease another dispatcher took
// over meanwhile, which changes nothing.
func TestSettleAttemptsTogether(t *testing.T) {
	f := newFixture(t, time.Minute)
	f.endpoint("https://a.example/hook", "whsec_a", nil)
	evs := []uuid.UUID{f.emit(events.FileReady), f.emit(events.FileReady), f.emit(events.FileReady)}
	claimed, err := f.d.Store.ClaimDeliveries(f.ctx, store.ClaimLimits{Max: 10, PerEndpoint: 10, PerClient: 10}, time.Minute)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claimed %d: %v", len(claimed), err)
	}
	if string(claimed[0].Target.Envelope) == "" || claimed[0].Target.URL != "https://a.example/hook" || len(claimed[0].Target.SealedSecrets) != 1 {
		t.Fatalf("a claim without what sending needs: %+v", claimed[0].Target)
	}
	// The third is given back and claimed by another dispatcher, with a new token.
	if err := f.d.Store.Release(f.ctx, claimed[2], f.st.Now()); err != nil {
		t.Fatal(err)
	}
	if again, err := f.d.Store.ClaimDeliveries(f.ctx, store.ClaimLimits{Max: 10, PerEndpoint: 10, PerClient: 10}, time.Minute); err != nil || len(again) != 1 {
		t.Fatalf("claimed again %d: %v", len(again), err)
	}
	now := f.st.Now()
	next := now.Add(time.Minute)
	status, failed := 200, 503
	var settled []store.Settlement
	for i, del := range claimed {
		del.AttemptCount, del.LastAttemptedAt = 1, &now
		a := store.Attempt{Number: 1, AttemptedAt: now, Outcome: dispatch.OutcomeSucceeded, ResponseStatus: &status, ResponseTimeMs: 3}
		del.Status, del.NextRetryAt = store.DeliverySucceeded, nil
		if i == 1 {
			a.Outcome, a.ResponseStatus = dispatch.OutcomeHTTPError, &failed
			del.Status, del.NextRetryAt = store.DeliveryFailedRetryable, &next
		}
		settled = append(settled, store.Settlement{Delivery: del, Attempt: a})
	}
	if err := f.d.Store.SettleAttempts(f.ctx, settled); err != nil {
		t.Fatal(err)
	}
	byEvent := map[uuid.UUID]store.Delivery{}
	for _, ev := range evs {
		byEvent[ev] = f.deliveries(ev)[0]
	}
	for _, s := range settled[:2] {
		got := byEvent[s.Delivery.EventID]
		if got.Status != s.Delivery.Status || got.AttemptCount != 1 || len(got.Attempts) != 1 ||
			got.Attempts[0].Outcome != s.Attempt.Outcome || *got.Attempts[0].ResponseStatus != *s.Attempt.ResponseStatus ||
			got.Attempts[0].TransportError != nil || (got.NextRetryAt == nil) != (s.Delivery.NextRetryAt == nil) {
			t.Errorf("settled together: %+v, want %+v", got, s)
		}
	}
	if got := byEvent[settled[2].Delivery.EventID]; got.AttemptCount != 0 || len(got.Attempts) != 0 || got.Status != store.DeliveryPending {
		t.Errorf("a settle with a lost lease was recorded: %+v", got)
	}
}

// Endpoints sharing a host share its connections: sends in flight keep theirs for the
// next send instead of dialing anew (at most one connection per send in flight).
func TestConnectionsReused(t *testing.T) {
	f := newFixture(t, time.Minute)
	var opened atomic.Int32
	var got atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for i := range 4 {
		f.endpoint(srv.URL+"/"+strconv.Itoa(i), "whsec_x", nil)
	}
	const perEndpoint = 100
	for range perEndpoint {
		f.emit(events.FileReady)
	}
	f.d.Concurrency = 32 // 8 per endpoint, 16 for the client
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() { f.d.Run(ctx); close(done) }()
	deadline := time.Now().Add(20 * time.Second)
	for got.Load() < 4*perEndpoint && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if got.Load() < 4*perEndpoint {
		// Say where the missing ones stand, for the next look at a failure.
		var states []string
		rows, err := f.st.Pool().Query(f.ctx, `SELECT d.status, d.attempt_count, d.lease_until IS NOT NULL,
			coalesce(a.outcome, ''), coalesce(a.transport_error, '') FROM deliveries d
			LEFT JOIN delivery_attempts a ON a.delivery_id = d.id WHERE d.status <> 'succeeded'`)
		if err == nil {
			for rows.Next() {
				var status, outcome, transport string
				var attempts int
				var leased bool
				if rows.Scan(&status, &attempts, &leased, &outcome, &transport) == nil {
					states = append(states, fmt.Sprintf("%s after %d attempts (leased %v, last %q %q)", status, attempts, leased, outcome, transport))
				}
			}
			rows.Close()
		}
		t.Fatalf("%d of %d delivered; not delivered: %v", got.Load(), 4*perEndpoint, states)
	}
	if n := opened.Load(); n > 16 {
		t.Errorf("%d connections opened for at most 16 sends in flight", n)
	}
}

// A claim looks at each endpoint's own due deliveries only: with 2,000 endpoints and a
// backlog held by one client's four, it stays a matter of milliseconds (walking every
// due row for each endpoint took 350 ms and more).
func TestClaimWithManyEndpointsAndOneBacklog(t *testing.T) {
	f := newFixture(t, time.Minute)
	seal := func(id uuid.UUID) []byte { return f.box.Seal([]byte("whsec_x"), id[:]) }
	for i := range 500 {
		tenant := f.tenant
		if i > 0 {
			c, _, _, err := f.st.CreateClient(f.ctx, "idle", auth.AllPermissions)
			if err != nil {
				t.Fatal(err)
			}
			tenant = f.st.Tenant(c.ID)
		}
		for range 4 {
			if _, err := tenant.CreateWebhookEndpoint(f.ctx, "https://idle.example/hook", "", nil, seal); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 500 { // 2,000 deliveries due, on the first client's four endpoints
		f.emit(events.FileReady)
	}
	if _, err := f.st.Pool().Exec(f.ctx, "ANALYZE"); err != nil { // as autovacuum would
		t.Fatal(err)
	}
	start := time.Now()
	const claims = 20
	for range claims {
		if _, err := f.d.Store.ClaimDeliveries(f.ctx, store.ClaimLimits{Max: 16, PerEndpoint: 1000, PerClient: 1000}, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start) / claims; took > 100*time.Millisecond {
		t.Errorf("a claim took %s with 2,000 endpoints", took)
	}
}
