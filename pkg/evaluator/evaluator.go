// Package evaluator is the doceval-evaluator worker: it consumes evaluation jobs, runs
// the engine over the submission's input documents and records the outcome with the
// evaluation.* events. Every step is idempotent: JetStream delivers at least once, and a
// worker killed mid-run sees the job again after AckWait; an evaluation never stays
// running forever, unless its API client is disabled: then its job is held (not run,
// no attempt counted) until the client is enabled again.
package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
)

// Config is the evaluator's configuration.
type Config struct {
	Concurrency int `env:"DOCEVAL_EVALUATOR_CONCURRENCY" envDefault:"2"`
	// ClientConcurrency caps how many of one API client's evaluations a process runs at
	// once (0: no cap; a client alone uses every slot, and each client's turn comes
	// anyway: messaging.ConsumeFair).
	ClientConcurrency int `env:"DOCEVAL_EVALUATOR_CLIENT_CONCURRENCY" envDefault:"0"`
	// MaxAttempts bounds the deliveries that may begin one evaluation; the next one ends
	// it as failed (evaluation_crashed), so a job that kills its worker cannot loop.
	MaxAttempts int `env:"DOCEVAL_EVALUATOR_MAX_ATTEMPTS" envDefault:"3"`
	// Timeout bounds one evaluation; past it the evaluation fails (evaluation_timeout).
	Timeout time.Duration `env:"DOCEVAL_EVALUATION_TIMEOUT" envDefault:"10m"`
	// ProgressInterval throttles evaluation.progress per evaluation.
	ProgressInterval time.Duration `env:"DOCEVAL_EVALUATION_PROGRESS_INTERVAL" envDefault:"1s"`
	// QueueTimeout ends an evaluation still queued after this long (its job was lost).
	QueueTimeout time.Duration `env:"DOCEVAL_EVALUATION_QUEUE_TIMEOUT" envDefault:"24h"`
	// AckWait is how long a job may go without a heartbeat before JetStream hands it to
	// another replica (its worker died); the engine beats at every step. Default: a
	// minute.
	AckWait time.Duration `env:"DOCEVAL_EVALUATOR_ACK_WAIT"`
	LLM     engine.LLMConfig
}

func (c Config) ackWait() time.Duration {
	if c.AckWait > 0 {
		return c.AckWait
	}
	return time.Minute
}

// staleAfter is how long a running evaluation may go untouched before the sweeper ends
// it: longer than a step can take and every allowed delivery has had its time.
func (c Config) staleAfter() time.Duration {
	return c.Timeout + time.Duration(max(c.MaxAttempts, 1)+1)*(c.ackWait()+time.Minute)
}

// Worker runs evaluations.
type Worker struct {
	Store   *store.Store
	Engine  *engine.Engine
	Log     *slog.Logger
	Cfg     Config
	Metrics *Metrics // nil: not measured
}

// Build is the evaluator for service.RunWorker, its engine made first (a bad language
// model configuration stops the service before it connects to anything).
func Build(cfg Config, log *slog.Logger) (service.Build, error) {
	eng, err := engine.New(cfg.LLM, log)
	if err != nil {
		return nil, err
	}
	return BuildWith(cfg, eng, log), nil
}

// BuildWith is the evaluator around a given engine: built once from the runtime, it runs
// the evaluation consumer, the sweep of stale runs and the reconciler of lost jobs.
func BuildWith(cfg Config, eng *engine.Engine, log *slog.Logger) service.Build {
	return func(_ context.Context, rt *service.Runtime) ([]service.Loop, error) {
		w := &Worker{Store: rt.Store, Engine: eng, Log: log, Cfg: cfg, Metrics: NewMetrics(rt.Registry)}
		return []service.Loop{
			func(ctx context.Context) error {
				return rt.ConsumeFair(ctx, EvaluateQueue(cfg), w.HandleEvaluate, log.With("consumer", "evaluator"))
			},
			w.SweepStale,
			func(ctx context.Context) error { return w.Reconcile(ctx, rt.JS) },
		}, nil
	}
}

