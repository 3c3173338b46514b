package ingest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/blobkey"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/ingest"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

type env struct {
	t      testing.TB
	st     *store.Store
	blobs  *blob.Store
	common config.Common
	tenant store.Tenant
	sub    submission.Submission
	// blobDir is where the file blob store keeps its objects (a key is a path under it).
	blobDir string
}

func newEnv(t testing.TB) *env {
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	pool, dbURL := dbtest.NewWithURL(t)
	st := store.New(pool)
	blobDir := t.TempDir()
	blobURL := blob.FileURL(blobDir)
	blobs, err := blob.Open(context.Background(), blobURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	c, _, _, err := st.CreateClient(context.Background(), "ingest-test", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(c.ID)
	sub, _, err := tenant.CreateSubmission(context.Background(), submission.New{ExternalID: "s", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	// The worker connects as ingest's database role (migration 00018): a query it is not
	// granted fails the test. The test's own fixtures use the owner (st).
	return &env{t: t, st: st, blobs: blobs, tenant: tenant, sub: sub, blobDir: blobDir, common: config.Common{
		DatabaseURL: dbtest.RoleURL(t, dbURL, "ingest"), NatsURL: natstest.URL(t), LogLevel: slog.LevelInfo, Migrate: false, StreamReplicas: 1,
		OpsAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second, OutboxRelay: true, BlobURL: blobURL,
	}}
}

// upload stores bytes and records the upload as the API does.
func (e *env) upload(externalID, contentType string, body []byte) uuid.UUID {
	e.t.Helper()
	ctx := context.Background()
	fileID := uuid.New()
	key := blobkey.UploadFile(e.sub.ClientID, e.sub.ID, fileID)
	w, err := e.blobs.Writer(ctx, key, contentType)
	if err != nil {
		e.t.Fatal(err)
	}
	w.Write(body)
	if err := w.Close(); err != nil {
		e.t.Fatal(err)
	}
	u, _, err := e.tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: e.sub.ID, ExternalFileID: externalID, FileID: fileID, Filename: externalID,
		ContentType: contentType, Size: int64(len(body)), SHA256: []byte{1}, BlobKey: key,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

// worker runs doceval-ingest (relay, consumers, and extra builds) until the test ends or
// stop is called.
func (e *env) worker(cfg ingest.Config, extra ...service.Build) (stop func()) {
	return e.workerWith(e.common, cfg, extra...)
}

// workerWith is worker with its own common settings (another database URL).
func (e *env) workerWith(common config.Common, cfg ingest.Config, extra ...service.Build) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	builds := append([]service.Build{ingest.Build(cfg, log)}, extra...)
	go func() { done <- service.RunWorker(ctx, "ingest", common, log, builds...) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				e.t.Errorf("worker: %v", err)
			}
		case <-time.After(30 * time.Second):
			e.t.Error("worker did not stop")
		}
	}
	e.t.Cleanup(stop)
	return stop
}

// relayOnly runs a service with the outbox relay and no consumers.
func (e *env) relayOnly() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- service.RunWorker(ctx, "relay", e.common, slog.New(slog.DiscardHandler)) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

func (e *env) waitStatus(id uuid.UUID, timeout time.Duration) submission.Upload {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		u, err := e.tenant.Upload(context.Background(), e.sub.ID, id)
		if err != nil {
			e.t.Fatal(err)
		}
		if u.Status != submission.UploadProcessing {
			return u
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("upload %s still processing after %v", id, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) count(sql string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.st.Pool().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

var cfg = ingest.Config{MaxPages: 50, FileTimeout: 30 * time.Second, Concurrency: 2, MaxAttempts: 5, Languages: "deu+eng", AckWait: 2 * time.Second}

func TestIngestEndToEnd(t *testing.T) {
	e := newEnv(t)
	good := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung Januar 2026", "Nettobezug 3.250,00 EUR"))
	corrupt := e.upload("corrupt", extract.PDF, []byte("%PDF-1.4\nnot really\n"))
	bomb := e.upload("bomb", extract.DOCX, zipBomb(t))
	after := e.upload("after", extract.PDF, textPDF("Kontoauszug", "Saldo 12.000,00 EUR"))
	word97, err := os.ReadFile("../extract/testdata/payslip.doc")
	if err != nil {
		t.Fatal(err)
	}
	legacy := e.upload("legacy", extract.DOC, word97)
	runtimes := make(chan *service.Runtime, 1)
	e.worker(cfg, func(_ context.Context, rt *service.Runtime) ([]service.Loop, error) { runtimes <- rt; return nil, nil })
	metrics := (<-runtimes).Registry

	for id, want := range map[uuid.UUID]string{good: "", corrupt: extract.CodeCorrupt, bomb: extract.CodeCorrupt, after: "", legacy: ""} {
		u := e.waitStatus(id, 60*time.Second)
		switch {
		case want == "" && u.Status != submission.UploadReady:
			t.Errorf("%s: %s %+v, want ready", u.ExternalFileID, u.Status, u.Failure)
		case want != "" && (u.Status != submission.UploadFailed || u.Failure == nil || u.Failure.Code != want):
			t.Errorf("%s: %s %+v, want failed %s", u.ExternalFileID, u.Status, u.Failure, want)
		}
	}
	if n := e.count("SELECT count(*) FROM upload_pages WHERE upload_id = $1 AND text LIKE '%Nettobezug 3.250,00 EUR%'", good); n != 1 {
		t.Errorf("pages of the payslip: %d", n)
	}
	if n := e.count("SELECT count(*) FROM upload_pages WHERE upload_id = $1 AND text LIKE '%Mitarbeiter: Jürgen Müller%'", legacy); n != 1 {
		t.Errorf("pages of the Word 97 payslip: %d", n)
	}
	if n := e.count("SELECT count(*) FROM events WHERE type = 'file.ready'"); n != 3 {
		t.Errorf("%d file.ready events, want 3", n)
	}
	if n := e.count("SELECT count(*) FROM events WHERE type = 'file.failed'"); n != 2 {
		t.Errorf("%d file.failed events, want 2", n)
	}

	// The worker's metrics: each upload timed by its outcome, the pages counted, each
	// job acknowledged once, and the consumers' backlog read from JetStream.
	metricstest.WaitFor(t, metrics, 3, "doceval_ingest_duration_seconds", "outcome", "ready")
	metricstest.WaitFor(t, metrics, 2, "doceval_ingest_duration_seconds", "outcome", "failed")
	metricstest.WaitFor(t, metrics, 5, "doceval_jetstream_messages_total", "consumer", "ingest", "outcome", "ack")
	metricstest.WaitFor(t, metrics, 0, "doceval_jetstream_messages_total", "consumer", "ingest", "outcome", "retry")
	if pages, _ := metricstest.Value(t, metrics, "doceval_ingest_pages_total", "source", "text"); pages < 3 {
		t.Errorf("%v text pages counted, want at least one per ready upload", pages)
	}
	for _, consumer := range []string{"ingest", "purge"} {
		metricstest.WaitFor(t, metrics, 0, "doceval_jetstream_consumer_pending_messages", "stream", messaging.JobsStream, "consumer", consumer)
	}
}

// A worker that dies holding a job (no ack) loses nothing: after AckWait the job goes
// to the restarted worker and the upload still ends ready.
func TestIngestWorkerKilledMidFile(t *testing.T) {
	e := newEnv(t)
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))

	// A process with only the outbox relay publishes the job; a consumer takes it and
	// dies without acknowledging it.
	e.relayOnly()
	nc, err := nats.Connect(e.common.NatsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	var cons jetstream.Consumer
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) { // the streams appear when the relay starts
		// The consumer of the client's queue the worker uses.
		cons, err = js.CreateOrUpdateConsumer(ctx, messaging.QueuesStream, ingest.IngestQueue(cfg).ClientConsumer(e.sub.ClientID))
		if err == nil {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatal(err)
		}
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for range batch.Messages() {
		taken++ // and never acknowledged: the worker was killed
	}
	if taken != 1 {
		t.Fatalf("the dying worker took %d jobs", taken)
	}
	if u := e.waitStatusNow(id); u.Status != submission.UploadProcessing {
		t.Fatalf("status %s before the restart", u.Status)
	}
	e.worker(cfg) // the restarted ingest
	if u := e.waitStatus(id, 60*time.Second); u.Status != submission.UploadReady {
		t.Fatalf("after restart: %s %+v", u.Status, u.Failure)
	}
	if n := e.count("SELECT count(*) FROM events WHERE type = 'file.ready'"); n != 1 {
		t.Errorf("%d file.ready events, want 1", n)
	}
}

func (e *env) waitStatusNow(id uuid.UUID) submission.Upload {
	u, err := e.tenant.Upload(context.Background(), e.sub.ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// A deleted submission is purged by the worker: bytes, uploads, pages, slots; events stay.
// An upload whose stored bytes are gone ends failed instead of staying processing.
func TestIngestMissingBytes(t *testing.T) {
	e := newEnv(t)
	id := e.upload("gone", extract.PDF, textPDF("x"))
	u := e.waitStatusNow(id)
	if err := e.blobs.Delete(context.Background(), u.BlobKey); err != nil {
		t.Fatal(err)
	}
	e.worker(cfg)
	if got := e.waitStatus(id, 30*time.Second); got.Status != submission.UploadFailed || got.Failure.Code != "processing_error" {
		t.Errorf("%s %+v", got.Status, got.Failure)
	}
}

func TestPurge(t *testing.T) {
	e := newEnv(t)
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))
	e.worker(cfg)
	e.waitStatus(id, 60*time.Second)
	// An orphan under the submission's prefix (bytes whose row was never written).
	w, _ := e.blobs.Writer(context.Background(), blobkey.Submission(e.sub.ClientID, e.sub.ID)+"orphan", "application/pdf")
	w.Write([]byte("%PDF-"))
	w.Close()
	if err := e.tenant.DeleteSubmission(context.Background(), e.sub.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.count("SELECT count(*) FROM submissions WHERE id = $1", e.sub.ID) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("submission not purged")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := e.count("SELECT count(*) FROM uploads") + e.count("SELECT count(*) FROM upload_pages") + e.count("SELECT count(*) FROM document_slots"); n != 0 {
		t.Errorf("%d rows left", n)
	}
	if n := e.count("SELECT count(*) FROM events WHERE submission_id = $1", e.sub.ID); n == 0 {
		t.Error("events were purged too")
	}
	stray := blobkey.Submission(e.sub.ClientID, e.sub.ID) + "orphan"
	if ok, _ := e.blobs.Exists(context.Background(), stray); ok {
		t.Error("an orphan outlived the purge")
	}
}

// Deleting an upload removes its bytes through a job the delete's transaction enqueues:
// the job waits in the outbox if no worker runs, and is retried until the blob store
// lets it remove them.
func TestDeletedUploadBytesAreRemoved(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung"))
	u, err := e.tenant.Upload(ctx, e.sub.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.blobDir, filepath.FromSlash(u.BlobKey))
	// A page the console rendered and cached goes with the upload.
	rendered := blobkey.RenderedPages(e.sub.ClientID, e.sub.ID, id) + "1-110.png"
	w, err := e.blobs.Writer(ctx, rendered, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("png")); err != nil || w.Close() != nil {
		t.Fatal(err)
	}
	// The store refuses the delete for now: where the object was sits a non-empty
	// directory (a stand-in for a storage outage).
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "obstacle"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.tenant.DeleteUpload(ctx, e.sub.ID, id); err != nil {
		t.Fatal(err)
	}
	if n := e.count("SELECT count(*) FROM outbox WHERE subject = $1", "doceval.jobs.blob-delete"); n != 1 {
		t.Fatalf("%d blob-delete jobs in the outbox, want 1 (written with the delete)", n)
	}
	e.worker(cfg)
	time.Sleep(3 * time.Second) // a few failed deliveries
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the obstacle is gone before the store allowed it: %v", err)
	}
	if err := os.Remove(filepath.Join(path, "obstacle")); err != nil { // the outage ends
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			if ok, _ := e.blobs.Exists(ctx, rendered); !ok {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the deleted upload's bytes (or its rendered pages) were never removed")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// textPDF is a one-page PDF with the given lines.
func textPDF(lines ...string) []byte { return samplepdf.Text([][]string{lines}) }

func zipBomb(t *testing.T) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("_rels/.rels")
	w.Write([]byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`))
	w, _ = z.Create("word/document.xml")
	zeros := make([]byte, 1<<20)
	for range 256 {
		w.Write(zeros)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Page geometry survives the round trip: the words and page size ingest stores are the
// ones the evaluator reads back (boxes rounded to four decimals), and a page without
// geometry (a Word 97 file) reads back with nil words.
func TestIngestPageGeometryRoundTrip(t *testing.T) {
	e := newEnv(t)
	body := textPDF("Gehaltsabrechnung Januar 2026", "Name: Max Müller    Netto 3.250,00 EUR")
	pdfID := e.upload("payslip", extract.PDF, body)
	word97, err := os.ReadFile("../extract/testdata/payslip.doc")
	if err != nil {
		t.Fatal(err)
	}
	docID := e.upload("legacy", extract.DOC, word97)
	stop := e.worker(cfg)
	for _, id := range []uuid.UUID{pdfID, docID} {
		if u := e.waitStatus(id, 60*time.Second); u.Status != submission.UploadReady {
			t.Fatalf("%s: %s %+v", u.ExternalFileID, u.Status, u.Failure)
		}
	}
	stop()

	ctx := context.Background()
	ev, err := e.tenant.StartEvaluation(ctx, e.sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.st.BeginEvaluation(ctx, ev.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	want, err := extract.File(ctx, writeFile(t, body), extract.PDF, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range run.Inputs {
		switch d.Upload.ID {
		case docID:
			for _, p := range d.Pages {
				if p.Words != nil || p.Width != 0 {
					t.Errorf("DOC page %d: %vx%v, %d words, want no geometry", p.Number, p.Width, p.Height, len(p.Words))
				}
			}
		case pdfID:
			if len(d.Pages) != 1 {
				t.Fatalf("%d pages", len(d.Pages))
			}
			got, wantPage := d.Pages[0], want.Pages[0]
			if got.Width != 612 || got.Height != 792 || len(got.Words) != len(wantPage.Words) || len(got.Words) < 8 {
				t.Fatalf("page %vx%v with %d words, want 612x792 with %d", got.Width, got.Height, len(got.Words), len(wantPage.Words))
			}
			for i, w := range got.Words {
				x := wantPage.Words[i]
				near := func(a, b float64) bool { return math.Abs(a-b) <= 0.00005+1e-12 }
				if w.Text != x.Text || w.Block != x.Block || w.Line != x.Line || w.Conf != x.Conf ||
					!near(w.Box.X0, x.Box.X0) || !near(w.Box.Y0, x.Box.Y0) || !near(w.Box.X1, x.Box.X1) || !near(w.Box.Y1, x.Box.Y1) {
					t.Errorf("word %d: stored %+v, extracted %+v", i, w, x)
				}
				if !strings.Contains(got.Text, w.Text) {
					t.Errorf("word %q not in the page text", w.Text)
				}
			}
		default:
			t.Errorf("unexpected document %s", d.Upload.ID)
		}
	}
	if len(run.Inputs) != 2 {
		t.Errorf("%d documents", len(run.Inputs))
	}
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := t.TempDir() + "/f"
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A job whose message was lost (here: its outbox row removed before the relay saw it)
// is enqueued again by the reconciler once nothing can still be in flight, and the
// upload ends ready instead of staying processing.
func TestLostIngestJobIsReconciled(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))
	if _, err := e.st.Pool().Exec(ctx, "DELETE FROM outbox WHERE starts_with(subject, $1)", jobs.QueueSubjectPrefix+jobs.IngestQueue); err != nil {
		t.Fatal(err)
	}
	e.worker(cfg)
	again := e.reconcileOne("ingest", (*ingest.Worker).ReconcileOnce)
	if u := e.waitStatus(id, 60*time.Second); u.Status != submission.UploadReady {
		t.Fatalf("after reconciling: %s %+v", u.Status, u.Failure)
	}
	if n := again(); n != 0 {
		t.Errorf("a ready upload was enqueued again (%d)", n)
	}
}

// A database outage while a job is delivered again and again does not use up its
// attempts: with a budget of 2, the job survives 4+ deliveries that cannot reach the
// database, and the upload ends ready once the database is back.
func TestIngestOutageKeepsTheJob(t *testing.T) {
	e := newEnv(t)
	proxy := newCutProxy(t, e.common.DatabaseURL)
	e.relayOnly() // publishes straight to NATS, on the real database
	workerCommon := e.common
	workerCommon.DatabaseURL, workerCommon.OutboxRelay = proxy.url, false
	budget := cfg
	budget.MaxAttempts = 2
	e.workerWith(workerCommon, budget)
	warm := e.upload("warm-up", extract.PDF, textPDF("Kontoauszug", "Kontostand 1.000,00 EUR"))
	if u := e.waitStatus(warm, 60*time.Second); u.Status != submission.UploadReady {
		t.Fatalf("warm-up: %s", u.Status)
	}

	proxy.cut()
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))
	time.Sleep(9 * time.Second) // deliveries at about 0, 1, 3 and 7 s all fail
	if u := e.waitStatusNow(id); u.Status != submission.UploadProcessing {
		t.Fatalf("during the outage: %s", u.Status)
	}
	proxy.restore()
	if u := e.waitStatus(id, 90*time.Second); u.Status != submission.UploadReady {
		t.Fatalf("after the outage: %s %+v", u.Status, u.Failure)
	}
	var attempts int
	if err := e.st.Pool().QueryRow(context.Background(), "SELECT ingest_attempts FROM uploads WHERE id = $1", id).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	if attempts != 1 {
		t.Errorf("%d attempts counted, want 1 (the deliveries during the outage never reached the file)", attempts)
	}
}

// cutProxy forwards TCP connections to a database and can cut them all (an outage):
// while cut, open connections are closed and new ones refused at once.
type cutProxy struct {
	url   string
	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func newCutProxy(t *testing.T, dbURL string) *cutProxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	u.Host = ln.Addr().String()
	p := &cutProxy{url: u.String(), conns: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			down := p.down
			p.mu.Unlock()
			if down {
				c.Close()
				continue
			}
			go p.pipe(c, target)
		}
	}()
	return p
}

func (p *cutProxy) pipe(c net.Conn, target string) {
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// One client flooding the queue has the worker's slots only until another client has
// work: that client's single upload, enqueued behind the flood, is taken at the next
// free slot and is ready while most of the flood still waits. No per-client cap is set.
func TestIngestIsFairAcrossClients(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const flood = 12
	slow := samplepdf.Blank(5) // five pages of OCR each
	var floodIDs []uuid.UUID
	for i := range flood {
		floodIDs = append(floodIDs, e.upload("flood-"+strconv.Itoa(i), extract.PDF, slow))
	}
	other, _, _, err := e.st.CreateClient(ctx, "other", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	otherEnv := *e
	otherEnv.tenant = e.st.Tenant(other.ID)
	otherEnv.sub, _, err = otherEnv.tenant.CreateSubmission(ctx, submission.New{ExternalID: "o", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	single := otherEnv.upload("single", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))

	fair := cfg
	fair.Concurrency = 2
	e.worker(fair)
	if u := otherEnv.waitStatus(single, 60*time.Second); u.Status != submission.UploadReady {
		t.Fatalf("the other client's upload: %s", u.Status)
	}
	waiting := 0
	for _, id := range floodIDs {
		if e.waitStatusNow(id).Status == submission.UploadProcessing {
			waiting++
		}
	}
	if waiting < flood/2 {
		t.Errorf("only %d of the flood's %d uploads were still waiting when the other client's was ready: it waited behind them", waiting, flood)
	}
	t.Logf("when the other client's upload was ready, %d of %d flood uploads were still processing", waiting, flood)
}

// A disabled client's files are not parsed: the job is set aside (no attempt counted),
// the reconciler leaves it alone as no lost job, and enabling the client enqueues it
// again, after which the upload ends ready.
func TestIngestHeldWhileClientDisabled(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.st.SetClientDisabled(ctx, e.sub.ClientID, true); err != nil {
		t.Fatal(err)
	}
	id := e.upload("payslip", extract.PDF, textPDF("Gehaltsabrechnung", "Nettobezug 2.000,00 EUR"))
	e.worker(cfg)
	deadline := time.Now().Add(30 * time.Second)
	for e.count("SELECT count(*) FROM uploads WHERE id = $1 AND held_at IS NOT NULL", id) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the job of a disabled client was not set aside")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := e.count("SELECT ingest_attempts FROM uploads WHERE id = $1", id); n != 0 {
		t.Errorf("%d ingest attempts counted while held", n)
	}
	if u := e.waitStatusNow(id); u.Status != submission.UploadProcessing {
		t.Errorf("held upload %s, want processing", u.Status)
	}
	nc, err := nats.Connect(e.common.NatsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	w := &ingest.Worker{Store: e.st, Blobs: e.blobs, Log: slog.New(slog.DiscardHandler), Cfg: cfg}
	if n, err := w.ReconcileOnce(ctx, js, 0); err != nil || n != 0 {
		t.Errorf("reconciled %d (%v): a held job is not lost", n, err)
	}

	if _, err := e.st.SetClientDisabled(ctx, e.sub.ClientID, false); err != nil {
		t.Fatal(err)
	}
	if u := e.waitStatus(id, 60*time.Second); u.Status != submission.UploadReady {
		t.Fatalf("after the enable: %s %+v", u.Status, u.Failure)
	}
}

// reconcileOne runs a reconciler (its age 0) until it enqueues exactly one lost job
// again, while the running worker's consumer is being created (until then the
// reconciler cannot tell whether the job is in flight). again runs it once more and
// says how many it enqueued.
func (e *env) reconcileOne(what string, once func(*ingest.Worker, context.Context, jetstream.JetStream, time.Duration) (int, error)) (again func() int) {
	e.t.Helper()
	nc, err := nats.Connect(e.common.NatsURL)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	w := &ingest.Worker{Store: e.st, Blobs: e.blobs, Log: slog.New(slog.DiscardHandler), Cfg: cfg}
	again = func() int {
		n, _ := once(w, context.Background(), js, 0)
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := once(w, context.Background(), js, 0)
		if err == nil && n == 1 {
			return again
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the lost %s job was not enqueued again: %d, %v", what, n, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
