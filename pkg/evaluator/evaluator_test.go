package evaluator_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/catalog"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
	"github.com/doceval/doceval/pkg/evaluator"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

type env struct {
	t      testing.TB
	st     *store.Store
	common config.Common
	dbURL  string // the owner's, for other services' roles (dbtest.RoleURL)
	tenant store.Tenant
	log    *slog.Logger
	// registry holds metrics, the evaluator metrics of the workers a test builds itself.
	registry *prometheus.Registry
	metrics  *evaluator.Metrics
}

func newEnv(t testing.TB) *env {
	pool, dbURL := dbtest.NewWithURL(t)
	st := store.New(pool)
	c, _, _, err := st.CreateClient(context.Background(), "evaluator-test", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	registry := prometheus.NewRegistry()
	return &env{t: t, st: st, tenant: st.Tenant(c.ID), log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		registry: registry, metrics: evaluator.NewMetrics(registry), dbURL: dbURL,
		// The worker connects as the evaluator's database role (migration 00018): a query
		// it is not granted fails the test. The test's own fixtures use the owner (st).
		common: config.Common{
			DatabaseURL: dbtest.RoleURL(t, dbURL, "evaluator"), NatsURL: natstest.URL(t), LogLevel: slog.LevelInfo, StreamReplicas: 1,
			OpsAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second, OutboxRelay: true, BlobURL: blob.FileURL(t.TempDir()),
		}}
}

// The pages of a small German real-estate submission.
var samplePages = map[string][]string{
	"ausweis": {"BUNDESREPUBLIK DEUTSCHLAND\nPERSONALAUSWEIS\nName: MÜLLER\nVornamen: JÜRGEN\nGeburtsdatum: 14.03.1985\nAusweisnummer: L01X00T47\nGültig bis: 01.02.2019"},
	"gehalt":  {"Gehaltsabrechnung\nMuster GmbH\nMitarbeiter: Jürgen Müller\nAbrechnungsmonat: Oktober 2026\nGesamtbrutto 4.500,00 EUR\nAuszahlungsbetrag 2.876,43 EUR"},
	"konto":   {"Kontoauszug\nKontoinhaber: Jürgen Müller\nIBAN: DE89 3704 0044 0532 0130 00\n30.10.2026 Gehalt Muster GmbH 2.876,43\nKontostand neu: 5.120,10 EUR"},
}

// submission creates a submission with ready uploads holding pages.
func (e *env) submission(externalID string, pages map[string][]string) submission.Submission {
	e.t.Helper()
	return e.submissionFrom(externalID, "", pages)
}

func (e *env) submissionFrom(externalID, template string, pages map[string][]string) submission.Submission {
	e.t.Helper()
	ctx := context.Background()
	sub, _, err := e.tenant.CreateSubmission(ctx, submission.New{ExternalID: externalID, TemplateRef: template, Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		e.t.Fatal(err)
	}
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		u, _, err := e.tenant.CreateUpload(ctx, submission.NewUpload{
			SubmissionID: sub.ID, ExternalFileID: name, FileID: uuid.New(), Filename: name + ".pdf",
			ContentType: "application/pdf", Size: 1, SHA256: []byte{1}, BlobKey: "k/" + name,
		})
		if err != nil {
			e.t.Fatal(err)
		}
		var texts []document.Page
		for i, p := range pages[name] {
			texts = append(texts, document.Page{Number: i + 1, Text: p, Chars: len(p)})
		}
		if err := e.st.FinishIngest(ctx, u.ID, texts, nil, nil); err != nil {
			e.t.Fatal(err)
		}
	}
	return sub
}

// worker runs doceval-evaluator with eng (and extra builds) until the test ends or stop
// is called.
func (e *env) worker(cfg evaluator.Config, eng *engine.Engine, extra ...service.Build) (stop func()) {
	return e.service("evaluator", e.common, append([]service.Build{evaluator.BuildWith(cfg, eng, e.log)}, extra...)...)
}

// serviceAs runs another service's workers beside the evaluator's, connected as its own
// database role.
func (e *env) serviceAs(name string, builds ...service.Build) (stop func()) {
	common := e.common
	common.DatabaseURL = dbtest.RoleURL(e.t, e.dbURL, name)
	common.OpsAddr = "127.0.0.1:0"
	return e.service(name, common, builds...)
}

func (e *env) service(name string, common config.Common, builds ...service.Build) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- service.RunWorker(ctx, name, common, e.log, builds...) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					e.t.Errorf("%s: %v", name, err)
				}
			case <-time.After(30 * time.Second):
				e.t.Errorf("%s did not stop", name)
			}
		})
	}
	e.t.Cleanup(stop)
	return stop
}

