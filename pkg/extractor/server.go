package extractor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/extract"
)

// ServerConfig is the extractor service's configuration. It holds no credential of any
// kind: the service reaches no database, queue or blob store, only the bytes it is sent.
type ServerConfig struct {
	HTTPAddr string     `env:"DOCEVAL_HTTP_ADDR" envDefault:":8080"`
	OpsAddr  string     `env:"DOCEVAL_OPS_ADDR" envDefault:":9090"`
	LogLevel slog.Level `env:"DOCEVAL_LOG_LEVEL" envDefault:"info"`
	// ShutdownTimeout is how long the service finishes the documents in work after
	// SIGTERM.
	ShutdownTimeout time.Duration `env:"DOCEVAL_SHUTDOWN_TIMEOUT" envDefault:"20s"`
	// MaxBodyBytes bounds one document (413 above it); at least the api's
	// DOCEVAL_MAX_UPLOAD_BYTES.
	MaxBodyBytes int64 `env:"DOCEVAL_EXTRACTOR_MAX_BODY_BYTES" envDefault:"104857600"`
	// Concurrency is how many documents one replica parses at once; a request waits
	// up to QueueWait for a slot, then is answered 503.
	Concurrency int           `env:"DOCEVAL_EXTRACTOR_CONCURRENCY" envDefault:"2"`
	QueueWait   time.Duration `env:"DOCEVAL_EXTRACTOR_QUEUE_WAIT" envDefault:"30s"`
	// MaxTimeout caps the budget a caller may ask for one document.
	MaxTimeout time.Duration `env:"DOCEVAL_EXTRACTOR_MAX_TIMEOUT" envDefault:"10m"`
	// ToolMaxMemory caps the address space a caller may ask for each tool (and is what
	// a caller that asks for none gets).
	ToolMaxMemory int64 `env:"DOCEVAL_TOOL_MAX_MEMORY" envDefault:"2147483648"`
	// TempDir holds each request's private directory (the document, the tools' own
	// directories, pages rendered for OCR), removed when the request ends.
	TempDir string `env:"DOCEVAL_EXTRACTOR_TEMP_DIR"`
	// ParserIsolation is how the tools are confined within the extractor: "sandbox"
	// (bubblewrap) or "unconfined" where the pod itself is the boundary (Kubernetes
	// usually forbids the sandbox's namespaces; the chart sets it).
	ParserIsolation extract.Confinement `env:"DOCEVAL_PARSER_ISOLATION" envDefault:"sandbox"`
}

// Level is the configured log level (for service.Main).
func (c ServerConfig) Level() slog.Level { return c.LogLevel }

// Timeouts that are not settings: how long a document's bytes may take to arrive once
// its slot is free, and a render's budget when the caller names none.
const (
	bodyReadTimeout      = 2 * time.Minute
	defaultRenderTimeout = time.Minute
	maxRenderDPI         = 1200
)

// languagesPattern is what the languages parameter may be: tesseract's language codes
// joined by "+" (deu+eng), or nothing (the extraction's default).
var languagesPattern = regexp.MustCompile(`^([a-z_]{2,16}(\+[a-z_]{2,16}){0,15})?$`)

// Server answers extraction and rendering requests (see wire.go).
type Server struct {
	cfg     ServerConfig
	log     *slog.Logger
	slots   chan struct{}
	metrics *serverMetrics
	// ready reports whether the document tools are installed (extract.CheckTools).
	ready func() error
}

// NewServer builds the extractor's handler state; reg receives its metrics (nil: none).
func NewServer(cfg ServerConfig, log *slog.Logger, reg prometheus.Registerer) *Server {
	return &Server{
		cfg: cfg, log: log, slots: make(chan struct{}, max(cfg.Concurrency, 1)),
		metrics: newServerMetrics(reg), ready: extract.CheckTools,
	}
}

// Ready reports whether the extractor can parse: its tools are installed.
func (s *Server) Ready() error { return s.ready() }

// Handler serves the extraction and rendering operations, and /healthz and /readyz
// for the callers (the kubelet uses the ops listener's).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+pathExtract, s.handleExtract)
	mux.HandleFunc("POST "+pathRender, s.handleRender)
	mux.HandleFunc("GET "+pathHealth, func(w http.ResponseWriter, _ *http.Request) { writeText(w, http.StatusOK, "ok\n") })
	mux.HandleFunc("GET "+pathReady, s.handleReady)
	return mux
}

func (s *Server) handleReady(w http.ResponseWriter, _ *http.Request) {
	if err := s.Ready(); err != nil {
		s.log.Warn("not ready", "error", err)
		writeText(w, http.StatusServiceUnavailable, "not ready\n")
		return
	}
	writeText(w, http.StatusOK, "ready\n")
}

func (s *Server) handleExtract(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opt := extract.Options{Languages: q.Get(paramLanguages)}
	var err error
	if !languagesPattern.MatchString(opt.Languages) {
		err = fmt.Errorf("%s %q is no list of tesseract languages", paramLanguages, opt.Languages)
	} else if opt.MaxPages, err = intParam(q.Get(paramMaxPages), 0); err == nil {
		if opt.MaxOCRPages, err = intParam(q.Get(paramMaxOCRPages), 0); err == nil {
			opt.Timeout, opt.Limits, err = s.budget(q.Get(paramTimeout), q.Get(paramMaxMemory), 0)
		}
	}
	s.serve(w, r, "extract", err, func(ctx context.Context, _, path string) (func(http.ResponseWriter), error) {
		// The tools' job directory (extract's own, made reachable for the sandbox's
		// user) is made beside this request's, not in it: that one is this process's.
		opt.TempDir = s.cfg.TempDir
		res, err := extract.File(ctx, path, q.Get(paramDeclared), opt)
		if err != nil {
			return nil, err
		}
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_ = json.NewEncoder(w).Encode(res)
		}, nil
	})
}