// EvaluateQueue is how the evaluator works on the evaluation jobs: each API client's in
// turn.
func EvaluateQueue(cfg Config) messaging.FairSpec {
	return messaging.FairSpec{
		Queue: jobs.EvaluateQueue, Durable: "evaluator", Legacy: jobs.EvaluateSubject,
		// Unlimited deliveries: an outage must not use up the job; the attempt budget is
		// counted in the database when a run begins (BeginEvaluation).
		AckWait: cfg.ackWait(), MaxDeliver: -1, Concurrency: cfg.Concurrency, ClientConcurrency: cfg.ClientConcurrency,
	}
}

// HandleEvaluate processes one evaluation job message.
func (w *Worker) HandleEvaluate(ctx context.Context, msg jetstream.Msg) error {
	var job jobs.EvaluateJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		return fmt.Errorf("evaluation job: %v: %w", err, messaging.ErrPermanent)
	}
	return w.Run(ctx, job.EvaluationID, func() { _ = msg.InProgress() })
}

// Run runs one evaluation to its end: completed, failed, or canceled meanwhile. Only
// infrastructure errors (database) return an error, so the job is retried.
func (w *Worker) Run(ctx context.Context, id uuid.UUID, heartbeat func()) error {
	start := time.Now()
	outcome, err := w.run(ctx, id, heartbeat)
	w.Metrics.observe(outcome, time.Since(start))
	return err
}

// run is Run with the run's outcome ("" when no run began).
func (w *Worker) run(ctx context.Context, id uuid.UUID, heartbeat func()) (outcome string, err error) {
	run, err := w.Store.BeginEvaluation(ctx, id, w.Cfg.MaxAttempts)
	switch {
	case errors.Is(err, evaluation.ErrOver), errors.Is(err, store.ErrNotFound):
		return "", nil // finished, canceled, or purged: nothing to do
	case errors.Is(err, store.ErrClientDisabled):
		w.Log.InfoContext(ctx, "evaluation held: its API client is disabled", "evaluation_id", id)
		return "", nil // set aside: enabling the client enqueues it again
	case err != nil:
		return "", err
	}
	log := w.Log.With("evaluation_id", id, "submission_id", run.Submission.ID, "attempt", run.Evaluation.Attempts)
	start := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, w.Cfg.Timeout)
	defer cancel()
	go beat(runCtx, w.Cfg.ackWait()/3, heartbeat) // a long model call is no dead worker
	progress := func(stage string, percent int) error {
		return w.Store.EvaluationProgress(ctx, id, stage, percent, w.Cfg.ProgressInterval)
	}
	result, err := w.Engine.Evaluate(runCtx, Input(run), progress)
	switch {
	case errors.Is(err, evaluation.ErrOver), errors.Is(err, store.ErrNotFound):
		log.InfoContext(ctx, "evaluation canceled (or its submission purged) while running")
		return outcomeCanceled, nil
	case errors.Is(err, store.ErrClientDisabled):
		log.InfoContext(ctx, "evaluation held while running: its API client was disabled")
		return outcomeHeld, nil
	case ctx.Err() != nil:
		return outcomeRetry, ctx.Err() // shutting down: another delivery takes over
	case errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(ctx, "evaluation timed out", "timeout", w.Cfg.Timeout)
		return w.failed(ctx, id, outcomeTimeout, "evaluation_timeout", fmt.Sprintf("the evaluation took longer than %s", w.Cfg.Timeout))
	case errors.As(err, new(*engine.StepError)):
		return outcomeRetry, err // the database failed under a progress step: retry the job
	case err != nil:
		log.ErrorContext(ctx, "evaluation failed", "error", err)
		return w.failed(ctx, id, outcomeFailed, "processing_error", "the evaluation could not be completed; start a new evaluation or contact support")
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return w.failed(ctx, id, outcomeFailed, "processing_error", "the evaluation result could not be stored")
	}
	err = w.Store.CompleteEvaluation(ctx, id, raw)
	switch {
	case errors.Is(err, evaluation.ErrOver) || errors.Is(err, store.ErrNotFound):
		log.InfoContext(ctx, "evaluation canceled before its result was stored")
		return outcomeCanceled, nil
	case err != nil:
		return outcomeRetry, err
	}
	log.InfoContext(ctx, "evaluation completed", "outcome", result.Summary.Outcome, "documents", len(result.Documents),
		"duration_ms", time.Since(start).Milliseconds())
	return outcomeCompleted, nil
}