func (e *env) waitStatus(sub, id uuid.UUID, want string, within time.Duration) evaluation.Evaluation {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		ev, err := e.tenant.Evaluation(context.Background(), sub, id)
		if err != nil {
			e.t.Fatal(err)
		}
		if ev.Status == want {
			return ev
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("evaluation %s after %s, want %s", ev.Status, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) eventTypes(sub uuid.UUID) []events.Type {
	e.t.Helper()
	evs, err := e.tenant.Events(context.Background(), store.EventFilter{SubmissionID: &sub, Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []events.Type
	for i := len(evs) - 1; i >= 0; i-- {
		var env events.Envelope
		if err := json.Unmarshal(evs[i].Envelope, &env); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, env.Type)
	}
	return out
}

func testConfig() evaluator.Config {
	return evaluator.Config{Concurrency: 2, MaxAttempts: 3, Timeout: time.Minute, ProgressInterval: time.Second, QueueTimeout: time.Hour, AckWait: 2 * time.Second}
}

// An evaluation queued through the outbox runs to completed with a result whose every
// citation is on the cited page, and the submission follows.
func TestEvaluationRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.submission("runs", samplePages)
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	runtimes := make(chan *service.Runtime, 1)
	e.worker(testConfig(), engine.NewWithModel(nil, e.log), func(_ context.Context, rt *service.Runtime) ([]service.Loop, error) { runtimes <- rt; return nil, nil })
	done := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, 30*time.Second)
	metrics := (<-runtimes).Registry
	metricstest.WaitFor(t, metrics, 1, "doceval_evaluation_duration_seconds", "outcome", "completed")
	metricstest.WaitFor(t, metrics, 1, "doceval_jetstream_messages_total", "consumer", "evaluator", "outcome", "ack")
	metricstest.WaitFor(t, metrics, 0, "doceval_jetstream_consumer_ack_pending_messages", "stream", messaging.JobsStream, "consumer", "evaluator")

	var res engine.Result
	if err := json.Unmarshal(done.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 3 || len(res.Checks) != len(sub.Snapshot.Checks) || len(res.Fields) != len(sub.Snapshot.DataFields) {
		t.Fatalf("result sizes: %d documents, %d checks, %d fields", len(res.Documents), len(res.Checks), len(res.Fields))
	}
	run, err := e.st.BeginEvaluation(ctx, ev.ID, 0) // over: only to check the error
	if !errors.Is(err, evaluation.ErrOver) {
		t.Fatalf("begin after completion: %+v %v", run, err)
	}
	docs := map[uuid.UUID]*evidence.Document{}
	for name, pages := range samplePages {
		for _, d := range res.Documents {
			if d.ExternalFileID == name {
				doc := &evidence.Document{UploadID: d.UploadID, ExternalFileID: name}
				for i, p := range pages {
					doc.Pages = append(doc.Pages, evidence.Page{Number: i + 1, Text: p})
				}
				docs[d.UploadID] = doc
			}
		}
	}
	verify := func(what string, cs []evidence.Citation) {
		for _, c := range cs {
			if d := docs[c.UploadID]; d == nil || !d.Verify(c) {
				t.Errorf("%s: citation not on its page: %+v", what, c)
			}
		}
	}
	checks := map[string]engine.ResultCheck{}
	for _, c := range res.Checks {
		checks[c.Key] = c
		verify(c.Key, c.Citations)
		if !slices.Contains([]string{"fulfilled", "open", "critical", "not_applicable", "failed"}, c.Status) || c.ReasoningSummary == "" {
			t.Errorf("check %s: %+v", c.Key, c)
		}
	}
	for _, f := range res.Fields {
		verify(f.Key, f.Citations)
	}
	// The ID card expired in 2019: critical, with German reasoning.
	if c := checks["id_document_valid"]; c.Status != "critical" || len(c.Citations) == 0 {
		t.Errorf("id_document_valid: %+v", c)
	}
	if c := checks["salary_credited_on_bank_statement"]; c.Status != "fulfilled" {
		t.Errorf("salary_credited_on_bank_statement: %+v", c)
	}
	if res.Summary.Outcome != "critical_findings" || res.Summary.RiskBand != "high" {
		t.Errorf("summary %+v", res.Summary)
	}
	got, err := e.tenant.Submission(ctx, sub.ID)
	if err != nil || got.Status != submission.StatusCompleted {
		t.Errorf("submission %s %v", got.Status, err)
	}
	types := e.eventTypes(sub.ID)
	if !slices.Contains(types, events.EvaluationStarted) || types[len(types)-1] != events.EvaluationCompleted {
		t.Errorf("events %v", types)
	}
}

// blockingModel answers custom checks only when released, and says when it is asked.
type blockingModel struct {
	asked   chan struct{}
	release chan struct{}
}

func (m *blockingModel) Check(ctx context.Context, req llm.CheckRequest) (llm.CheckOutcome, error) {
	select {
	case m.asked <- struct{}{}:
	default:
	}
	select {
	case <-m.release:
	case <-ctx.Done():
		return llm.CheckOutcome{}, ctx.Err()
	}
	return llm.CheckOutcome{Status: "open", Confidence: 0.3, Reasoning: "no evidence"}, nil
}

func (m *blockingModel) Field(ctx context.Context, req llm.FieldRequest) (llm.FieldOutcome, error) {
	return llm.FieldOutcome{}, nil
}

// customCheckSubmission creates a submission whose template has a custom check (which
// the model evaluates) next to a builtin one.
func (e *env) customCheckSubmission(externalID string) submission.Submission {
	e.t.Helper()
	ctx := context.Background()
	prompt := "Does the applicant have a second job? If yes, open."
	chk, err := e.tenant.CreateCatalogEntry(ctx, catalog.FamilyCheck, catalog.Content{
		Name: "Second job", Description: "Second employment", Prompt: &prompt, Category: "other", ProductTypes: []string{"personal_loan"},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	tpl, err := e.tenant.CreateTemplate(ctx, "With custom check", catalog.Bundle{
		DocumentRequirements: []catalog.ItemInput{{Ref: "id_card"}},
		Checks:               []catalog.ItemInput{{Ref: "documents_readable"}, {Ref: chk.PublicID()}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.submissionFrom(externalID, tpl.PublicID(), samplePages)
}

// runInsideModelCall starts an evaluation of sub and runs it until it waits inside the
// model's custom check; closing model.release lets it go on, done gets Run's result.
// The run is measured on e.metrics.
func (e *env) runInsideModelCall(sub submission.Submission) (evaluation.Evaluation, *blockingModel, chan error) {
	e.t.Helper()
	ctx := context.Background()
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	model := &blockingModel{asked: make(chan struct{}, 1), release: make(chan struct{})}
	w := &evaluator.Worker{Store: e.st, Engine: engine.NewWithModel(model, e.log), Log: e.log, Cfg: testConfig(), Metrics: e.metrics}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, ev.ID, func() {}) }()
	select {
	case <-model.asked:
	case <-time.After(10 * time.Second):
		e.t.Fatal("the model was never asked")
	}
	return ev, model, done
}

// Canceling the submission while the evaluation runs stops it at the next step: the
// evaluation ends canceled with evaluation.canceled and no result is ever written.
func TestEvaluationCanceledWhileRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.customCheckSubmission("cancel")
	ev, model, done := e.runInsideModelCall(sub)
	if _, err := e.tenant.CancelSubmission(ctx, sub.ID); err != nil {
		t.Fatal(err)
	}
	close(model.release)
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	got := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCanceled, time.Second)
	if got.Result != nil {
		t.Errorf("a canceled evaluation has a result")
	}
	if n, _ := metricstest.Value(t, e.registry, "doceval_evaluation_duration_seconds", "outcome", "canceled"); n != 1 {
		t.Errorf("%v canceled runs measured, want 1", n)
	}
	types := e.eventTypes(sub.ID)
	if count(types, events.EvaluationCanceled) != 1 || slices.Contains(types, events.EvaluationCompleted) {
		t.Errorf("events %v", types)
	}
}

// Without a model, a custom check comes back failed with a reason, never invented.
func TestCustomCheckWithoutModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.customCheckSubmission("no-model")
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	w := &evaluator.Worker{Store: e.st, Engine: engine.NewWithModel(nil, e.log), Log: e.log, Cfg: testConfig()}
	if err := w.Run(ctx, ev.ID, func() {}); err != nil {
		t.Fatal(err)
	}
	done := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, time.Second)
	var res engine.Result
	if err := json.Unmarshal(done.Result, &res); err != nil {
		t.Fatal(err)
	}
	custom := res.Checks[1]
	if custom.Status != "failed" || len(custom.Citations) != 0 || !strings.Contains(custom.ReasoningSummary, "DOCEVAL_LLM_BASE_URL") {
		t.Errorf("custom check without a model: %+v", custom)
	}
}

// A worker that dies mid-run: JetStream redelivers the job after AckWait, another
// worker takes the running evaluation over, and it completes.
func TestEvaluationSurvivesWorkerDeath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.submission("death", samplePages)
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	e.killedWorker(cfg, sub.ClientID)
	e.waitStatus(sub.ID, ev.ID, evaluation.StatusRunning, time.Second)
	e.worker(cfg, engine.NewWithModel(nil, e.log))
	done := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, 30*time.Second)
	if done.Attempts < 2 {
		t.Errorf("attempts %d: the second worker did not take over", done.Attempts)
	}
	if n := count(e.eventTypes(sub.ID), events.EvaluationStarted); n != 1 {
		t.Errorf("%d evaluation.started events", n)
	}
	var stored int
	if err := e.st.Pool().QueryRow(ctx, "SELECT count(*) FROM evaluations WHERE submission_id = $1 AND result IS NOT NULL", sub.ID).Scan(&stored); err != nil || stored != 1 {
		t.Errorf("%d results stored (%v)", stored, err)
	}
}

