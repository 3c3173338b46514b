package deploy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/webhook"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

const (
	replicaSubmissions   = 200
	uploadsPerSubmission = 2
)

// Two processes of every service against one PostgreSQL and a three-node JetStream
// cluster (streams with three replicas), driven by 200 partners' submissions; halfway
// through, one process of each service and one NATS node are killed with SIGKILL. Every
// evaluation must complete, every event must reach the webhook endpoint, and no job's
// result may be produced twice (one file.ready per upload, one evaluation.started and
// one evaluation.completed per evaluation).
func TestMultiReplicaKill(t *testing.T) {
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	setupAt := time.Now()
	bin := binaries(t)
	t.Logf("built in %s", time.Since(setupAt).Round(time.Millisecond))
	natsNodes, natsURL := natsCluster(t, bin, 3)
	pool, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	_, _, apiKey, err := store.New(pool).CreateClient(ctx, "replicas", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}

	env := append(os.Environ(),
		"DATABASE_URL="+dbURL, "NATS_URL="+natsURL,
		"DOCEVAL_MIGRATE=false", // the test database is cloned from a migrated template
		"DOCEVAL_STREAM_REPLICAS=3",
		"DOCEVAL_LOG_LEVEL=info",
		"DOCEVAL_BLOB_URL=file://"+t.TempDir(),
		"DOCEVAL_SECRET_KEY="+secretbox.NewKey(),
		"DOCEVAL_RATE_LIMIT=100000", "DOCEVAL_RATE_LIMIT_BURST=100000",
		// A killed worker's messages come back after these, instead of the production
		// defaults of minutes.
		"DOCEVAL_INGEST_ACK_WAIT=3s", "DOCEVAL_EVALUATOR_ACK_WAIT=3s", "DOCEVAL_FANOUT_ACK_WAIT=3s",
		"DOCEVAL_WEBHOOK_TIMEOUT=3s", "DOCEVAL_WEBHOOK_RETRY_SCHEDULE=1s,1s,2s,2s,5s,5s",
		"DOCEVAL_WEBHOOK_ALLOW_PRIVATE=true", // the receiver is on loopback
		"DOCEVAL_SHUTDOWN_TIMEOUT=10s",
	)
	services := []string{"api", "ingest", "evaluator", "dispatcher"}
	ports := freePorts(t, 2*len(services))
	procs := map[string][]*process{}
	var apiURLs []string
	for i, svc := range services {
		for r := range 2 {
			addr := "127.0.0.1:" + strconv.Itoa(ports[2*i+r])
			// Each service as its own database role (migration 00018), as in production.
			penv := slices.Concat(env, []string{"DATABASE_URL=" + dbtest.RoleURL(t, dbURL, svc), "DOCEVAL_OPS_ADDR=" + addr, "OTEL_SERVICE_NAME=doceval-" + svc})
			if svc == "api" {
				penv = append(penv, "DOCEVAL_HTTP_ADDR="+addr)
				apiURLs = append(apiURLs, "http://"+addr)
			}
			name := fmt.Sprintf("%s-%d", svc, r+1)
			procs[svc] = append(procs[svc], startProcess(t, name, filepath.Join(bin, svc), nil, penv))
		}
	}
	for _, port := range ports {
		waitReady(t, "http://127.0.0.1:"+strconv.Itoa(port))
	}

	t.Logf("all ready after %s", time.Since(setupAt).Round(time.Millisecond))
	partners := newPartner(t, apiURLs, apiKey)
	recv := newReceiver()
	hook := httpServer(t, recv)
	endpoint, err := partners.createEndpoint(ctx, hook)
	if err != nil {
		t.Fatal(err)
	}
	recv.setSecret(endpoint)

	// Drive the submissions, 16 at a time; the kills happen when half have started.
	var started atomic.Int64
	killed := make(chan struct{})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	done := make([]submitted, replicaSubmissions)
	begin := time.Now()
	for i := range replicaSubmissions {
		if started.Add(1) == replicaSubmissions/2 {
			// Kill while the first half is in flight: uploads ingesting, evaluations
			// running, webhooks being delivered, outbox rows being relayed.
			g.Go(func() error {
				for _, svc := range services {
					procs[svc][0].kill()
				}
				natsNodes[0].kill()
				close(killed)
				t.Logf("killed api-1, ingest-1, evaluator-1, dispatcher-1 and nats-1 after %s", time.Since(begin).Round(time.Millisecond))
				return nil
			})
		}
		g.Go(func() error {
			var err error
			if done[i], err = partners.submit(gctx, i); err != nil {
				return fmt.Errorf("submission %d: %w", i, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		diagnose(t, pool, natsURL, true)
		t.Fatal(err)
	}
	<-killed
	t.Logf("%d submissions with %d uploads each evaluated in %s", replicaSubmissions, uploadsPerSubmission, time.Since(begin).Round(time.Millisecond))
	for _, svc := range services {
		if !procs[svc][0].exited() {
			t.Errorf("%s-1 still runs after SIGKILL", svc)
		}
	}

	// Every evaluation completed.
	for i, s := range done {
		got, err := partners.get(ctx, i, s.submission, s.evaluation)
		if err != nil {
			t.Fatalf("evaluation %s: %v", s.evaluation, err)
		}
		if got.Status != client.EvaluationStatusCompleted || got.Result == nil {
			t.Errorf("evaluation %s of submission %d is %s, want completed with a result", s.evaluation, i, got.Status)
		}
	}

	// Every event the API lists reaches the endpoint (give the retries time), and no
	// job's result was produced twice.
	events := partners.allEvents(ctx, t)
	var missing []string
	if err := waitUntil(90*time.Second, func() error {
		received, _ := recv.snapshot()
		missing = missing[:0]
		for id := range events {
			if received[id] == 0 {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%d of %d events not delivered, e.g. %s", len(missing), len(events), missing[0])
		}
		return nil
	}); err != nil {
		diagnose(t, pool, natsURL, true)
		t.Fatal(err)
	}
	var unpublished int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM outbox").Scan(&unpublished); err != nil || unpublished != 0 {
		t.Errorf("outbox rows left unpublished: %d (%v)", unpublished, err)
	}
	received, rejected := recv.snapshot()
	if rejected > 0 {
		t.Errorf("%d deliveries failed signature verification", rejected)
	}
	redelivered := 0
	for _, n := range received {
		redelivered += n - 1
	}
	results := map[string]int{} // "type object" → events
	for _, e := range events {
		switch e.typ {
		case "file.ready", "file.failed", "evaluation.started", "evaluation.completed", "evaluation.failed":
			results[e.typ+" "+e.object]++
		}
	}
	for _, s := range done {
		for _, up := range s.uploads {
			if n := results["file.ready "+up.String()]; n != 1 {
				t.Errorf("upload %s: %d file.ready events, want exactly 1 (file.failed: %d)", up, n, results["file.failed "+up.String()])
			}
		}
		for _, typ := range []string{"evaluation.started", "evaluation.completed"} {
			if n := results[typ+" "+s.evaluation.String()]; n != 1 {
				t.Errorf("evaluation %s: %d %s events, want exactly 1", s.evaluation, n, typ)
			}
		}
	}
	t.Logf("%d events, all delivered (%d deliveries repeated, as at-least-once allows)", len(events), redelivered)

	// The kill really cost work: messages the killed workers held (or had fetched) were
	// delivered again, to the survivors.
	delivered := consumerDeliveries(t, natsURL, true)
	jobs := map[string]int{"ingest": replicaSubmissions * uploadsPerSubmission, "evaluator": replicaSubmissions, "dispatcher": len(events)}
	again := 0
	for consumer, n := range jobs {
		again += int(delivered[consumer]) - n
	}
	if again <= 0 {
		t.Errorf("no job was delivered twice (%v for %v): the kill hit no work in flight", delivered, jobs)
	}
	t.Logf("%d messages delivered again after the kill", again)

	// The survivors shut down cleanly on SIGTERM, within their drain time.
	for _, svc := range services {
		stopAt := time.Now()
		if err := procs[svc][1].stop(20 * time.Second); err != nil {
			t.Errorf("%s-2 on SIGTERM: %v", svc, err)
		}
		t.Logf("%s-2 stopped in %s", svc, time.Since(stopAt).Round(time.Millisecond))
	}
}

// partner drives submissions through two api processes with the Go SDK, failing over to
// the other process when one does not answer, and avoiding it from then on.
type partner struct {
	clients []*sdk.Client
	down    []atomic.Bool
}

func newPartner(t *testing.T, urls []string, key string) *partner {
	t.Helper()
	p := &partner{down: make([]atomic.Bool, len(urls))}
	for _, u := range urls {
		c, err := sdk.New(u, key, sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second}))
		if err != nil {
			t.Fatal(err)
		}
		p.clients = append(p.clients, c)
	}
	return p
}

// do runs f against the api process of submission i, and against the other one when
// the first cannot be reached. API errors (4xx/5xx answers) are returned as they are.
func (p *partner) do(i int, f func(c *sdk.Client) error) error {
	var err error
	for k := range len(p.clients) {
		n := (i + k) % len(p.clients)
		if p.down[n].Load() && k < len(p.clients)-1 {
			continue
		}
		err = f(p.clients[n])
		var apiErr *sdk.Error
		if err == nil || errors.As(err, &apiErr) {
			return err
		}
		p.down[n].Store(true)
	}
	return err
}

// submitted is what a partner created for one submission.
type submitted struct {
	submission, evaluation uuid.UUID
	uploads                []uuid.UUID
}

// submit creates submission i, uploads a payslip and a bank statement, waits for both to
// be ready, starts an evaluation and waits for it to end. Every step is safe to repeat
// on the other api process after a failure that left its outcome unknown.
func (p *partner) submit(ctx context.Context, i int) (submitted, error) {
	var sub *client.Submission
	if err := p.do(i, func(c *sdk.Client) (err error) {
		sub, err = c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: fmt.Sprintf("replica-%03d", i)})
		return err
	}); err != nil {
		return submitted{}, fmt.Errorf("create: %w", err)
	}
	var ids []uuid.UUID
	for k, doc := range sampleDocuments(i) {
		var up *client.Upload
		if err := p.do(i, func(c *sdk.Client) (err error) {
			up, err = c.UploadFile(ctx, sub.Id, sdk.UploadParams{
				ExternalFileID: fmt.Sprintf("doc-%d", k), Filename: fmt.Sprintf("doc-%d.pdf", k),
				ContentType: "application/pdf", Body: bytes.NewReader(doc),
			})
			return err
		}); err != nil {
			return submitted{}, fmt.Errorf("upload %d: %w", k, err)
		}
		ids = append(ids, up.Id)
	}
	for _, id := range ids {
		if err := p.waitReady(ctx, i, sub.Id, id); err != nil {
			return submitted{}, err
		}
	}
	ev, err := p.startEvaluation(ctx, i, sub.Id)
	if err != nil {
		return submitted{}, err
	}
	deadline, id := time.Now().Add(3*time.Minute), ev.Id
	for ev.Status == client.EvaluationStatusQueued || ev.Status == client.EvaluationStatusRunning {
		if time.Now().After(deadline) {
			return submitted{}, fmt.Errorf("evaluation %s still %s", id, ev.Status)
		}
		time.Sleep(200 * time.Millisecond)
		if err := p.do(i, func(c *sdk.Client) (err error) {
			ev, err = c.GetEvaluation(ctx, sub.Id, id)
			return err
		}); err != nil {
			return submitted{}, fmt.Errorf("get evaluation: %w", err)
		}
	}
	return submitted{submission: sub.Id, uploads: ids, evaluation: id}, nil
}

