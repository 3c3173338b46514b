package extractor_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// testBundle is an extractor service on a loopback port and a client of it.
type testBundle struct {
	client *extractor.Client
	reg    *prometheus.Registry
	url    string
}

func setup(t *testing.T, cfg extractor.ServerConfig) *testBundle {
	t.Helper()
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 10 << 20
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 2
	}
	if cfg.QueueWait == 0 {
		cfg.QueueWait = 5 * time.Second
	}
	cfg.MaxTimeout, cfg.ToolMaxMemory, cfg.TempDir = time.Minute, 2<<30, sandboxReachable(t)
	// Every request's private directory is gone once the server has stopped (Close
	// waits for the requests in work).
	t.Cleanup(func() {
		if left, _ := os.ReadDir(cfg.TempDir); len(left) != 0 {
			t.Errorf("the extractor left %d entries in its temporary directory", len(left))
		}
	})
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(extractor.NewServer(cfg, slog.New(slog.DiscardHandler), reg).Handler())
	t.Cleanup(srv.Close)
	c, err := extractor.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &testBundle{client: c, reg: reg, url: srv.URL}
}

func needTools(t *testing.T) {
	t.Helper()
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var payslip = [][]string{
	{"Gehaltsabrechnung Januar 2026", "Arbeitgeber: Beispiel GmbH", "Nettobezug 3.250,00 EUR"},
	{"Gehaltsabrechnung Februar 2026", "Nettobezug 3.310,50 EUR"},
}

// A document parsed by the extractor service is exactly what the tools give in
// process: the pages, their words and boxes, the metadata; a page rendered there is the
// same PNG.
func TestRoundTripMatchesLocal(t *testing.T) {
	t.Parallel()
	needTools(t)
	b := setup(t, extractor.ServerConfig{})
	ctx := context.Background()
	opt := extract.Options{MaxPages: 10, MaxOCRPages: 5, Timeout: 30 * time.Second, Languages: "deu+eng", Limits: extract.Limits{MaxMemory: 1 << 30}}

	pdf := writeFile(t, "payslip.pdf", samplepdf.Text(payslip))
	word97, err := os.ReadFile("../extract/testdata/payslip.doc")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ path, declared string }{
		"pdf":        {pdf, extract.PDF},
		"doc":        {writeFile(t, "payslip.doc", word97), extract.DOC},
		"undeclared": {pdf, ""},
	} {
		remote, err := b.client.File(ctx, tc.path, tc.declared, opt)
		if err != nil {
			t.Fatalf("%s: remote: %v", name, err)
		}
		local, err := extractor.Local{}.File(ctx, tc.path, tc.declared, opt)
		if err != nil {
			t.Fatalf("%s: local: %v", name, err)
		}
		if !reflect.DeepEqual(remote, local) {
			t.Errorf("%s: remote result\n%+v\nlocal\n%+v", name, remote, local)
		}
	}
	res, _ := b.client.File(ctx, pdf, extract.PDF, opt)
	if res.PageCount != 2 || !strings.Contains(res.Pages[0].Text, "Nettobezug 3.250,00 EUR") || len(res.Pages[0].Words) < 5 {
		t.Errorf("remote result %+v", res)
	}

	renderCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := b.client.RenderPage(renderCtx, pdf, 2, 60, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := extractor.Local{}.RenderPage(renderCtx, pdf, 2, 60, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || !bytes.Equal(png, want) {
		t.Errorf("remote page: %d bytes, local %d", len(png), len(want))
	}
	metricstest.WaitFor(t, b.reg, 4, "doceval_extractor_requests_total", "operation", "extract", "outcome", "ok")
	metricstest.WaitFor(t, b.reg, 1, "doceval_extractor_requests_total", "operation", "render", "outcome", "ok")
}

// A refusal of the document comes back as the *extract.Failure the tools gave, code and
// message, so ingest fails the upload exactly as it would in process.
func TestFailureRoundTrip(t *testing.T) {
	t.Parallel()
	needTools(t)
	b := setup(t, extractor.ServerConfig{})
	ctx := context.Background()
	good := writeFile(t, "good.pdf", samplepdf.Text(payslip))
	encrypted := filepath.Join(t.TempDir(), "encrypted.pdf")
	if out, err := exec.Command("qpdf", "--encrypt", "user", "owner", "256", "--", good, encrypted).CombinedOutput(); err != nil {
		t.Skipf("qpdf: %v %s", err, out)
	}
	for name, tc := range map[string]struct {
		path, declared, code string
	}{
		"encrypted":      {encrypted, extract.PDF, extract.CodeEncrypted},
		"corrupt":        {writeFile(t, "corrupt.pdf", []byte("%PDF-1.4\nnot really\n")), extract.PDF, extract.CodeCorrupt},
		"mismatch":       {good, extract.DOCX, extract.CodeMismatch},
		"empty":          {writeFile(t, "empty", nil), extract.PDF, extract.CodeEmpty},
		"too many pages": {writeFile(t, "long.pdf", samplepdf.Text([][]string{{"a"}, {"b"}, {"c"}})), extract.PDF, extract.CodeTooMany},
	} {
		opt := extract.Options{MaxPages: 2, Timeout: 30 * time.Second}
		_, err := b.client.File(ctx, tc.path, tc.declared, opt)
		var remote *extract.Failure
		if !errors.As(err, &remote) || remote.Code != tc.code {
			t.Errorf("%s: remote error %v, want failure %s", name, err, tc.code)
			continue
		}
		_, err = extract.File(ctx, tc.path, tc.declared, opt)
		var local *extract.Failure
		if !errors.As(err, &local) || *local != *remote {
			t.Errorf("%s: remote failure %+v, local %v", name, remote, err)
		}
	}
	_, err := b.client.RenderPage(ctx, encrypted, 1, 60, extract.Limits{})
	var f *extract.Failure
	if !errors.As(err, &f) || f.Code != extract.CodeEncrypted {
		t.Errorf("rendering an encrypted PDF: %v", err)
	}
	_, err = b.client.RenderPage(ctx, good, 9, 60, extract.Limits{})
	if !errors.As(err, &f) || !strings.Contains(f.Message, "no page 9") {
		t.Errorf("rendering a page the PDF lacks: %v", err)
	}
	metricstest.WaitFor(t, b.reg, 5, "doceval_extractor_requests_total", "operation", "extract", "outcome", "refused")
}

// A body over the limit is refused with 413 before it is parsed, whether its length is
// declared or not; it is no refusal of the document (no *extract.Failure), since the
// limit is the deployment's.
func TestBodyLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, extractor.ServerConfig{MaxBodyBytes: 4096})
	big := writeFile(t, "big.pdf", append([]byte("%PDF-1.4\n"), make([]byte, 64<<10)...))
	_, err := b.client.File(context.Background(), big, extract.PDF, extract.Options{})
	var f *extract.Failure
	if err == nil || errors.As(err, &f) || !strings.Contains(err.Error(), "413") {
		t.Errorf("a document over the limit: %v, want a 413 error", err)
	}
	// Without a Content-Length the limit holds while the body is read.
	resp, err := http.Post(b.url+"/v1/extract", "application/octet-stream", io.MultiReader(bytes.NewReader(make([]byte, 64<<10))))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a chunked body over the limit: %s", resp.Status)
	}
	metricstest.WaitFor(t, b.reg, 2, "doceval_extractor_requests_total", "operation", "extract", "outcome", "too_large")
}