// killedWorker plays a worker process that takes the evaluation job, begins the
// evaluation and dies: the job is never acknowledged.
func (e *env) killedWorker(cfg evaluator.Config, client uuid.UUID) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- service.RunWorker(ctx, "relay", e.common, e.log) }() // publishes the job
	defer func() { cancel(); <-done }()
	nc, err := nats.Connect(e.common.NatsURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		e.t.Fatal(err)
	}
	var cons jetstream.Consumer
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		// The consumer of the client's queue the evaluator uses.
		cons, err = js.CreateOrUpdateConsumer(ctx, messaging.QueuesStream, evaluator.EvaluateQueue(cfg).ClientConsumer(client))
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		e.t.Fatal(err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(10*time.Second))
	if err != nil {
		e.t.Fatal(err)
	}
	msg, ok := <-batch.Messages()
	if !ok {
		e.t.Fatal("no evaluation job was published")
	}
	var job jobs.EvaluateJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.st.BeginEvaluation(ctx, job.EvaluationID, cfg.MaxAttempts); err != nil {
		e.t.Fatal(err)
	}
	// … and dies: no ack, no nak.
}

func count[T comparable](xs []T, x T) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// The sweeper ends evaluations nothing has touched for longer than every delivery can
// take, so none stays running forever even when its last worker died.
func TestSweepStaleEvaluations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.submission("stale", samplePages)
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.BeginEvaluation(ctx, ev.ID, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Pool().Exec(ctx, "UPDATE evaluations SET updated_at = now() - interval '1 day' WHERE id = $1", ev.ID); err != nil {
		t.Fatal(err)
	}
	sweepCtx, cancel := context.WithCancel(ctx)
	w := &evaluator.Worker{Store: e.st, Engine: engine.NewWithModel(nil, e.log), Log: e.log, Cfg: testConfig()}
	go w.SweepStale(sweepCtx)
	got := e.waitStatus(sub.ID, ev.ID, evaluation.StatusFailed, 10*time.Second)
	cancel()
	if got.Failure == nil || got.Failure.Code != "evaluation_stalled" {
		t.Errorf("failure %+v", got.Failure)
	}
}

