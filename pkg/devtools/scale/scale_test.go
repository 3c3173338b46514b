package scale_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/keyset"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// The goals the figures are held to.
const (
	readP99Goal   = 50 * time.Millisecond
	drainRateGoal = 3000 // deliveries per second
	lockWaitGoal  = time.Second
)

// size is the seeded history: tenants, and per tenant submissions and events; half of
// the events have a delivery, one in a hundred of those is due now.
type size struct {
	tenants, submissions, events int
}

func sizeFromEnv(t *testing.T) size {
	factor := 1.0
	if v := os.Getenv("DOCEVAL_SCALE_FACTOR"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || f > 1 {
			t.Fatalf("DOCEVAL_SCALE_FACTOR=%q: want a number in (0, 1]", v)
		}
		factor = f
	}
	return size{tenants: 1000, submissions: max(10, int(1000*factor)), events: max(100, int(10000*factor))}
}

// TestScale seeds a database with 1,000 tenants, 1 M submissions, 10 M events and 5 M
// deliveries (100 k of them due at once), then measures p50 and p99 of the partner reads
// (list submissions with each filter, get submission, list events, the event feed,
// redeliver) and the work behind them (the dispatcher draining the due deliveries,
// retention deleting a day of events, the purge of a submission with 200 uploads), and
// prints them with the query plans of the reads. It fails when a read's p99 passes 50 ms,
// when a read's plan scans a table or sorts, when the backlog drains slower than 3,000
// deliveries a second, or when retention or a purge holds a concurrent write up for a
// second or more.
//
// make scale runs it (DOCEVAL_SCALE=1); DOCEVAL_SCALE_FACTOR=0.01 seeds a hundredth of
// the submissions and events per tenant, for a quick run.
func TestScale(t *testing.T) {
	if os.Getenv("DOCEVAL_SCALE") == "" {
		t.Skip("the scale test runs with make scale (DOCEVAL_SCALE=1)")
	}
	ctx := context.Background()
	sz := sizeFromEnv(t)
	_, url := dbtest.NewWithURL(t)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	cfg.ConnConfig.Tracer = rec
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := store.New(pool)

	var received atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck
		received.Add(1)
	}))
	t.Cleanup(receiver.Close)
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, _ := secretbox.New(key)

	start := time.Now()
	seed := seedHistory(ctx, t, pool, st, box, receiver.URL, sz)
	t.Logf("seeded in %s: %s", time.Since(start).Round(time.Second), seed.counts)

	var results []result
	for _, r := range reads(st, seed) {
		results = append(results, measure(ctx, t, pool, rec, r))
	}
	results = append(results, drain(ctx, t, st, box, &received, seed.due))
	results = append(results, retention(ctx, t, st, seed))
	results = append(results, purge(ctx, t, st, seed))
	report(t, results)
}

// seeded is what the reads pick their arguments from.
type seeded struct {
	tenants     []uuid.UUID
	first       uuid.UUID   // the tenant whose submissions have slots
	submissions []uuid.UUID // of first
	templateID  string
	events      []uuid.UUID // events with deliveries, of random tenants
	due         int64
	purge       uuid.UUID // first's submission with 200 uploads
	oldest      time.Time
	counts      string
}

