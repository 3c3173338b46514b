package sdktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

// Server is an in-memory fake of the doceval API on a local HTTP server. It is safe for
// concurrent use; its state lives until Close.
type Server struct {
	// URL is the base URL to give sdk.New, for example "http://127.0.0.1:41234".
	URL string
	// APIKey is a key the server accepts. Any "Bearer dek_…" key is accepted, and all
	// keys act as the same API client.
	APIKey string
	// ClientID is the api_client_id of the one API client, as events carry it.
	ClientID uuid.UUID

	srv     *httptest.Server
	deliver *http.Client
	manual  manualSteps
	stop    context.Context // ends with Close
	cancel  context.CancelFunc

	mu          sync.Mutex
	changed     *sync.Cond // state the delivery worker or waiters look at changed
	closed      bool
	result      *client.EvaluationResult
	scripted    map[string][]scriptedError
	losing      map[string]int
	calls       map[string]int
	keys        map[string]*keptAnswer
	submissions []*submission
	events      []*event
	eventAdded  chan struct{} // closed and replaced whenever an event is added
	endpoints   []*endpoint
	queue       []delivery
	inFlight    int
}

// Option configures New and NewServer.
type Option func(*Server)

type manualSteps struct{ uploads, evaluations bool }

// WithManualUploads keeps new uploads in upload_status processing until ReadyUpload or
// FailUpload. By default an upload is answered as processing (202), as the service
// does, and is ready by the next read, with its file.ready event.
func WithManualUploads() Option { return func(s *Server) { s.manual.uploads = true } }

// WithManualEvaluations keeps new evaluations queued until CompleteEvaluation or
// FailEvaluation. By default an evaluation is answered as queued (202), as the service
// does, and is completed by the next read, with its evaluation.started and
// evaluation.completed events.
func WithManualEvaluations() Option { return func(s *Server) { s.manual.evaluations = true } }

// NewServer starts a fake API for the test; it is closed when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	t.Cleanup(s.Close)
	return s
}

// New starts a fake API; Close stops it. NewServer does both for a test.
func New(opts ...Option) *Server {
	s := &Server{
		APIKey:     "dek_sdktest" + randomHex(16),
		ClientID:   uuid.New(),
		deliver:    &http.Client{Timeout: deliveryTimeout},
		scripted:   map[string][]scriptedError{},
		losing:     map[string]int{},
		calls:      map[string]int{},
		keys:       map[string]*keptAnswer{},
		eventAdded: make(chan struct{}),
	}
	s.changed = sync.NewCond(&s.mu)
	s.stop, s.cancel = context.WithCancel(context.Background())
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	go s.deliverEvents()
	return s
}

// Close stops the server and its webhook deliveries; deliveries not made yet are not.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.cancel()
	s.changed.Broadcast()
	s.mu.Unlock()
	s.srv.Close()
}

// Client returns an SDK client of the server authenticated with APIKey. Its retries
// wait milliseconds instead of seconds; opts are applied after that and can change it.
func (s *Server) Client(opts ...sdk.Option) *sdk.Client {
	fast := sdk.WithRetryPolicy(sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond})
	c, err := sdk.New(s.URL, s.APIKey, append([]sdk.Option{fast}, opts...)...)
	if err != nil {
		panic("sdktest: " + err.Error()) // New only fails on a bad URL or key, which these are not
	}
	return c
}

// Calls reports how many requests reached operation (an operation id such as
// "createSubmission"), retries and scripted failures included.
func (s *Server) Calls(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[operation]
}

// FailNext makes the next call of operation answer status with the error envelope of
// code, before anything is done. Calls queue up: FailNext twice fails the next two. 429
// and 503 carry retry-after: 0 so the SDK's retries do not slow tests down.
func (s *Server) FailNext(operation string, status int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripted[operation] = append(s.scripted[operation], scriptedError{status, code})
}

// LoseNextAnswer makes the next call of operation happen but never be answered: the
// connection is closed instead, as when an answer is lost on the way back. A retry with
// the same Idempotency-Key gets the kept answer, marked Idempotent-Replayed: true.
func (s *Server) LoseNextAnswer(operation string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.losing[operation]++
}

type scriptedError struct {
	status int
	code   string
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// authorized accepts any bearer key that looks like one: "dek_" and something.
func authorized(r *http.Request) bool {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && strings.HasPrefix(key, "dek_") && len(key) > len("dek_")
}

func now() time.Time { return time.Now().UTC() }