// panickingModel stands for a bug the engine meets on some input.
type panickingModel struct{}

func (panickingModel) Check(context.Context, llm.CheckRequest) (llm.CheckOutcome, error) {
	panic("index out of range")
}

func (panickingModel) Field(context.Context, llm.FieldRequest) (llm.FieldOutcome, error) {
	return llm.FieldOutcome{}, nil
}

// An evaluation the engine cannot finish ends failed with a code (evaluation.failed),
// at once rather than after every redelivery; one that runs past its budget ends
// evaluation_timeout. The submission follows to failed either way.
func TestEvaluationFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		model   engine.Model
		code    string
		outcome string
	}{
		{"engine panic", panickingModel{}, "processing_error", "failed"},
		{"timeout", &blockingModel{asked: make(chan struct{}, 1), release: make(chan struct{})}, "evaluation_timeout", "timeout"},
	} {
		sub := e.customCheckSubmission("fail-" + strings.ReplaceAll(tc.name, " ", "-"))
		ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig()
		cfg.Timeout = 500 * time.Millisecond
		w := &evaluator.Worker{Store: e.st, Engine: engine.NewWithModel(tc.model, e.log), Log: e.log, Cfg: cfg, Metrics: e.metrics}
		if err := w.Run(ctx, ev.ID, func() {}); err != nil {
			t.Fatalf("%s: run: %v", tc.name, err)
		}
		if n, _ := metricstest.Value(t, e.registry, "doceval_evaluation_duration_seconds", "outcome", tc.outcome); n != 1 {
			t.Errorf("%s: %v runs measured as %s, want 1", tc.name, n, tc.outcome)
		}
		got := e.waitStatus(sub.ID, ev.ID, evaluation.StatusFailed, time.Second)
		if got.Failure == nil || got.Failure.Code != tc.code || got.Result != nil {
			t.Errorf("%s: failure %+v", tc.name, got.Failure)
		}
		if s, _ := e.tenant.Submission(ctx, sub.ID); s.Status != submission.StatusFailed {
			t.Errorf("%s: submission %s", tc.name, s.Status)
		}
		if n := count(e.eventTypes(sub.ID), events.EvaluationFailed); n != 1 {
			t.Errorf("%s: %d evaluation.failed events", tc.name, n)
		}
	}
}