func seedHistory(ctx context.Context, t *testing.T, pool *pgxpool.Pool, st *store.Store, box *secretbox.Box, receiver string, sz size) seeded {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var s seeded
	c0, _, _, err := st.CreateClient(ctx, "tenant 0", auth.AllPermissions)
	must(err)
	s.first = c0.ID
	_, err = cloneRows(ctx, pool, "api_clients", "b.id = $1",
		map[string]string{"id": "gen_random_uuid()", "name": "'tenant ' || n"}, "generate_series(1, $2::int) n", c0.ID, sz.tenants-1)
	must(err)
	rows, err := pool.Query(ctx, "SELECT id FROM api_clients ORDER BY id")
	must(err)
	s.tenants, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	must(err)
	for i, id := range s.tenants {
		_, err := st.Tenant(id).CreateWebhookEndpoint(ctx, fmt.Sprintf("%s/%d", receiver, i), "", nil,
			func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_scale"), id[:]) })
		must(err)
	}

	base, _, err := st.Tenant(c0.ID).CreateSubmission(ctx, submission.New{ExternalID: "base", Metadata: []byte(`{"broker":"Example Finanz GmbH","loan_amount_eur":350000}`), Language: "en"})
	must(err)
	s.templateID = base.TemplateID
	var baseEvent uuid.UUID
	must(st.InTx(ctx, func(tx *store.Tx) error {
		env, err := tx.Emit(ctx, events.Draft{APIClientID: c0.ID, Type: events.FileReady, SubmissionID: &base.ID, Data: map[string]string{"file_id": uuid.NewString()}})
		if err == nil {
			baseEvent, err = events.ParseID(env.ID)
		}
		return err
	}))
	_, err = st.FanOut(ctx, baseEvent)
	must(err)

	// A batch of tenants per statement: each is its own transaction, as the events of a
	// real log come from many.
	subStep := fmt.Sprintf("interval '%d seconds'", int(30*24*time.Hour/time.Second)/sz.submissions)
	evStep := fmt.Sprintf("interval '%d milliseconds'", int(30*24*time.Hour/time.Millisecond)/sz.events)
	types := `ARRAY['file.ready','file.failed','evaluation.completed','document_slot.updated']`
	for i := 0; i < len(s.tenants); i += 50 {
		batch := s.tenants[i:min(i+50, len(s.tenants))]
		_, err := cloneRows(ctx, pool, "submissions", "b.id = $1", map[string]string{
			"id": "gen_random_uuid()", "api_client_id": "c.id", "display_id": "'S' || n", "external_submission_id": "'ext-' || n",
			"status":     "(ARRAY['collecting_documents','evaluating','completed','failed','canceled'])[1 + n % 5]",
			"created_at": "now() - n * " + subStep, "updated_at": "now() - n * " + subStep,
		}, "generate_series(1, $2::int) n, unnest($3::uuid[]) c(id)", base.ID, sz.submissions, batch)
		must(err)
		_, err = cloneRows(ctx, pool, "events", "b.id = $1", map[string]string{
			"id": "gen_random_uuid()", "api_client_id": "c.id", "type": "(" + types + ")[1 + n % 4]",
			"submission_id": "md5(c.id::text || (n % $2::int))::uuid", "created_at": "now() - n * " + evStep, "tx": "",
		}, "generate_series(1, $3::int) n, unnest($4::uuid[]) c(id)", baseEvent, sz.submissions, sz.events, batch)
		must(err)
		_, err = cloneRows(ctx, pool, "deliveries", "b.event_id = $1", map[string]string{
			"id": "gen_random_uuid()", "event_id": "e.id", "endpoint_id": "e.endpoint", "api_client_id": "e.api_client_id",
			"status":        "CASE WHEN e.seq % 100 = 0 THEN 'pending' ELSE 'succeeded' END",
			"attempt_count": "CASE WHEN e.seq % 100 = 0 THEN 0 ELSE 1 END",
			"next_retry_at": "CASE WHEN e.seq % 100 = 0 THEN now() END", "lease_until": "NULL", "lease_token": "NULL",
			"last_attempted_at": "CASE WHEN e.seq % 100 = 0 THEN NULL ELSE e.created_at END", "created_at": "e.created_at",
		}, `(SELECT e.id, e.api_client_id, e.seq, e.created_at, w.id AS endpoint FROM events e
			JOIN webhook_endpoints w ON w.api_client_id = e.api_client_id AND w.deleted_at IS NULL
			WHERE e.api_client_id = ANY($2::uuid[]) AND e.id <> $1 AND e.seq % 2 = 0) e`, baseEvent, batch)
		must(err)
		if i%200 == 0 {
			t.Logf("seeding: %d of %d tenants", i+len(batch), len(s.tenants))
		}
	}
	_, err = pool.Exec(ctx, "DELETE FROM deliveries WHERE event_id = $1", baseEvent)
	must(err)
	_, err = cloneRows(ctx, pool, "document_slots", "b.submission_id = $1", map[string]string{"id": "gen_random_uuid()", "submission_id": "s.id"},
		"(SELECT id FROM submissions WHERE api_client_id = $2 AND id <> $1) s", base.ID, c0.ID)
	must(err)

	// The purge's submission: 200 uploads of 3 pages.
	p, _, err := st.Tenant(c0.ID).CreateSubmission(ctx, submission.New{ExternalID: "purge-200", Metadata: []byte(`{}`), Language: "en"})
	must(err)
	s.purge = p.ID
	u, _, err := st.Tenant(c0.ID).CreateUpload(ctx, submission.NewUpload{
		SubmissionID: p.ID, ExternalFileID: "u0", FileID: uuid.New(), Filename: "statement.pdf", ContentType: "application/pdf",
		Size: 48_000, SHA256: make([]byte, 32), BlobKey: "scale/u0",
	})
	must(err)
	text := strings.Repeat("Kontoauszug 01.03.2026 Miete -1.250,00 EUR Gehalt +3.480,00 EUR\n", 30)
	must(st.FinishIngest(ctx, u.ID, []document.Page{
		{Number: 1, Text: text, Chars: len(text)}, {Number: 2, Text: text, Chars: len(text)}, {Number: 3, Text: text, Chars: len(text)},
	}, nil, nil))
	_, err = cloneRows(ctx, pool, "uploads", "b.id = $1", map[string]string{
		"id": "gen_random_uuid()", "file_id": "gen_random_uuid()", "external_file_id": "'u' || n", "blob_key": "'scale/u' || n",
	}, "generate_series(1, 199) n", u.ID)
	must(err)
	_, err = cloneRows(ctx, pool, "upload_pages", "b.upload_id = $1", map[string]string{"upload_id": "u.id"},
		"(SELECT id FROM uploads WHERE submission_id = $2 AND id <> $1) u", u.ID, p.ID)
	must(err)

	t.Log("seeding: VACUUM ANALYZE")
	_, err = pool.Exec(ctx, "VACUUM ANALYZE")
	must(err)

	rows, err = pool.Query(ctx, "SELECT relname::text FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace AND reltuples > 10000")
	must(err)
	largeTables, err = pgx.CollectRows(rows, pgx.RowTo[string])
	must(err)
	rows, err = pool.Query(ctx, "SELECT id FROM submissions WHERE api_client_id = $1 AND external_submission_id LIKE 'ext-%' ORDER BY id", c0.ID)
	must(err)
	s.submissions, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	must(err)
	rows, err = pool.Query(ctx, "SELECT event_id FROM deliveries TABLESAMPLE SYSTEM (1) LIMIT 2000")
	must(err)
	s.events, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	must(err)
	must(pool.QueryRow(ctx, "SELECT count(*) FROM deliveries WHERE status = 'pending'").Scan(&s.due))
	must(pool.QueryRow(ctx, "SELECT min(created_at) FROM events").Scan(&s.oldest))
	var nsub, nev, ndel int64
	must(pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM submissions), (SELECT count(*) FROM events), (SELECT count(*) FROM deliveries)").Scan(&nsub, &nev, &ndel))
	s.counts = fmt.Sprintf("%d tenants, %d submissions, %d events, %d deliveries (%d due); large tables: %s",
		len(s.tenants), nsub, nev, ndel, s.due, strings.Join(largeTables, ", "))
	return s
}

// read is one partner read, run with the i-th sample's arguments.
type read struct {
	name string
	run  func(ctx context.Context, i int) error
}

func reads(st *store.Store, s seeded) []read {
	pick := func(i int) store.Tenant { return st.Tenant(s.tenants[(i*7919)%len(s.tenants)]) }
	str := func(v string) *string { return &v }
	week, mid := time.Now().Add(-7*24*time.Hour), time.Now().Add(-15*24*time.Hour)
	middle := &keyset.Position{CreatedAt: mid, ID: uuid.Max}
	submissions := func(f store.SubmissionFilter) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			f.Limit = 50
			_, err := pick(i).Submissions(ctx, f)
			return err
		}
	}
	evs := func(f func(i int) store.EventFilter) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			filter := f(i)
			filter.Limit = 50
			_, err := pick(i).Events(ctx, filter)
			return err
		}
	}
	return []read{
		{"list submissions", submissions(store.SubmissionFilter{})},
		{"list submissions, status", submissions(store.SubmissionFilter{Status: str("completed")})},
		{"list submissions, external_submission_id", func(ctx context.Context, i int) error {
			_, err := pick(i).Submissions(ctx, store.SubmissionFilter{ExternalID: str(fmt.Sprintf("ext-%d", 1+i%len(s.submissions))), Limit: 50})
			return err
		}},
		{"list submissions, template_id", submissions(store.SubmissionFilter{TemplateID: &s.templateID})},
		{"list submissions, created_at range", submissions(store.SubmissionFilter{CreatedAtGTE: &week})},
		{"list submissions, page in the middle", submissions(store.SubmissionFilter{After: middle})},
		{"get submission", func(ctx context.Context, i int) error {
			_, err := st.Tenant(s.first).Submission(ctx, s.submissions[i%len(s.submissions)])
			return err
		}},
		{"list events", evs(func(int) store.EventFilter { return store.EventFilter{} })},
		{"list events, type", evs(func(int) store.EventFilter { t := "evaluation.completed"; return store.EventFilter{Type: &t} })},
		{"list events, submission_id", evs(func(i int) store.EventFilter {
			id := seededSubmissionID(s.tenants[(i*7919)%len(s.tenants)], i%len(s.submissions))
			return store.EventFilter{SubmissionID: &id}
		})},
		{"list events, page in the middle", evs(func(int) store.EventFilter { return store.EventFilter{After: middle} })},
		{"event feed, from the start", func(ctx context.Context, i int) error {
			t := pick(i)
			p, err := t.FeedStart(ctx, true)
			if err == nil {
				_, _, err = t.Feed(ctx, p, nil, 100)
			}
			return err
		}},
		{"event feed, at the end", func(ctx context.Context, i int) error {
			t := pick(i)
			p, err := t.FeedStart(ctx, false)
			if err == nil {
				_, _, err = t.Feed(ctx, p, nil, 100)
			}
			return err
		}},
		{"redeliver", func(ctx context.Context, i int) error {
			_, err := st.Redeliver(ctx, s.events[i%len(s.events)], nil)
			return err
		}},
	}
}