func (s *Server) handleRender(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, err := intParam(q.Get(paramPage), 1)
	var dpi int
	var timeout time.Duration
	var limits extract.Limits
	if err == nil {
		if dpi, err = intParam(q.Get(paramDPI), 1); err == nil && dpi > maxRenderDPI {
			err = fmt.Errorf("%s %d above %d", paramDPI, dpi, maxRenderDPI)
		}
	}
	if err == nil {
		timeout, limits, err = s.budget(q.Get(paramTimeout), q.Get(paramMaxMemory), defaultRenderTimeout)
	}
	s.serve(w, r, "render", err, func(ctx context.Context, _, path string) (func(http.ResponseWriter), error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		png, err := extract.RenderPage(ctx, path, n, dpi, limits)
		if err != nil {
			return nil, err
		}
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", strconv.Itoa(len(png)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(png)
		}, nil
	})
}

// budget reads a request's timeout and memory limit, capped by the configuration;
// fallback is the timeout when none is asked (0: extract's own default).
func (s *Server) budget(timeout, memory string, fallback time.Duration) (time.Duration, extract.Limits, error) {
	t := fallback
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil || d <= 0 {
			return 0, extract.Limits{}, fmt.Errorf("%s %q is no positive duration", paramTimeout, timeout)
		}
		t = d
	}
	if s.cfg.MaxTimeout > 0 && (t == 0 || t > s.cfg.MaxTimeout) {
		t = s.cfg.MaxTimeout
	}
	mem, err := strconv.ParseInt(orZero(memory), 10, 64)
	if err != nil || mem < 0 {
		return 0, extract.Limits{}, fmt.Errorf("%s %q is no byte count", paramMaxMemory, memory)
	}
	if mem == 0 || (s.cfg.ToolMaxMemory > 0 && mem > s.cfg.ToolMaxMemory) {
		mem = s.cfg.ToolMaxMemory
	}
	return t, extract.Limits{MaxMemory: mem, Confinement: s.cfg.ParserIsolation}, nil
}

// serve runs one request: a parameter error is a 400; then a slot (503 when none comes
// free within the queue wait), the body into a private directory (413 over the
// limit), the work, and its answer: a *extract.Failure as 422, any other error as 500.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, op string, paramErr error,
	work func(ctx context.Context, dir, path string) (func(http.ResponseWriter), error)) {
	start := time.Now()
	outcome, code := "error", ""
	defer func() {
		s.metrics.observe(op, outcome, time.Since(start))
		s.log.InfoContext(r.Context(), "request", "operation", op, "outcome", outcome, "failure_code", code,
			"bytes", r.ContentLength, "duration_ms", time.Since(start).Milliseconds())
	}()
	if paramErr != nil {
		outcome = "bad_request"
		writeJSON(w, http.StatusBadRequest, errorBody{Error: paramErr.Error()})
		return
	}
	if s.cfg.MaxBodyBytes > 0 && r.ContentLength > s.cfg.MaxBodyBytes {
		outcome = "too_large"
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{Error: fmt.Sprintf("the document exceeds %d bytes", s.cfg.MaxBodyBytes)})
		return
	}
	release, ok := s.acquire(r.Context())
	if !ok {
		outcome = "busy"
		w.Header().Set("Retry-After", "5")
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "every parser slot is busy"})
		return
	}
	defer release()

	dir, err := os.MkdirTemp(s.cfg.TempDir, "doceval-extractor-")
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "temporary directory: " + err.Error()})
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "document")
	if err := s.receive(w, r, path); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			outcome = "too_large"
			writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{Error: fmt.Sprintf("the document exceeds %d bytes", tooLarge.Limit)})
			return
		}
		writeJSON(w, http.StatusBadRequest, errorBody{Error: "reading the document: " + err.Error()})
		return
	}
	answer, err := work(r.Context(), dir, path)
	var failure *extract.Failure
	switch {
	case errors.As(err, &failure):
		outcome, code = "refused", failure.Code
		writeJSON(w, http.StatusUnprocessableEntity, failureBody{Code: failure.Code, Message: failure.Message})
	case err != nil:
		s.log.ErrorContext(r.Context(), "parse", "operation", op, "error", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: err.Error()})
	default:
		outcome = "ok"
		answer(w)
	}
}

// acquire takes a parser slot, waiting up to the queue wait.
func (s *Server) acquire(ctx context.Context) (release func(), ok bool) {
	release = func() { <-s.slots; s.metrics.inFlight.Dec() }
	select {
	case s.slots <- struct{}{}: // a free slot wins over an expired wait
		s.metrics.inFlight.Inc()
		return release, true
	default:
	}
	wait := time.NewTimer(s.cfg.QueueWait)
	defer wait.Stop()
	s.metrics.queued.Inc()
	defer s.metrics.queued.Dec()
	select {
	case s.slots <- struct{}{}:
		s.metrics.inFlight.Inc()
		return release, true
	case <-wait.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// receive writes the request's body to path, within the body limit and the read
// timeout (which starts once a slot is free: the caller's bytes wait in the socket
// until then).
func (s *Server) receive(w http.ResponseWriter, r *http.Request, path string) error {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyReadTimeout))
	body := io.Reader(r.Body)
	if s.cfg.MaxBodyBytes > 0 {
		body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func intParam(v string, least int) (int, error) {
	n, err := strconv.Atoi(orZero(v))
	if err != nil || n < least {
		return 0, fmt.Errorf("%q is no whole number from %d", v, least)
	}
	return n, nil
}

func orZero(v string) string {
	if v == "" {
		return "0"
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