// A submission deleted and purged while its evaluation runs: the run ends quietly, the
// job is acknowledged, nothing is written.
func TestEvaluationPurgedWhileRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.customCheckSubmission("purge")
	ev, model, done := e.runInsideModelCall(sub)
	if err := e.tenant.DeleteSubmission(ctx, sub.ID); err != nil {
		t.Fatal(err)
	}
	none := func(context.Context, string) error { return nil }
	if err := e.st.PurgeSubmission(ctx, sub.ID, none, none); err != nil {
		t.Fatal(err)
	}
	close(model.release)
	if err := <-done; err != nil {
		t.Errorf("run after purge: %v", err)
	}
	var n int
	if err := e.st.Pool().QueryRow(ctx, "SELECT count(*) FROM evaluations WHERE id = $1", ev.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d evaluations left (%v)", n, err)
	}
}

// An evaluation whose job was lost (its outbox row removed before the relay saw it)
// is enqueued again by the reconciler once nothing can still be in flight, and
// completes instead of waiting for the queue timeout.
func TestLostEvaluationJobIsReconciled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sub := e.submission("lost", samplePages)
	ev, err := e.tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Pool().Exec(ctx, "DELETE FROM outbox WHERE starts_with(subject, $1)", jobs.QueueSubjectPrefix+jobs.EvaluateQueue); err != nil {
		t.Fatal(err)
	}
	e.worker(testConfig(), engine.NewWithModel(nil, e.log))
	nc, err := nats.Connect(e.common.NatsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	w := &evaluator.Worker{Store: e.st, Engine: engine.NewWithModel(nil, e.log), Log: e.log, Cfg: testConfig()}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := w.ReconcileOnce(ctx, js, 0, time.Hour)
		if err == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lost job was not enqueued again: %d, %v", n, err)
		}
		time.Sleep(200 * time.Millisecond) // the worker's consumer is being created
	}
	done := e.waitStatus(sub.ID, ev.ID, evaluation.StatusCompleted, 30*time.Second)
	if done.Attempts != 1 {
		t.Errorf("%d attempts, want 1", done.Attempts)
	}
	if n, _ := w.ReconcileOnce(ctx, js, 0, 0); n != 0 {
		t.Errorf("a completed evaluation was enqueued again (%d)", n)
	}
}