// seededSubmissionID is the submission id a seeded event names (the seed's
// md5(tenant || n % submissions)): events of one tenant share it in tens.
func seededSubmissionID(tenant uuid.UUID, n int) uuid.UUID {
	return uuid.UUID(md5.Sum([]byte(tenant.String() + strconv.Itoa(n))))
}

// result is one line of the report.
type result struct {
	name        string
	p50, p99    time.Duration
	figure      string // for work that is not a read: its rate or duration
	plans       []string
	problems    []string
	isRead      bool
	maxLockWait time.Duration
}

// samples is how often each read runs.
const samples = 300

func measure(ctx context.Context, t *testing.T, pool *pgxpool.Pool, rec *recorder, r read) result {
	// The statements of one run, explained with their arguments.
	rec.start()
	if err := r.run(ctx, 0); err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	stmts := rec.stop()
	res := result{name: r.name, isRead: true}
	for _, q := range stmts {
		plan, err := explain(ctx, pool, q)
		if err != nil {
			t.Fatalf("%s: explain: %v", r.name, err)
		}
		res.plans = append(res.plans, plan)
		res.problems = append(res.problems, planProblems(plan)...)
	}
	var took []time.Duration
	for i := range samples {
		s := time.Now()
		if err := r.run(ctx, i+1); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		took = append(took, time.Since(s))
	}
	slices.Sort(took)
	res.p50, res.p99 = took[len(took)/2], took[len(took)*99/100]
	return res
}