func (p *partner) waitReady(ctx context.Context, i int, sub, upload uuid.UUID) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var up *client.Upload
		if err := p.do(i, func(c *sdk.Client) (err error) {
			up, err = c.GetUpload(ctx, sub, upload)
			return err
		}); err != nil {
			return fmt.Errorf("get upload: %w", err)
		}
		switch {
		case up.UploadStatus == client.UploadStatusReady:
			return nil
		case up.UploadStatus != client.UploadStatusProcessing:
			return fmt.Errorf("upload %s is %s", upload, up.UploadStatus)
		case time.Now().After(deadline):
			return fmt.Errorf("upload %s still processing", upload)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startEvaluation starts one evaluation. When the answer is lost with a killed api
// process the start may or may not have happened, and when another start won it is
// refused: in both cases the submission's latest evaluation is the one to follow.
func (p *partner) startEvaluation(ctx context.Context, i int, sub uuid.UUID) (*client.Evaluation, error) {
	var ev *client.Evaluation
	err := p.do(i, func(c *sdk.Client) (err error) {
		if ev, err = c.StartEvaluation(ctx, sub); err == nil || sdk.IsConflict(err) {
			return err
		}
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) {
			return err
		}
		// Unknown outcome: look before starting again on the other process.
		detail, getErr := c.GetSubmission(ctx, sub)
		if getErr == nil && detail.LatestEvaluation != nil {
			ev = detail.LatestEvaluation
			return nil
		}
		return err
	})
	if sdk.IsConflict(err) {
		err = p.do(i, func(c *sdk.Client) error {
			detail, err := c.GetSubmission(ctx, sub)
			if err == nil {
				if ev = detail.LatestEvaluation; ev == nil {
					err = errors.New("conflict, but no evaluation")
				}
			}
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("start evaluation: %w", err)
	}
	return ev, nil
}

// get reads evaluation ev of submission i (found through the evaluation's own id).
func (p *partner) get(ctx context.Context, i int, sub, ev uuid.UUID) (*client.Evaluation, error) {
	var got *client.Evaluation
	err := p.do(i, func(c *sdk.Client) (err error) {
		got, err = c.GetEvaluation(ctx, sub, ev)
		return err
	})
	return got, err
}

// createEndpoint registers url for every event type and returns its signing secret.
func (p *partner) createEndpoint(ctx context.Context, url string) (string, error) {
	res, err := p.clients[0].API().CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: url})
	if err != nil {
		return "", err
	}
	if res.JSON201 == nil {
		return "", fmt.Errorf("create webhook endpoint: %s %s", res.Status(), res.Body)
	}
	return res.JSON201.SigningSecret, nil
}

