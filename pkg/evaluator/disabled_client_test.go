package evaluator_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/evaluator"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
)

// hookReceiver is the partner's webhook endpoint: it records when each delivery
// arrived and answers with status.
type hookReceiver struct {
	status atomic.Int32
	mu     sync.Mutex
	got    []received
}

type received struct {
	at  time.Time
	typ events.Type
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var env events.Envelope
	_ = json.NewDecoder(r.Body).Decode(&env)
	h.mu.Lock()
	h.got = append(h.got, received{at: time.Now(), typ: env.Type})
	h.mu.Unlock()
	w.WriteHeader(int(h.status.Load()))
}

// since returns the deliveries that arrived at or after t.
func (h *hookReceiver) since(t time.Time) []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []received
	for _, g := range h.got {
		if !g.at.Before(t) {
			out = append(out, g)
		}
	}
	return out
}

// waitFor polls cond until it holds or within has passed.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s", what, within)
		}
	}
}

func (e *env) rows(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.st.Pool().QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// Disabling an API client while its evaluation runs stops it: no webhook delivery is
// attempted after the disable (queued retries and events emitted meanwhile wait, no
// attempt counted), and the evaluation stops at its next step and waits, neither run
// nor failed. Enabling the client sends the held deliveries and runs the evaluation to
// its end, the interrupted run not counted against its attempts. Real PostgreSQL,
// JetStream, evaluator and dispatcher.
func TestDisabledClientIsStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	clientID := e.tenant.ClientID()

	hook := &hookReceiver{}
	hook.status.Store(http.StatusServiceUnavailable) // every first attempt fails: retries queue up
	srv := httptest.NewServer(hook)
	defer srv.Close()
	secretKey := secretbox.NewKey()
	key, _ := secretbox.ParseKey(secretKey)
	box, _ := secretbox.New(key)
	if _, err := e.tenant.CreateWebhookEndpoint(ctx, srv.URL+"/hook", "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_test"), id[:]) }); err != nil {
		t.Fatal(err)
	}
	const retryAfter = 3 * time.Second
	dispatcher, err := dispatch.Build(dispatch.Config{
		EventRetention: time.Hour, RetentionEvery: time.Hour, RetrySchedule: []time.Duration{retryAfter, retryAfter, retryAfter, retryAfter},
		Timeout: 5 * time.Second, AllowPrivate: true, SecretKey: secretKey, FanOutAckWait: 5 * time.Second, Concurrency: 4,
	}, e.log)
	if err != nil {
		t.Fatal(err)
	}

	sub := e.customCheckSubmission("disabled")
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	model := &blockingModel{asked: make(chan struct{}, 1), release: make(chan struct{})}
	e.worker(testConfig(), engine.NewWithModel(model, e.log))
	e.serviceAs("dispatcher", dispatcher)
	select {
	case <-model.asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never asked")
	}
	// The run waits inside the model: nothing emits now. Once every event so far is
	// published, fanned out and tried (503: a retry is queued), no send is in flight and
	// no retry falls due within a second, the dispatcher is idle: the disable cannot
	// race a send.
	waitFor(t, "every delivery tried once", 30*time.Second, func() bool {
		return e.rows("SELECT count(*) FROM outbox") == 0 &&
			e.rows("SELECT count(*) FROM events WHERE api_client_id = $1", clientID) == e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1", clientID) &&
			e.rows(`SELECT count(*) FROM deliveries WHERE api_client_id = $1 AND (attempt_count = 0 OR status <> 'failed_retryable'
				OR lease_until IS NOT NULL OR next_retry_at < now() + interval '1 second')`, clientID) == 0
	})
	queued := e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1", clientID)
	if queued == 0 {
		t.Fatal("no delivery queued: the test would prove nothing")
	}

	disabledAt := time.Now()
	if _, err := e.st.SetClientDisabled(ctx, clientID, true); err != nil {
		t.Fatal(err)
	}
	hook.status.Store(http.StatusOK)
	close(model.release) // the run goes on to its next step, where it stops
	waitFor(t, "the evaluation held", 30*time.Second, func() bool {
		return e.rows("SELECT count(*) FROM evaluations WHERE id = $1 AND held_at IS NOT NULL", ev.ID) == 1
	})
	// An event of the disabled client (a purge finishing, say) is fanned out but held.
	if err := e.st.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.Emit(ctx, events.Draft{APIClientID: clientID, Type: events.FileReady, Data: map[string]string{"k": "v"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the event emitted while disabled fanned out", 30*time.Second, func() bool {
		return e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1", clientID) == queued+1
	})
	time.Sleep(time.Until(disabledAt.Add(retryAfter + 2*time.Second))) // every retry is overdue now

	if got := hook.since(disabledAt); len(got) != 0 {
		t.Errorf("%d deliveries reached the endpoint after the disable: %v", len(got), got)
	}
	if n := e.rows("SELECT count(*) FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.api_client_id = $1 AND a.attempted_at >= $2", clientID, disabledAt); n != 0 {
		t.Errorf("%d delivery attempts recorded after the disable", n)
	}
	if n := e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1 AND status NOT IN ('pending', 'failed_retryable')", clientID); n != 0 {
		t.Errorf("%d deliveries settled while the client was disabled, want all held", n)
	}
	held := e.waitStatus(sub.ID, ev.ID, evaluation.StatusRunning, time.Second)
	if held.Attempts != 0 || held.Result != nil {
		t.Errorf("held evaluation: %d attempts counted, result %s; want the run given back", held.Attempts, held.Result)
	}

	if _, err := e.st.SetClientDisabled(ctx, clientID, false); err != nil {
		t.Fatal(err)
	}
	done := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, 30*time.Second)
	if done.Attempts != 1 {
		t.Errorf("%d attempts, want 1: the run the disable stopped is not counted", done.Attempts)
	}
	waitFor(t, "every event delivered after the enable", 30*time.Second, func() bool {
		return e.rows("SELECT count(*) FROM outbox") == 0 &&
			e.rows("SELECT count(*) FROM events WHERE api_client_id = $1", clientID) == e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1", clientID) &&
			e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1 AND status <> 'succeeded'", clientID) == 0
	})
	// Each held delivery went out once, then those of the resumed run.
	after := map[events.Type]int{}
	for _, g := range hook.since(disabledAt) {
		after[g.typ]++
	}
	if total := e.rows("SELECT count(*) FROM deliveries WHERE api_client_id = $1", clientID); len(hook.since(disabledAt)) != total ||
		after[events.EvaluationStarted] != 1 || after[events.EvaluationCompleted] != 1 || after[events.FileReady] != 4 {
		t.Errorf("delivered after the enable: %v, %d deliveries; want each once: the %d held (evaluation.started, "+
			"file.ready of the 3 uploads and the one emitted while disabled, progress) and the resumed run's", after, total, queued+1)
	}
	if n := count(e.eventTypes(sub.ID), events.EvaluationStarted); n != 1 {
		t.Errorf("%d evaluation.started events, want 1", n)
	}
}

