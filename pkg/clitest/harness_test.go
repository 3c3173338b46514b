package partnercli_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/services/doceval/partnercli"
)

// realAPI is the real API server on a fresh database, as pkg/apiserver's tests set it
// up, with one API client holding every permission. The CLI's config file lives in a
// directory of its own per test.
type realAPI struct {
	store      *store.Store
	url        string
	key        string
	clientID   uuid.UUID
	configHome string
}

func newRealAPI(t *testing.T) *realAPI {
	t.Helper()
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	blobs, err := blob.Open(ctx, blob.FileURL(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, err := secretbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	e, err := apiserver.New(apiserver.Deps{
		Store: st, Blobs: blobs, Secrets: box, Registry: prometheus.NewRegistry(),
		Log:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		RateLimiter:    httpx.NewRateLimiter(0, 1, nil), // off
		MaxUploadBytes: 1 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	c, _, apiKey, err := st.CreateClient(ctx, "partnercli-test", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	return &realAPI{store: st, url: srv.URL, key: apiKey, clientID: c.ID, configHome: t.TempDir()}
}

// env is what the CLI sees of the environment: the key and URL of this API and a
// config directory of the test's own; extra are more NAME, VALUE pairs ("" unsets).
func (api *realAPI) env(extra ...string) partnercli.Env {
	vars := map[string]string{"DOCEVAL_API_KEY": api.key, "DOCEVAL_BASE_URL": api.url, "XDG_CONFIG_HOME": api.configHome}
	for i := 0; i+1 < len(extra); i += 2 {
		vars[extra[i]] = extra[i+1]
	}
	return func(k string) string { return vars[k] }
}

// result is one CLI run.
type result struct {
	code           int
	stdout, stderr string
}

// run runs the CLI in-process against api.
func (api *realAPI) run(t *testing.T, args ...string) result {
	t.Helper()
	return runCLI(api.env(), "", args...)
}

// runCLI runs the CLI in-process with env and stdin.
func runCLI(env partnercli.Env, stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := partnercli.Run(context.Background(), args, partnercli.Streams{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr}, env)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// emit writes n events of typ for the API client, as a worker would.
func (api *realAPI) emit(t *testing.T, typ events.Type, n int) {
	t.Helper()
	for i := range n {
		err := api.store.InTx(context.Background(), func(tx *store.Tx) error {
			_, err := tx.Emit(context.Background(), events.Draft{APIClientID: api.clientID, Type: typ, Data: map[string]int{"n": i}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// mustRun runs the CLI and fails the test unless it exits 0.
func (api *realAPI) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := api.run(t, args...)
	if r.code != 0 {
		t.Fatalf("doceval %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// syncBuffer is a bytes.Buffer safe for a command writing while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runningCLI is a CLI run in the background, such as `listen`.
type runningCLI struct {
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan int
	stopped        bool
}

// startCLI starts the CLI in-process with env and no stdin.
func startCLI(t *testing.T, env partnercli.Env, args ...string) *runningCLI {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningCLI{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		r.done <- partnercli.Run(ctx, args, partnercli.Streams{Stdout: r.stdout, Stderr: r.stderr}, env)
	}()
	return r
}

// stop cancels the run, as Ctrl-C does, and requires exit 0.
func (r *runningCLI) stop(t *testing.T) {
	t.Helper()
	if r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	select {
	case code := <-r.done:
		if code != 0 {
			t.Errorf("exit %d after cancel; stderr:\n%s", code, r.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the CLI did not stop after cancel")
	}
}