// With every slot taken for longer than the queue wait, a request is answered 503 and
// the client reports the extractor unavailable (the document was never looked at).
func TestBusyIsUnavailable(t *testing.T) {
	t.Parallel()
	b := setup(t, extractor.ServerConfig{Concurrency: 1, QueueWait: 100 * time.Millisecond})
	// A request whose body never ends holds the only slot.
	pr, pw := io.Pipe()
	defer pw.Close()
	held := make(chan struct{})
	go func() {
		defer close(held)
		if resp, err := http.Post(b.url+"/v1/extract", "application/octet-stream", pr); err == nil {
			resp.Body.Close()
		}
	}()
	if _, err := pw.Write([]byte("%PDF-1.4\n")); err != nil {
		t.Fatal(err)
	}
	// The bytes written say the request was sent, not that its handler runs: the slot is
	// held once the server counts it in flight.
	metricstest.WaitFor(t, b.reg, 1, "doceval_extractor_in_flight")
	_, err := b.client.File(context.Background(), writeFile(t, "a.pdf", samplepdf.Text(payslip)), extract.PDF, extract.Options{})
	if !errors.Is(err, extractor.ErrUnavailable) {
		t.Errorf("with every slot busy: %v, want ErrUnavailable", err)
	}
	pw.CloseWithError(errors.New("caller gone"))
	<-held
	metricstest.WaitFor(t, b.reg, 1, "doceval_extractor_requests_total", "operation", "extract", "outcome", "busy")
}