func explain(ctx context.Context, pool *pgxpool.Pool, q statement) (string, error) {
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY OFF) "+q.sql, q.args...)
	if err != nil {
		return "", err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", err
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(q.sql, "-- name: "), " ")
	return name + "\n" + strings.Join(lines, "\n"), nil
}

// planProblems names what makes a plan grow with the history: a scan of a whole large
// table, a scan that reads more than scannedRowsAllowed rows, or a sort of more rows than
// a page (a handful of rows found through an index may be sorted; a tenant's history
// must be read in index order).
func planProblems(plan string) []string {
	name, body, _ := strings.Cut(plan, "\n")
	lines := strings.Split(body, "\n")
	var out []string
	for i, l := range lines {
		node := planNode(l)
		switch {
		case strings.HasPrefix(node, "Sort ("), strings.HasPrefix(node, "Incremental Sort ("):
			for _, next := range lines[i+1:] {
				if strings.HasPrefix(strings.TrimSpace(next), "->") {
					if planRows(next) > sortedRowsAllowed {
						out = append(out, name+": "+node+" of "+planNode(next))
					}
					break
				}
			}
		case strings.HasPrefix(node, "Seq Scan on "), strings.HasPrefix(node, "Parallel Seq Scan on "):
			table := strings.Fields(node[strings.Index(node, " on ")+4:])[0]
			if slices.Contains(largeTables, table) {
				out = append(out, name+": "+node)
			}
		case strings.Contains(node, "Scan ") && planRows(node) > scannedRowsAllowed:
			out = append(out, name+": "+node)
		}
	}
	return out
}