// A job met while its client is disabled is set aside without running or counting an
// attempt, and neither the reconciler nor the stale sweeper touches it however long it
// waits (no job is lost: the enabling enqueues it); enabling enqueues it and restarts
// its clock.
func TestHeldEvaluationWaitsForItsClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	clientID := e.tenant.ClientID()
	sub := e.submission("held", samplePages)
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.SetClientDisabled(ctx, clientID, true); err != nil {
		t.Fatal(err)
	}
	w := &evaluator.Worker{Store: e.st, Engine: engine.NewWithModel(nil, e.log), Log: e.log, Cfg: testConfig(), Metrics: e.metrics}
	if err := w.Run(ctx, ev.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.BeginEvaluation(ctx, ev.ID, 3); !errors.Is(err, store.ErrClientDisabled) {
		t.Fatalf("begin while disabled: %v, want ErrClientDisabled", err)
	}
	got := e.waitStatus(sub.ID, ev.ID, evaluation.StatusQueued, time.Second)
	if got.Attempts != 0 {
		t.Errorf("%d attempts counted while held", got.Attempts)
	}
	// A day later, in the eyes of the sweeper and the reconciler.
	if _, err := e.st.Pool().Exec(ctx, "UPDATE evaluations SET updated_at = now() - interval '1 day', job_enqueued_at = NULL, created_at = now() - interval '1 day' WHERE id = $1", ev.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Pool().Exec(ctx, "DELETE FROM outbox"); err != nil {
		t.Fatal(err)
	}
	if ids, err := e.st.StaleEvaluations(ctx, time.Minute, time.Minute); err != nil || len(ids) != 0 {
		t.Errorf("stale: %v %v; a held evaluation is not stalled", ids, err)
	}
	nc, err := nats.Connect(e.common.NatsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if n, err := w.ReconcileOnce(ctx, js, 0, 0); err != nil || n != 0 {
		t.Errorf("reconciled %d (%v): a held evaluation's job is not lost", n, err)
	}

	if _, err := e.st.SetClientDisabled(ctx, clientID, false); err != nil {
		t.Fatal(err)
	}
	if n := e.rows("SELECT count(*) FROM outbox WHERE starts_with(subject, $1)", jobs.QueueSubjectPrefix+jobs.EvaluateQueue); n != 1 {
		t.Errorf("%d evaluation jobs enqueued by the enabling, want 1", n)
	}
	if ids, err := e.st.StaleEvaluations(ctx, time.Minute, time.Minute); err != nil || len(ids) != 0 {
		t.Errorf("stale right after the enabling: %v %v", ids, err)
	}
	if err := w.Run(ctx, ev.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	if done := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, time.Second); done.Attempts != 1 {
		t.Errorf("%d attempts, want 1", done.Attempts)
	}
}