// listedEvent is an event as the API lists it, with the id of the upload or evaluation
// it is about.
type listedEvent struct{ typ, object string }

func (p *partner) allEvents(ctx context.Context, t *testing.T) map[string]listedEvent {
	t.Helper()
	out := map[string]listedEvent{}
	for e, err := range p.clients[1].ListEvents(ctx, &client.ListEventsParams{}) {
		if err != nil {
			t.Fatalf("list events: %v", err)
		}
		out[e.Id] = listedEvent{typ: string(e.Type), object: objectID(e.Data)}
	}
	return out
}

// objectID is the id of the upload or evaluation an event's data carries, if any.
func objectID(data map[string]any) string {
	for _, key := range []string{"upload", "evaluation"} {
		if obj, ok := data[key].(map[string]any); ok {
			id, _ := obj["id"].(string)
			return id
		}
	}
	return ""
}

// sampleDocuments are submission i's payslip and bank statement, as text PDFs that
// differ per submission.
func sampleDocuments(i int) [][]byte {
	name := fmt.Sprintf("Erika Muster%03d", i)
	net := fmt.Sprintf("%d,00", 2500+i)
	return [][]byte{
		samplepdf.Text([][]string{{
			"Gehaltsabrechnung Januar 2026", "Arbeitgeber: Beispiel GmbH, Koeln", "Mitarbeiter: " + name,
			"Bruttobezug 4.800,00 EUR", "Nettobezug " + net + " EUR",
		}}),
		samplepdf.Text([][]string{{
			"Kontoauszug Januar 2026", "Sparkasse Koeln", "Kontoinhaber: " + name,
			"IBAN DE89 3704 0044 0532 0130 00",
			"30.01.2026 Gehalt Beispiel GmbH +" + net + " EUR",
		}}),
	}
}