// An extractor that cannot be reached is unavailable, for Ready and for a document.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := extractor.NewClient("http://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ready(context.Background()); !errors.Is(err, extractor.ErrUnavailable) {
		t.Errorf("Ready: %v", err)
	}
	_, err = c.File(context.Background(), writeFile(t, "a.pdf", []byte("%PDF-1.4")), extract.PDF, extract.Options{})
	if !errors.Is(err, extractor.ErrUnavailable) {
		t.Errorf("File: %v", err)
	}
}

// Malformed requests are refused before any slot or byte is spent; the client refuses
// URLs it must not send documents to.
func TestRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t, extractor.ServerConfig{})
	for _, q := range []string{"/v1/render?page=0&dpi=100", "/v1/render?page=1&dpi=5000", "/v1/extract?timeout=-1s", "/v1/extract?max_pages=x",
		"/v1/extract?languages=deu%20-c%20x", "/v1/extract?languages=../../etc"} {
		resp, err := http.Post(b.url+q, "application/octet-stream", strings.NewReader("%PDF-1.4"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %s", q, resp.Status)
		}
	}
	for _, u := range []string{"", "ftp://x", "http://user:pw@x:8080", "extractor:8080"} {
		if _, err := extractor.New(extractor.Config{URL: u}); (err == nil) == (u != "") {
			t.Errorf("New(%q): %v", u, err)
		}
	}
	if p, _ := extractor.New(extractor.Config{}); reflect.TypeOf(p) != reflect.TypeOf(extractor.Local{}) {
		t.Errorf("no URL: %T, want the local parser", p)
	}
}

// A free slot is taken at once, even with no queue wait at all.
func TestFreeSlotWithoutQueueWait(t *testing.T) {
	t.Parallel()
	b := setup(t, extractor.ServerConfig{QueueWait: time.Nanosecond})
	path := writeFile(t, "a.pdf", []byte("%PDF-1.4"))
	for range 50 {
		_, err := b.client.File(context.Background(), path, extract.DOCX, extract.Options{})
		var f *extract.Failure
		if !errors.As(err, &f) || f.Code != extract.CodeMismatch {
			t.Fatalf("with a free slot: %v", err)
		}
	}
}

// sandboxReachable is a temporary directory the sandbox's user can reach (the tools run
// as another user when the tests run as root; t.TempDir's parent is private).
func sandboxReachable(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The extractor may be the compromised side: what its answers put into an upload (the
// failure the partner reads, the pages stored) is held to the contract and the limits.
func TestClientDistrustsTheExtractor(t *testing.T) {
	var answer func(w http.ResponseWriter)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		answer(w)
	}))
	defer srv.Close()
	c, err := extractor.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	doc := writeFile(t, "doc.pdf", []byte("%PDF-1.4\n"))
	file := func() error {
		_, err := c.File(context.Background(), doc, extract.PDF, extract.Options{MaxPages: 2})
		return err
	}
	refuse := func(code, message string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"code":"`+code+`","message":"`+message+`"}`)
		}
	}

	var f *extract.Failure
	answer = refuse("you_have_been_pwned", "see https://evil.example")
	if err := file(); err == nil || errors.As(err, &f) {
		t.Errorf("an unknown failure code: %v, want an error that is no document failure", err)
	}
	answer = refuse(extract.CodeCorrupt, strings.Repeat("é", 4000))
	if err := file(); !errors.As(err, &f) || f.Code != extract.CodeCorrupt || len(f.Message) > 500 || !strings.HasPrefix(f.Message, "éé") {
		t.Errorf("a long message: %v, want file_corrupt with at most 500 bytes of message", err)
	}
	answer = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"page_count":3,"pages":[{"number":1},{"number":2},{"number":3}]}`)
	}
	if err := file(); err == nil || errors.As(err, &f) {
		t.Errorf("3 pages where at most 2 were asked for: %v", err)
	}
}

// The client never follows a redirect: the document would go wherever it points.
func TestClientRefusesRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c, err := extractor.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.File(context.Background(), writeFile(t, "doc.pdf", []byte("%PDF-1.4\n")), extract.PDF, extract.Options{}); err == nil {
		t.Error("a redirect answered the document")
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
}
