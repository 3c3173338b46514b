package deploy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

const chaosSubmissions = 200

// TestChaos runs the api and the three workers with Toxiproxy between them and PostgreSQL and NATS,
// drives 200 submissions (uploads, evaluations, a signed webhook endpoint; some
// canceled and some deleted while their evaluation runs), and meanwhile adds latency,
// resets connections, cuts PostgreSQL for 30 s and NATS for 30 s. Every upload must end
// ready or failed and every evaluation end, no result may be written twice, every event
// must reach the endpoint, and no request may answer a 5xx other than 503 with
// retry-after. make chaos runs it (DOCEVAL_CHAOS=1).
func TestChaos(t *testing.T) {
	if os.Getenv("DOCEVAL_CHAOS") == "" {
		t.Skip("make chaos runs this (DOCEVAL_CHAOS=1)")
	}
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	setupAt := time.Now()
	bin := binaries(t)
	natsURL := natstest.URL(t) // one node, not clustered
	pool, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	c, _, apiKey, err := store.New(pool).CreateClient(ctx, "chaos", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}

	tox := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	db, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	pg := startToxic(t, tox, "postgres", db.Host)
	nt := startToxic(t, tox, "nats", strings.TrimPrefix(natsURL, "nats://"))
	db.Host = pg.Listen

	env := append(os.Environ(),
		"DATABASE_URL="+db.String(), "NATS_URL=nats://"+nt.Listen,
		"DOCEVAL_MIGRATE=false", "DOCEVAL_STREAM_REPLICAS=1", "DOCEVAL_LOG_LEVEL=info",
		"DOCEVAL_BLOB_URL=file://"+t.TempDir(), "DOCEVAL_SECRET_KEY="+secretbox.NewKey(),
		"DOCEVAL_RATE_LIMIT=100000", "DOCEVAL_RATE_LIMIT_BURST=100000",
		"DOCEVAL_INGEST_ACK_WAIT=5s", "DOCEVAL_EVALUATOR_ACK_WAIT=5s", "DOCEVAL_FANOUT_ACK_WAIT=5s",
		"DOCEVAL_INGEST_CONCURRENCY=4", "DOCEVAL_EVALUATOR_CONCURRENCY=4",
		"DOCEVAL_WEBHOOK_TIMEOUT=3s", "DOCEVAL_WEBHOOK_RETRY_SCHEDULE=1s,2s,5s,10s,15s,30s",
		"DOCEVAL_WEBHOOK_ALLOW_PRIVATE=true", "DOCEVAL_SHUTDOWN_TIMEOUT=10s",
	)
	// A failing run ends with what was stuck and why the test failed, after the services'
	// logs (cleanups run last-registered first), so a truncated output still shows it.
	var procs []*process
	var failures []string
	fatalf := func(format string, args ...any) {
		t.Helper()
		failures = append(failures, fmt.Sprintf(format, args...))
		t.Fatalf(format, args...)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		diagnose(t, pool, natsURL, false)
		logStuck(t, pool, procs, failures)
		for _, f := range failures {
			t.Logf("failed: %s", f)
		}
	})
	services := []string{"api", "ingest", "evaluator", "dispatcher"}
	ports := freePorts(t, len(services))
	var apiURL string
	for i, svc := range services {
		addr := "127.0.0.1:" + strconv.Itoa(ports[i])
		// Each service as its own database role (migration 00018), through the proxy.
		roleDB, err := url.Parse(dbtest.RoleURL(t, dbURL, svc))
		if err != nil {
			t.Fatal(err)
		}
		roleDB.Host = pg.Listen
		penv := slices.Concat(env, []string{"DATABASE_URL=" + roleDB.String(), "DOCEVAL_OPS_ADDR=" + addr})
		if svc == "api" {
			penv = append(penv, "DOCEVAL_HTTP_ADDR="+addr)
			apiURL = "http://" + addr
		}
		procs = append(procs, startProcess(t, svc, filepath.Join(bin, svc), nil, penv))
	}
	for _, port := range ports {
		waitReady(t, "http://127.0.0.1:"+strconv.Itoa(port))
	}
	t.Logf("ready after %s", time.Since(setupAt).Round(time.Millisecond))

	// The partner is patient (the SDK retries 503 and lost connections for about two
	// minutes); every answer it gets is counted.
	statuses := &statusCounter{counts: map[int]int{}}
	sdkClient, err := sdk.New(apiURL, apiKey,
		sdk.WithHTTPClient(&http.Client{Transport: statuses}),
		sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 80, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second}),
		sdk.WithTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	partners := &partner{clients: []*sdk.Client{sdkClient}, down: make([]atomic.Bool, 1)}
	recv := newReceiver()
	endpoint, err := partners.createEndpoint(ctx, httpServer(t, recv))
	if err != nil {
		t.Fatal(err)
	}
	recv.setSecret(endpoint)

	// The faults, one after the other, while the submissions run.
	faults := &faultLog{}
	started := make(chan struct{})
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		<-started
		time.Sleep(3 * time.Second)
		for _, p := range []*toxiproxy.Proxy{pg, nt} {
			addToxic(t, p, `{"name": "latency", "type": "latency", "stream": "downstream", "attributes": {"latency": 200, "jitter": 50}}`)
		}
		faults.add("200 ms latency on PostgreSQL and NATS for 15 s")
		time.Sleep(15 * time.Second)
		for _, p := range []*toxiproxy.Proxy{pg, nt} {
			if err := p.Toxics.RemoveToxic(ctx, "latency"); err != nil {
				t.Errorf("remove latency: %v", err)
			}
		}
		for range 3 {
			for _, p := range []*toxiproxy.Proxy{pg, nt} {
				p.Stop() // every open connection is reset
				if err := p.Start(); err != nil {
					t.Errorf("restart %s: %v", p.Name, err)
				}
			}
			faults.add("connections to PostgreSQL and NATS reset")
			time.Sleep(3 * time.Second)
		}
		for _, p := range []*toxiproxy.Proxy{pg, nt} {
			p.Stop()
			faults.add(p.Name + " cut for 30 s")
			time.Sleep(30 * time.Second)
			if err := p.Start(); err != nil {
				t.Errorf("restore %s: %v", p.Name, err)
			}
			faults.restored(p.Name)
			time.Sleep(5 * time.Second)
		}
	}()

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	begin := time.Now()
	var startOnce sync.Once
	var canceled, deleted atomic.Int64
	drv := &chaosDriver{c: sdkClient}
	for i := range chaosSubmissions {
		g.Go(func() error {
			startOnce.Do(func() { close(started) })
			mode := "complete"
			switch i % 10 {
			case 3:
				mode = "cancel" // canceled while its evaluation runs
			case 7:
				mode = "delete" // deleted while its evaluation runs
			}
			if err := drv.run(gctx, i, mode); err != nil {
				return fmt.Errorf("submission %d (%s): %w", i, mode, err)
			}
			switch mode {
			case "cancel":
				canceled.Add(1)
			case "delete":
				deleted.Add(1)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		fatalf("after faults %v: %v", faults.list(), err)
	}
	driven := time.Since(begin)
	<-faultsDone
	t.Logf("%d submissions driven in %s (%d canceled and %d deleted while evaluating)", chaosSubmissions, driven.Round(time.Millisecond), canceled.Load(), deleted.Load())

	// Nothing stays in flight: every upload ready or failed, every evaluation ended, the
	// outbox empty.
	if err := waitUntil(3*time.Minute, func() error {
		var processing, active, outbox int
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM uploads WHERE upload_status = 'processing'),
			(SELECT count(*) FROM evaluations WHERE status IN ('queued', 'running')), (SELECT count(*) FROM outbox)`).Scan(&processing, &active, &outbox); err != nil {
			return err
		}
		if processing+active+outbox > 0 {
			return fmt.Errorf("%d uploads processing, %d evaluations active, %d outbox rows", processing, active, outbox)
		}
		return nil
	}); err != nil {
		fatalf("stuck after the faults: %v", err)
	}
	settled := time.Since(begin)

	// The slowest uploads: how long the faults held a document back.
	var slowest []string
	rows, err := pool.Query(ctx, `SELECT id::text, updated_at - created_at, ingest_attempts FROM uploads
		WHERE api_client_id = $1 AND upload_status = 'ready' ORDER BY 2 DESC LIMIT 3`, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var took time.Duration
		var attempts int
		if err := rows.Scan(&id, &took, &attempts); err != nil {
			t.Fatal(err)
		}
		slowest = append(slowest, id)
		t.Logf("slow upload %s: ready after %s, %d attempts", id, took.Round(time.Millisecond), attempts)
	}
	rows.Close()
	if os.Getenv("DOCEVAL_CHAOS_VERBOSE") != "" {
		logNaming(t, procs, slowest)
	}

	// No result written twice.
	rows, err = pool.Query(ctx, `SELECT type, coalesce(envelope::jsonb->'data'->'upload'->>'id', envelope::jsonb->'data'->'evaluation'->>'id'), count(*)
		FROM events WHERE api_client_id = $1 AND type IN ('file.ready', 'file.failed', 'evaluation.started', 'evaluation.completed', 'evaluation.failed', 'evaluation.canceled')
		GROUP BY 1, 2 HAVING count(*) > 1`, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var typ, object string
		var n int
		if err := rows.Scan(&typ, &object, &n); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s written %d times for %s", typ, n, object)
	}
	rows.Close()

	// Every event reached the endpoint.
	var eventIDs []string
	if err := pgxCollect(ctx, pool, "SELECT envelope::jsonb->>'id' FROM events WHERE api_client_id = $1", c.ID, &eventIDs); err != nil {
		t.Fatal(err)
	}
	var missing int
	if err := waitUntil(3*time.Minute, func() error {
		received, _ := recv.snapshot()
		missing = 0
		for _, id := range eventIDs {
			if received[id] == 0 {
				missing++
			}
		}
		if missing > 0 {
			return fmt.Errorf("%d of %d events not delivered", missing, len(eventIDs))
		}
		return nil
	}); err != nil {
		fatalf("%v", err)
	}
	if _, rejected := recv.snapshot(); rejected > 0 {
		t.Errorf("%d deliveries failed signature verification", rejected)
	}

	// No 5xx but 503 with retry-after.
	counts, requests, withoutRetryAfter, transport := statuses.snapshot()
	for status, n := range counts {
		if status >= 500 && status != http.StatusServiceUnavailable {
			t.Errorf("%d answers with status %d", n, status)
		}
	}
	if withoutRetryAfter > 0 {
		t.Errorf("%d 503 answers without retry-after", withoutRetryAfter)
	}
	t.Logf("requests %d (by status %v, %d transport errors retried by the SDK); faults %d: %s", requests, counts, transport, len(faults.list()), strings.Join(faults.list(), "; "))
	t.Logf("events %d, all delivered; everything settled %s after the start; recovery after each cut: %s", len(eventIDs), settled.Round(time.Millisecond), faults.recovery(ctx, pool))
}

// chaosDriver is a partner that keeps going through faults: every step is repeated
// while the answer says to retry (503, a lost connection), and every step is safe to
// repeat (external ids, a look at the latest evaluation before starting one).
type chaosDriver struct{ c *sdk.Client }

// patiently runs f until it succeeds, fails for good, or three minutes pass.
func patiently(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := f()
		var apiErr *sdk.Error
		retry := err != nil && (!errors.As(err, &apiErr) || apiErr.StatusCode >= 500 || apiErr.StatusCode == http.StatusTooManyRequests)
		if !retry || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// run drives submission i: documents, their processing, an evaluation, and then
// (mode) its end, a cancel while it runs, or the submission's deletion.
func (d *chaosDriver) run(ctx context.Context, i int, mode string) error {
	var sub *client.Submission
	if err := patiently(ctx, func() (err error) {
		sub, err = d.c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: fmt.Sprintf("chaos-%03d", i)})
		return err
	}); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	for k, doc := range sampleDocuments(i) {
		var up *client.Upload
		if err := patiently(ctx, func() (err error) {
			up, err = d.c.UploadFile(ctx, sub.Id, sdk.UploadParams{
				ExternalFileID: fmt.Sprintf("doc-%d", k), Filename: fmt.Sprintf("doc-%d.pdf", k),
				ContentType: "application/pdf", Body: bytes.NewReader(doc),
			})
			return err
		}); err != nil {
			return fmt.Errorf("upload %d: %w", k, err)
		}
		if err := patiently(ctx, func() error {
			got, err := d.c.GetUpload(ctx, sub.Id, up.Id)
			switch {
			case err != nil:
				return err
			case got.UploadStatus == client.UploadStatusProcessing:
				return &sdk.Error{StatusCode: http.StatusServiceUnavailable, Code: "still processing"}
			case got.UploadStatus != client.UploadStatusReady:
				return fmt.Errorf("upload %s is %s", up.Id, got.UploadStatus)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("upload %d ready: %w", k, err)
		}
	}
	var ev *client.Evaluation
	if err := patiently(ctx, func() error {
		detail, err := d.c.GetSubmission(ctx, sub.Id)
		if err != nil {
			return err
		}
		if ev = detail.LatestEvaluation; ev != nil {
			return nil // an earlier try started it and lost the answer
		}
		ev, err = d.c.StartEvaluation(ctx, sub.Id)
		if sdk.IsConflict(err) {
			return &sdk.Error{StatusCode: http.StatusServiceUnavailable, Code: "look again"}
		}
		return err
	}); err != nil {
		return fmt.Errorf("start evaluation: %w", err)
	}
	switch mode {
	case "cancel":
		return patiently(ctx, func() error {
			_, err := d.c.CancelSubmission(ctx, sub.Id)
			if sdk.IsConflict(err) { // completed before the cancel arrived
				return nil
			}
			return err
		})
	case "delete":
		return patiently(ctx, func() error {
			res, err := d.c.API().DeleteSubmissionWithResponse(ctx, sub.Id)
			switch {
			case err != nil:
				return err
			case res.StatusCode() == http.StatusConflict || res.StatusCode() < 300: // purging already, or now
				return nil
			}
			return &sdk.Error{StatusCode: res.StatusCode(), Message: string(res.Body)}
		})
	}
	return patiently(ctx, func() error {
		got, err := d.c.GetEvaluation(ctx, sub.Id, ev.Id)
		switch {
		case err != nil:
			return err
		case got.Status == client.EvaluationStatusQueued || got.Status == client.EvaluationStatusRunning:
			return &sdk.Error{StatusCode: http.StatusServiceUnavailable, Code: "still running"}
		case got.Status != client.EvaluationStatusCompleted:
			return fmt.Errorf("evaluation %s ended %s", ev.Id, got.Status)
		}
		return nil
	})
}

// startToxic starts a Toxiproxy proxy on a free loopback port in front of upstream.
func startToxic(t *testing.T, server *toxiproxy.ApiServer, name, upstream string) *toxiproxy.Proxy {
	t.Helper()
	p := toxiproxy.NewProxy(server, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

func addToxic(t *testing.T, p *toxiproxy.Proxy, spec string) {
	if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
		t.Errorf("toxic on %s: %v", p.Name, err)
	}
}

// statusCounter is the partner's transport: it counts every answer by status, the 503s
// without retry-after, and the requests that got no answer.
type statusCounter struct {
	mu                sync.Mutex
	counts            map[int]int
	requests          int
	withoutRetryAfter int
	transportErrors   int
}

func (s *statusCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if err != nil {
		s.transportErrors++
		return nil, err
	}
	s.counts[res.StatusCode]++
	if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("retry-after") == "" {
		s.withoutRetryAfter++
	}
	return res, nil
}

func (s *statusCounter) snapshot() (counts map[int]int, requests, withoutRetryAfter, transportErrors int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts = map[int]int{}
	for k, v := range s.counts {
		counts[k] = v
	}
	return counts, s.requests, s.withoutRetryAfter, s.transportErrors
}

// faultLog records the faults injected and when each cut ended.
type faultLog struct {
	mu      sync.Mutex
	entries []string
	ends    map[string]time.Time
}

func (f *faultLog) add(what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries = append(f.entries, what)
}

func (f *faultLog) restored(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ends == nil {
		f.ends = map[string]time.Time{}
	}
	f.ends[name] = time.Now()
}

func (f *faultLog) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.entries...)
}

// recovery is, for each cut, how long after it ended the first evaluation completed.
func (f *faultLog) recovery(ctx context.Context, pool *pgxpool.Pool) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var parts []string
	for name, end := range f.ends {
		var first *time.Time
		_ = pool.QueryRow(ctx, "SELECT min(created_at) FROM events WHERE type = 'evaluation.completed' AND created_at > $1", end).Scan(&first)
		if first == nil {
			parts = append(parts, name+": no evaluation completed after it")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", name, first.Sub(end).Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

func pgxCollect(ctx context.Context, pool *pgxpool.Pool, sql string, arg any, out *[]string) error {
	rows, err := pool.Query(ctx, sql, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*out = append(*out, s)
	}
	return rows.Err()
}