// sortedRowsAllowed is the most rows a plan may sort: a page and then some.
// scannedRowsAllowed is the most rows one scan may read: more grows with the history
// (an aggregate over a tenant's events, a filter that discards most of an index).
const (
	sortedRowsAllowed  = 200
	scannedRowsAllowed = 1000
)

// planNode is a plan line without its indentation and arrow.
func planNode(line string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "->"))
}

// planRows is the actual row count of a plan line (rows=N ... loops=M: N×M), or 0.
func planRows(line string) int {
	_, after, ok := strings.Cut(line, " rows=")
	if !ok {
		return 0
	}
	rows, _ := strconv.Atoi(strings.Fields(after)[0])
	loops := 1
	if _, l, ok := strings.Cut(after, "loops="); ok {
		loops, _ = strconv.Atoi(strings.TrimRight(l, ")"))
	}
	return rows * max(loops, 1)
}

// largeTables are the seeded tables past 10,000 rows (after ANALYZE): a scan of one is
// a read that grows with the history. The others (clients, templates, catalog, and the
// tables the seed leaves empty) are scanned when that is cheaper.
var largeTables []string

// drain lets one dispatcher deliver the due backlog to a receiver answering 200 at once.
func drain(ctx context.Context, t *testing.T, st *store.Store, box *secretbox.Box, received *atomic.Int64, due int64) result {
	runCtx, cancel := context.WithCancel(ctx)
	d := &dispatch.Dispatcher{Store: st, Secrets: box, Log: slog.New(slog.DiscardHandler), Timeout: 5 * time.Second, Concurrency: 64, AllowPrivate: true}
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); d.Run(runCtx) }() //nolint:errcheck
	deadline := start.Add(15 * time.Minute)
	for received.Load() < due && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	cancel()
	<-done
	n := received.Load()
	rate := float64(n) / took.Seconds()
	res := result{name: "dispatcher drains the due backlog", figure: fmt.Sprintf("%d in %s: %.0f/s", n, took.Round(time.Millisecond), rate)}
	if n < due || rate < drainRateGoal {
		res.problems = append(res.problems, fmt.Sprintf("drained %d of %d at %.0f/s, goal %d/s", n, due, rate, drainRateGoal))
	}
	return res
}

