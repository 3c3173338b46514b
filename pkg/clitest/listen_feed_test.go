package partnercli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/sdk/webhook"
	"github.com/doceval/doceval/pkg/store"
)

// forwardReceiver is the partner's app behind `listen --forward-to`: it verifies each
// forward with the listen secret and counts deliveries per event id.
type forwardReceiver struct {
	url    string
	secret string
	// fail, when set, answers 500 to the attempts it returns true for.
	fail func(id string, attempt int) bool

	mu       sync.Mutex
	order    []string       // ids of acknowledged forwards, in arrival order
	attempts map[string]int // every attempt, acknowledged or not
	bad      []string       // why a forward was refused

	events map[string]webhook.Event // acknowledged forwards by id
}

func newForwardReceiver(t *testing.T, secret string) *forwardReceiver {
	t.Helper()
	r := &forwardReceiver{secret: secret, attempts: map[string]int{}, events: map[string]webhook.Event{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		// Each scheme on its own: a forward carries both, as the service's deliveries do.
		if err := webhook.Verify(req.Header.Get(webhook.SignatureHeader), body, []string{r.secret}, 0, time.Now()); err != nil {
			r.bad = append(r.bad, err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h := req.Header
		if err := webhook.VerifyStandard(h.Get(webhook.IDHeader), h.Get(webhook.TimestampHeader), h.Get(webhook.StandardSignatureHeader), body, []string{r.secret}, 0, time.Now()); err != nil {
			r.bad = append(r.bad, "webhook-signature: "+err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		event, err := webhook.ParseEvent(body)
		if err == nil && h.Get(webhook.IDHeader) != event.ID {
			err = fmt.Errorf("webhook-id %q is not the event id %q", h.Get(webhook.IDHeader), event.ID)
		}
		if err != nil {
			r.bad = append(r.bad, err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.attempts[event.ID]++
		if r.fail != nil && r.fail(event.ID, r.attempts[event.ID]) {
			http.Error(w, "not now", http.StatusInternalServerError)
			return
		}
		r.order = append(r.order, event.ID)
		r.events[event.ID] = event
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *forwardReceiver) acknowledged() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.order...)
}

// event is the acknowledged forward of event id.
func (r *forwardReceiver) event(id string) (webhook.Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.events[id]
	return e, ok
}

func (r *forwardReceiver) refused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

// emitBurst writes n events from several writers at once, so their transactions
// commit out of order, and returns their ids.
func emitBurst(t *testing.T, api *realAPI, n, writers int) []string {
	t.Helper()
	ids := make(chan string, n)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				err := api.store.InTx(context.Background(), func(tx *store.Tx) error {
					env, err := tx.Emit(context.Background(), events.Draft{APIClientID: api.clientID, Type: events.FileReady, Data: map[string]int{"n": i}})
					ids <- env.ID
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(ids)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var out []string
	for id := range ids {
		out = append(out, id)
	}
	return out
}

func waitWithin(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startFeedListen starts `doceval listen` in feed mode and waits until it has its
// position, so every event emitted from then on is the listener's to forward.
func startFeedListen(t *testing.T, api *realAPI, args ...string) *runningCLI {
	t.Helper()
	l := startCLI(t, api.env(), append([]string{"listen"}, args...)...)
	t.Cleanup(func() { l.stop(t) })
	waitFor(t, "listen to read the feed", func() bool { return strings.Contains(l.stderr.String(), "Reading the event feed") })
	return l
}

// The acceptance test of `listen` against any deployment: no webhook endpoint points
// at the listener (and no dispatcher runs), so the events reach it only through the
// feed. A burst of 200 events is forwarded exactly once each, verified with the secret
// `listen --print-secret` shows, although listen is stopped after about half of them
// and started again with the same profile.
func TestListenForwardsEveryEventOnceAcrossARestart(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	secret := strings.TrimSpace(api.mustRun(t, "listen", "--print-secret"))
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("--print-secret printed %q", secret)
	}
	if again := strings.TrimSpace(api.mustRun(t, "listen", "--print-secret")); again != secret {
		t.Fatalf("the secret changed between runs: %q then %q", secret, again)
	}
	recv := newForwardReceiver(t, secret)

	first := startFeedListen(t, api, "--forward-to", recv.url)
	emitted := make(chan []string, 1)
	go func() { emitted <- emitBurst(t, api, 200, 8) }()
	waitWithin(t, 60*time.Second, "half of the burst", func() bool { return len(recv.acknowledged()) >= 100 })
	first.stop(t)
	half := len(recv.acknowledged())

	second := startFeedListen(t, api, "--forward-to", recv.url)
	ids := <-emitted
	waitWithin(t, 60*time.Second, "the whole burst", func() bool { return len(recv.acknowledged()) >= len(ids) })
	// One more event after the burst: once it is through, every earlier one would be too.
	api.emit(t, events.FileFailed, 1)
	waitWithin(t, 30*time.Second, "the event after the burst", func() bool { return len(recv.acknowledged()) > len(ids) })
	second.stop(t)

	got := recv.acknowledged()
	count := map[string]int{}
	for _, id := range got[:len(got)-1] {
		count[id]++
	}
	for _, id := range ids {
		if count[id] != 1 {
			t.Errorf("event %s forwarded %d times", id, count[id])
		}
	}
	if len(got) != len(ids)+1 {
		t.Errorf("%d forwards acknowledged for %d events (the first run forwarded %d)", len(got), len(ids)+1, half)
	}
	if bad := recv.refused(); len(bad) > 0 {
		t.Errorf("%d forwards failed verification, e.g. %s", len(bad), bad[0])
	}
	// One printed line per event, across both runs.
	lines := strings.Count(first.stdout.String(), "\n") + strings.Count(second.stdout.String(), "\n")
	if lines != len(ids)+1 || !strings.Contains(first.stdout.String(), "file.ready") || !strings.Contains(first.stdout.String(), "-> 204") {
		t.Errorf("%d lines printed for %d events; first run:\n%.500s", lines, len(ids)+1, first.stdout.String())
	}
	// The position lives in the profile of the config file, which only its owner reads.
	path := filepath.Join(api.configHome, "doceval", "config.json")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, mode %v", err, info.Mode())
	}
	var cfg struct {
		Profiles map[string]struct {
			Listen struct {
				Secret string  `json:"secret"`
				After  *string `json:"after"`
			} `json:"listen"`
		} `json:"profiles"`
	}
	b, _ := os.ReadFile(path)
	decode(t, string(b), &cfg)
	if l := cfg.Profiles["default"].Listen; l.Secret != secret || l.After == nil || *l.After == "" {
		t.Errorf("stored listen state: %+v", l)
	}
}

// A forward the receiver refuses is retried, with backoff, until it is acknowledged;
// the events after it wait, so none is skipped and the order holds.
func TestListenRetriesAFailedForwardWithoutSkipping(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	secret := strings.TrimSpace(api.mustRun(t, "listen", "--print-secret"))
	recv := newForwardReceiver(t, secret)
	var firstID string
	var mu sync.Mutex
	recv.fail = func(id string, attempt int) bool {
		mu.Lock()
		defer mu.Unlock()
		if firstID == "" {
			firstID = id
		}
		return id == firstID && attempt <= 3
	}
	l := startFeedListen(t, api, "--forward-to", recv.url, "--retry-delay", "10ms")
	api.emit(t, events.FileReady, 5)
	waitFor(t, "5 events acknowledged", func() bool { return len(recv.acknowledged()) == 5 })
	got := recv.acknowledged()
	if got[0] != firstID {
		t.Errorf("the refused event was overtaken: %v", got)
	}
	if n := strings.Count(l.stderr.String(), "answered 500"); n != 3 {
		t.Errorf("%d failures reported, want 3:\n%s", n, l.stderr.String())
	}
}

// --from-start reads the events emitted before the first start; --events filters by
// type (the feed's type parameter); --json prints each event's body on a line; a
// restart continues after what was forwarded.
func TestListenFromStartFilteredJSON(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	api.emit(t, events.FileReady, 3)
	api.emit(t, events.EvaluationCompleted, 2)
	secret := strings.TrimSpace(api.mustRun(t, "listen", "--print-secret"))
	recv := newForwardReceiver(t, secret)

	l := startFeedListen(t, api, "--forward-to", recv.url, "--from-start", "--events", "evaluation.completed", "--json")
	waitFor(t, "the 2 completed events", func() bool { return len(recv.acknowledged()) == 2 })
	l.stop(t)
	lines := strings.Split(strings.TrimSpace(l.stdout.String()), "\n")
	for _, line := range lines {
		var e struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Type != "evaluation.completed" {
			t.Errorf("--json line %q: %v", line, err)
		}
	}
	if len(lines) != 2 {
		t.Errorf("%d lines for 2 events:\n%s", len(lines), l.stdout.String())
	}

	// Started again: the filtered-out file.ready events stay behind, the new
	// evaluation.completed arrives once.
	api.emit(t, events.EvaluationCompleted, 1)
	api.emit(t, events.FileReady, 1)
	startFeedListen(t, api, "--forward-to", recv.url, "--events", "evaluation.completed")
	waitFor(t, "the new completed event", func() bool { return len(recv.acknowledged()) == 3 })
	time.Sleep(300 * time.Millisecond) // time for a wrong extra forward to show
	if got := recv.acknowledged(); len(got) != 3 {
		t.Errorf("forwards %v", got)
	}
}

// --reset forgets the stored position: the next start begins at the end again.
func TestListenReset(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	secret := strings.TrimSpace(api.mustRun(t, "listen", "--print-secret"))
	recv := newForwardReceiver(t, secret)
	l := startFeedListen(t, api, "--forward-to", recv.url)
	l.stop(t)
	api.emit(t, events.FileReady, 2) // after the stored position, before the reset
	startFeedListen(t, api, "--forward-to", recv.url, "--reset")
	api.emit(t, events.FileFailed, 1)
	waitFor(t, "the event after the reset", func() bool { return len(recv.acknowledged()) == 1 })
	time.Sleep(300 * time.Millisecond)
	if got := recv.acknowledged(); len(got) != 1 {
		t.Errorf("forwards after --reset %v, want only the one emitted after it", got)
	}
	// The secret survives a reset; only the position goes.
	if again := strings.TrimSpace(api.mustRun(t, "listen", "--print-secret")); again != secret {
		t.Errorf("secret changed by --reset")
	}
}