// beat calls heartbeat every interval until ctx ends.
func beat(ctx context.Context, interval time.Duration, heartbeat func()) {
	t := time.NewTicker(max(interval, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			heartbeat()
		}
	}
}

func (w *Worker) fail(ctx context.Context, id uuid.UUID, code, message string) error {
	err := w.Store.FailEvaluation(ctx, id, code, message)
	if errors.Is(err, evaluation.ErrOver) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// failed ends a run as failed with code: the run's outcome is outcome, or retry when the
// database failed.
func (w *Worker) failed(ctx context.Context, id uuid.UUID, outcome, code, message string) (string, error) {
	if err := w.fail(ctx, id, code, message); err != nil {
		return outcomeRetry, err
	}
	return outcome, nil
}

// Reconcile enqueues again, through the outbox, the jobs of active evaluations whose
// message was lost (dropped while NATS was down, a stream rebuilt), once a minute.
// Every replica may run it.
func (w *Worker) Reconcile(ctx context.Context, js jetstream.JetStream) error {
	return service.Every(ctx, time.Minute, func(ctx context.Context) {
		queued := w.Cfg.ackWait() + time.Minute
		if _, err := w.ReconcileOnce(ctx, js, queued, w.Cfg.Timeout+queued); err != nil && ctx.Err() == nil {
			w.Log.WarnContext(ctx, "reconcile evaluations", "error", err)
		}
	})
}

// ReconcileOnce re-enqueues the jobs of queued evaluations untouched for longer than
// queued and running ones untouched for longer than running (a live run touches its
// row within its timeout), when none can still be in flight (service.LostJobs). A run
// begun again counts against the attempt budget. It returns how many it enqueued.
func (w *Worker) ReconcileOnce(ctx context.Context, js jetstream.JetStream, queued, running time.Duration) (int, error) {
	return service.LostJobs{
		Queue: jobs.EvaluateQueue, Subject: jobs.EvaluateSubject, Durable: "evaluator",
		Orphans: func(ctx context.Context) ([]uuid.UUID, error) {
			return w.Store.OrphanedEvaluations(ctx, queued, running)
		},
		Requeue: func(ctx context.Context, id uuid.UUID) (bool, error) {
			return w.Store.RequeueEvaluation(ctx, id, queued)
		},
		Log: w.Log, LogKey: "evaluation_id",
	}.Reconcile(ctx, w.Store, js)
}

// SweepStale ends evaluations that stayed running longer than every allowed delivery
// can take (the worker died on the last one) or stayed queued past QueueTimeout (the
// job was lost), so no evaluation stays active forever. Every replica may run it.
func (w *Worker) SweepStale(ctx context.Context) error {
	return service.Every(ctx, time.Minute, func(ctx context.Context) {
		ids, err := w.Store.StaleEvaluations(ctx, w.Cfg.staleAfter(), w.Cfg.QueueTimeout)
		if err != nil && ctx.Err() == nil {
			w.Log.WarnContext(ctx, "sweep stale evaluations", "error", err)
		}
		for _, id := range ids {
			if err := w.fail(ctx, id, "evaluation_stalled", "the evaluation did not finish; start a new evaluation"); err != nil {
				w.Log.WarnContext(ctx, "end stale evaluation", "evaluation_id", id, "error", err)
			}
		}
	})
}