// receiver is the webhook endpoint: it verifies each delivery and counts it by event id.
type receiver struct {
	mu       sync.Mutex
	secret   string
	received map[string]int // event id → deliveries
	rejected int
}

func newReceiver() *receiver { return &receiver{received: map[string]int{}} }

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(req.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	err := webhook.Verify(req.Header.Get(webhook.SignatureHeader), body.Bytes(), []string{r.secret}, 0, time.Now())
	var e webhook.Event
	if err == nil {
		e, err = webhook.ParseEvent(body.Bytes())
	}
	if err != nil {
		r.rejected++
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.received[e.ID]++
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

// snapshot copies the counters.
func (r *receiver) snapshot() (map[string]int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	received := make(map[string]int, len(r.received))
	for k, v := range r.received {
		received[k] = v
	}
	return received, r.rejected
}

// httpServer serves h on a loopback port until the test ends and returns its URL.
func httpServer(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String() + "/hook"
}

// queueDurable is the durable name a per-client consumer ("ingest-<client id>") counts
// under: its service's.
func queueDurable(name string) string {
	if i := len(name) - 37; i > 0 && name[i] == '-' {
		if _, err := uuid.Parse(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// consumerDeliveries logs each consumer's state and returns its deliveries (first
// ones and redeliveries) by durable name, a service's per-client consumers summed; with clustered set (a node down), every
// stream must still have three replicas configured and a leader on a surviving node.
func consumerDeliveries(t *testing.T, url string, clustered bool) map[string]uint64 {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Errorf("connect nats: %v", err)
		return nil
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Error(err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := map[string]uint64{}
	for _, name := range []string{messaging.JobsStream, messaging.EventsStream, messaging.QueuesStream} {
		stream, err := js.Stream(ctx, name)
		if err != nil {
			t.Errorf("stream %s: %v", name, err)
			continue
		}
		info := stream.CachedInfo()
		if clustered && (info.Config.Replicas != 3 || info.Cluster == nil || info.Cluster.Leader == "" || info.Cluster.Leader == "nats-1") {
			t.Errorf("stream %s: %d replicas, cluster %+v; want 3 and a leader on a surviving node", name, info.Config.Replicas, info.Cluster)
		}
		for info := range stream.ListConsumers(ctx).Info() {
			out[queueDurable(info.Name)] += info.Delivered.Consumer
			leader := ""
			if info.Cluster != nil {
				leader = info.Cluster.Leader
			}
			t.Logf("consumer %s/%s: %d delivered, ack floor %d, %d ack pending, %d redelivered now, %d pending, leader %q",
				name, info.Name, info.Delivered.Consumer, info.AckFloor.Consumer, info.NumAckPending, info.NumRedelivered, info.NumPending, leader)
		}
	}
	return out
}

// diagnose logs what a stuck job could be waiting for: unpublished outbox rows,
// undelivered deliveries, uploads still processing and the consumers' state.
func diagnose(t *testing.T, pool *pgxpool.Pool, natsURL string, clustered bool) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		"SELECT seq, subject, created_at::text FROM outbox ORDER BY seq LIMIT 20",
		"SELECT event_id::text, status, attempt_count, coalesce(next_retry_at::text, ''), coalesce(lease_until::text, '') FROM deliveries WHERE status <> 'succeeded' LIMIT 20",
		"SELECT id::text, created_at::text, coalesce(job_enqueued_at::text, ''), ingest_attempts FROM uploads WHERE upload_status = 'processing' LIMIT 20",
		"SELECT id::text, status, created_at::text, coalesce(job_enqueued_at::text, '') FROM evaluations WHERE status IN ('queued', 'running') LIMIT 20",
		"SELECT id::text, failure_code, failure_message, created_at::text, updated_at::text, ingest_attempts FROM uploads WHERE upload_status = 'failed' LIMIT 20",
	} {
		rows, err := pool.Query(ctx, q)
		if err != nil {
			t.Logf("%s: %v", q, err)
			continue
		}
		for rows.Next() {
			vals, _ := rows.Values()
			t.Logf("%.40s…: %v", q, vals)
		}
		rows.Close()
	}
	consumerDeliveries(t, natsURL, clustered)
}

// logStuck logs, from every process's log, the lines that name an upload still
// processing or an evaluation still queued or running, and each log's last warnings:
// the story of a stuck job that the end of a busy log no longer holds.
func logStuck(t *testing.T, pool *pgxpool.Pool, procs []*process, failures []string) {
	t.Helper()
	ids := uuidPattern.FindAllString(strings.Join(failures, " "), 10)
	if err := pgxCollect(context.Background(), pool, `SELECT id::text FROM uploads WHERE upload_status = 'processing'
		UNION ALL SELECT id::text FROM evaluations WHERE status IN ('queued', 'running') LIMIT $1`, 10, &ids); err != nil {
		t.Logf("stuck ids: %v", err)
	}
	logNaming(t, procs, ids)
}

// logNaming logs, from every process's log, the last lines that name one of ids, and
// the last warnings and errors.
func logNaming(t *testing.T, procs []*process, ids []string) {
	t.Helper()
	for _, p := range procs {
		b, err := os.ReadFile(p.log)
		if err != nil {
			continue
		}
		var named, warnings []string
		for line := range strings.Lines(string(b)) {
			for _, id := range ids {
				if strings.Contains(line, id) {
					named = append(named, line)
					break
				}
			}
			if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
				warnings = append(warnings, line)
			}
		}
		t.Logf("--- %s: %d lines naming %v, last of them:\n%s", p.name, len(named), ids, strings.Join(lastN(named, 40), ""))
		t.Logf("--- %s: %d warnings and errors, last of them:\n%s", p.name, len(warnings), strings.Join(lastN(warnings, 15), ""))
	}
}

var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func lastN(lines []string, n int) []string { return lines[max(0, len(lines)-n):] }