// retention deletes the oldest day of events while a writer keeps writing.
func retention(ctx context.Context, t *testing.T, st *store.Store, s seeded) result {
	var n int64
	took, wait := whileWriting(ctx, t, st, s, func() error {
		var err error
		n, err = st.DeleteEventsBefore(ctx, s.oldest.Add(24*time.Hour))
		return err
	})
	return lockResult("retention deletes a day of events", fmt.Sprintf("%d events in %s", n, took.Round(time.Millisecond)), wait)
}

// purge removes the submission with 200 uploads while a writer keeps writing.
func purge(ctx context.Context, t *testing.T, st *store.Store, s seeded) result {
	if err := st.Tenant(s.first).DeleteSubmission(ctx, s.purge); err != nil {
		t.Fatal(err)
	}
	noop := func(context.Context, string) error { return nil }
	took, wait := whileWriting(ctx, t, st, s, func() error { return st.PurgeSubmission(ctx, s.purge, noop, noop) })
	return lockResult("purge of a submission with 200 uploads", took.Round(time.Millisecond).String(), wait)
}

func lockResult(name, figure string, wait time.Duration) result {
	res := result{name: name, figure: figure, maxLockWait: wait}
	if wait >= lockWaitGoal {
		res.problems = append(res.problems, fmt.Sprintf("a concurrent write waited %s", wait.Round(time.Millisecond)))
	}
	return res
}

// whileWriting runs work while other tenants' events are written and redelivered every
// 10 ms, and returns how long work took and the longest such write.
func whileWriting(ctx context.Context, t *testing.T, st *store.Store, s seeded, work func() error) (took, longest time.Duration) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			begin := time.Now()
			tenant := s.tenants[1+rand.IntN(len(s.tenants)-1)]
			err := st.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.Emit(ctx, events.Draft{APIClientID: tenant, Type: events.FileReady, Data: map[string]int{"i": i}})
				return err
			})
			if err == nil {
				_, err = st.Redeliver(ctx, s.events[rand.IntN(len(s.events))], nil)
			}
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			longest = max(longest, time.Since(begin))
			mu.Unlock()
		}
	})
	start := time.Now()
	err := work()
	took = time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return took, longest
}

func report(t *testing.T, results []result) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nwhat\tp50\tp99\tfigure\tlongest concurrent write\tplans")
	for _, r := range results {
		p50, p99, wait, plans := "", "", "", ""
		if r.isRead {
			p50, p99 = ms(r.p50), ms(r.p99)
			plans = "index"
			if len(r.problems) > 0 {
				plans = strings.Join(r.problems, "; ")
			}
		}
		if r.maxLockWait > 0 {
			wait = ms(r.maxLockWait)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name, p50, p99, r.figure, wait, plans)
	}
	tw.Flush()
	fmt.Fprintln(&b, "\nquery plans (EXPLAIN ANALYZE of the first run of each read):")
	for _, r := range results {
		for _, p := range r.plans {
			fmt.Fprintf(&b, "\n[%s] %s\n", r.name, p)
		}
	}
	t.Log(b.String())
	for _, r := range results {
		if r.isRead && r.p99 > readP99Goal {
			t.Errorf("%s: p99 %s, goal %s", r.name, ms(r.p99), ms(readP99Goal))
		}
		for _, p := range r.problems {
			t.Errorf("%s: %s", r.name, p)
		}
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// statement is one query a read sent, with its arguments.
type statement struct {
	sql  string
	args []any
}

// recorder keeps the sqlc queries sent while it is on.
type recorder struct {
	mu    sync.Mutex
	on    bool
	stmts []statement
}

func (r *recorder) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on, r.stmts = true, nil
}

func (r *recorder) stop() []statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.stmts
}

func (r *recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on && strings.HasPrefix(d.SQL, "-- name: ") {
		r.stmts = append(r.stmts, statement{sql: d.SQL, args: d.Args})
	}
	return ctx
}

func (*recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
