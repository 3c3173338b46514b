// Package ingest is the doceval-ingest worker: it consumes upload jobs, extracts each
// upload's text page by page (pkg/extract), records it, and marks the upload ready or
// failed with file.ready / file.failed. It also runs the submission purge jobs, since it
// owns the stored bytes. Every handler is idempotent: JetStream delivers at least once,
// and a worker killed mid-file sees the job again after AckWait.
package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/blob"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/extractor"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/store"
)

// Config is the ingest service's configuration.
type Config struct {
	MaxPages int `env:"DOCEVAL_INGEST_MAX_PAGES" envDefault:"500"`
	// MaxOCRPages bounds the pages of one file read by OCR (scans, blank or garbled
	// pages): more fail the upload with too_many_pages.
	MaxOCRPages int `env:"DOCEVAL_INGEST_MAX_OCR_PAGES" envDefault:"100"`
	// ToolMaxMemory is the address space each document tool may use (extract.Limits).
	ToolMaxMemory int64         `env:"DOCEVAL_TOOL_MAX_MEMORY" envDefault:"2147483648"`
	FileTimeout   time.Duration `env:"DOCEVAL_INGEST_FILE_TIMEOUT" envDefault:"5m"`
	Concurrency   int           `env:"DOCEVAL_INGEST_CONCURRENCY" envDefault:"2"`
	// ClientConcurrency caps how many of one API client's uploads a process works on at
	// once (0: no cap; a client alone uses every slot, and each client's turn comes
	// anyway: messaging.ConsumeFair).
	ClientConcurrency int `env:"DOCEVAL_INGEST_CLIENT_CONCURRENCY" envDefault:"0"`
	// MaxAttempts bounds the attempts that reach the file (deliveries that meet an
	// outage of the database or blob store do not count); one more marks the upload
	// failed (processing_error) so it never stays processing.
	MaxAttempts int    `env:"DOCEVAL_INGEST_MAX_ATTEMPTS" envDefault:"8"`
	Languages   string `env:"DOCEVAL_OCR_LANGUAGES" envDefault:"deu+eng"`
	// AckWait is how long a job may be in work before JetStream hands it to another
	// replica (a worker killed mid-file); default FileTimeout plus a minute.
	AckWait time.Duration `env:"DOCEVAL_INGEST_ACK_WAIT"`
	TempDir string        `env:"DOCEVAL_INGEST_TEMP_DIR"`
	// Extractor is where documents are parsed: the extractor service, or this process.
	Extractor extractor.Config
	// ParserIsolation is where the document tools run: "sandbox" (bubblewrap; the
	// service refuses to start where it cannot be made) or "unconfined" (development,
	// or where something else confines the tools). See extract.Limits.
	ParserIsolation extract.Confinement `env:"DOCEVAL_PARSER_ISOLATION" envDefault:"sandbox"`
}

// CheckParsers makes sure the document tools can run as ParserIsolation says (unless
// the extractor service parses the documents), and describes how they run; the
// service must not start on an error (a sandbox that cannot be made where
// "unconfined" was not asked for).
func (c Config) CheckParsers(ctx context.Context) (string, error) {
	how, err := extractor.CheckConfined(ctx, c.Extractor, c.ParserIsolation, c.TempDir)
	if err != nil {
		return "", fmt.Errorf("ingest: %w", err)
	}
	return how, nil
}

func (c Config) ackWait() time.Duration {
	if c.AckWait > 0 {
		return c.AckWait
	}
	return c.FileTimeout + time.Minute
}

// Worker processes ingest and purge jobs.
type Worker struct {
	Store   *store.Store
	Blobs   *blob.Store
	Log     *slog.Logger
	Cfg     Config
	Metrics *Metrics // nil: not measured
	// Parser runs the document tools: in this process (nil, extractor.Local) or in the
	// extractor service.
	Parser extractor.Parser

	// suspects are the objects the last sweep found unreferenced (SweepOnce).
	suspects   map[string]bool
	suspectsMu sync.Mutex
}

// Build is the ingest worker for service.RunWorker: built once from the runtime, it
// runs the ingest, purge and blob-delete consumers, the reconciler of lost jobs and the
// sweep of unreferenced objects.
func Build(cfg Config, log *slog.Logger) service.Build {
	return func(ctx context.Context, rt *service.Runtime) ([]service.Loop, error) {
		blobs, err := rt.Blobs(ctx)
		if err != nil {
			return nil, err
		}
		parser, err := extractor.New(cfg.Extractor)
		if err != nil {
			return nil, err
		}
		log.Info("documents parsed", "parser", parser.Describe(), "max_memory_bytes", cfg.ToolMaxMemory)
		w := &Worker{Store: rt.Store, Blobs: blobs, Log: log, Cfg: cfg, Metrics: NewMetrics(rt.Registry, rt.Store), Parser: parser}
		return []service.Loop{
			func(ctx context.Context) error {
				return rt.ConsumeFair(ctx, IngestQueue(cfg), w.HandleIngest, log.With("consumer", "ingest"))
			},
			func(ctx context.Context) error { return w.Reconcile(ctx, rt.JS) },
			w.Sweep,
			func(ctx context.Context) error {
				return rt.Consume(ctx, messaging.ConsumerSpec{
					Stream: messaging.JobsStream, Durable: "purge", FilterSubject: jobs.PurgeSubject,
					AckWait: 5 * time.Minute, MaxDeliver: -1, Concurrency: 1,
				}, w.HandlePurge, log.With("consumer", "purge"))
			},
			func(ctx context.Context) error {
				return rt.Consume(ctx, messaging.ConsumerSpec{
					Stream: messaging.JobsStream, Durable: "blob-delete", FilterSubject: jobs.BlobDeleteSubject,
					AckWait: time.Minute, MaxDeliver: -1, Concurrency: 2,
				}, w.HandleBlobDelete, log.With("consumer", "blob-delete"))
			},
		}, nil
	}
}

// IngestQueue is how ingest works on the upload jobs: each API client's in turn.
func IngestQueue(cfg Config) messaging.FairSpec {
	return messaging.FairSpec{
		Queue: jobs.IngestQueue, Durable: "ingest", Legacy: jobs.IngestSubject,
		// Unlimited deliveries: an outage must not use up the job; the attempt budget is
		// counted in the database (BeginIngestAttempt).
		AckWait: cfg.ackWait(), MaxDeliver: -1, Concurrency: cfg.Concurrency, ClientConcurrency: cfg.ClientConcurrency,
	}
}

// HandleIngest processes one ingest job message.
func (w *Worker) HandleIngest(ctx context.Context, msg jetstream.Msg) error {
	var job jobs.IngestJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		return fmt.Errorf("ingest job: %v: %w", err, messaging.ErrPermanent)
	}
	start := time.Now()
	outcome, err := w.process(ctx, job, func() { _ = msg.InProgress() })
	w.Metrics.observe(outcome, time.Since(start))
	return err
}

// process extracts one upload's text and records the outcome. Bad input ends as a failed
// upload; only infrastructure errors (database, blob store, missing tools) return an
// error (outcome retry), so the job is retried. Outcome "" is an upload with nothing
// left to do.
func (w *Worker) process(ctx context.Context, job jobs.IngestJob, heartbeat func()) (outcome string, err error) {
	u, err := w.Store.UploadForIngest(ctx, job.UploadID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil // deleted or purged meanwhile
	}
	if err != nil {
		return outcomeRetry, err
	}
	if u.Status != submission.UploadProcessing {
		return "", nil // done by an earlier delivery
	}
	// A disabled client's files are not parsed: the job is set aside until it is enabled.
	held, err := w.Store.HoldIngest(ctx, u)
	switch {
	case err != nil:
		return outcomeRetry, err
	case held:
		w.Log.InfoContext(ctx, "ingest held: the upload's API client is disabled", "upload_id", u.ID)
		return "", nil
	}
	start := time.Now()
	path, err := w.download(ctx, u.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		// Deleted between the read and the download (FinishIngest then finds no row),
		// or the bytes are lost: either way the upload must not stay processing.
		w.Log.WarnContext(ctx, "upload failed: stored file missing", "upload_id", u.ID, "blob_key", u.BlobKey)
		return settled(outcomeFailed, w.Store.FinishIngest(ctx, u.ID, nil, nil, &submission.UploadFailure{
			Code: "processing_error", Message: "the stored file is missing; upload it again",
		}))
	}
	if err != nil {
		return outcomeRetry, err
	}
	defer os.Remove(path)
	heartbeat()
	// An extractor service that is down is an outage like the database's: the delivery
	// is retried without counting against the file.
	parser := w.parser()
	if err := parser.Ready(ctx); err != nil {
		return outcomeRetry, err
	}
	// From here on the attempt counts: the file itself may be what kills the worker.
	attempts, err := w.Store.BeginIngestAttempt(ctx, u.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", nil // finished or deleted meanwhile
	case err != nil:
		return outcomeRetry, err
	case w.Cfg.MaxAttempts > 0 && attempts > w.Cfg.MaxAttempts:
		w.Log.ErrorContext(ctx, "ingest gives up", "upload_id", u.ID, "attempts", attempts-1)
		return settled(outcomeFailed, w.Store.FinishIngest(ctx, u.ID, nil, nil, &submission.UploadFailure{
			Code: "processing_error", Message: "the file could not be processed; upload it again or contact support",
		}))
	}

	res, err := parser.File(ctx, path, u.ContentType, extract.Options{
		MaxPages: w.Cfg.MaxPages, MaxOCRPages: w.Cfg.MaxOCRPages, Timeout: w.Cfg.FileTimeout, Languages: w.Cfg.Languages,
		TempDir: w.Cfg.TempDir, Limits: extract.Limits{MaxMemory: w.Cfg.ToolMaxMemory, Confinement: w.Cfg.ParserIsolation},
	})
	var failure *extract.Failure
	switch {
	case errors.Is(err, extractor.ErrUnavailable):
		// The extractor was busy or could not be reached: the file was never parsed, so
		// the attempt is not the file's.
		if err := w.Store.GiveBackIngestAttempt(context.WithoutCancel(ctx), u.ID); err != nil {
			w.Log.WarnContext(ctx, "give back an ingest attempt", "upload_id", u.ID, "error", err)
		}
		return outcomeRetry, err
	case errors.As(err, &failure):
		w.Log.InfoContext(ctx, "upload failed", "upload_id", u.ID, "code", failure.Code, "duration_ms", time.Since(start).Milliseconds())
		return settled(outcomeFailed, w.Store.FinishIngest(ctx, u.ID, nil, nil, &submission.UploadFailure{Code: failure.Code, Message: failure.Message}))
	case err != nil:
		return outcomeRetry, err
	}
	w.Log.InfoContext(ctx, "upload ready", "upload_id", u.ID, "pages", len(res.Pages), "duration_ms", time.Since(start).Milliseconds())
	if err := w.Store.FinishIngest(ctx, u.ID, res.Pages, res.Metadata, nil); err != nil {
		return outcomeRetry, err
	}
	w.Metrics.countPages(res.Pages)
	return outcomeReady, nil
}

func (w *Worker) parser() extractor.Parser {
	if w.Parser == nil {
		return extractor.Local{}
	}
	return w.Parser
}

// settled is the outcome of recording an upload's end: the intended one, or retry when
// recording failed.
func settled(outcome string, err error) (string, error) {
	if err != nil {
		return outcomeRetry, err
	}
	return outcome, nil
}

// download copies a stored file to a temporary file for the extraction tools.
func (w *Worker) download(ctx context.Context, key string) (string, error) {
	r, err := w.Blobs.Reader(ctx, key)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := os.CreateTemp(w.Cfg.TempDir, "doceval-ingest-*")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// reconcileAfter is how long a processing upload's job may go without being enqueued
// again before the reconciler looks at it: longer than a delivery can take.
func (c Config) reconcileAfter() time.Duration { return c.ackWait() + time.Minute }

// Reconcile enqueues again, through the outbox, the ingest and purge jobs that were
// lost (a message dropped while NATS was down or a stream was rebuilt), once a minute,
// so no upload stays processing and no submission stays purging for want of a job.
// Every replica may run it.
func (w *Worker) Reconcile(ctx context.Context, js jetstream.JetStream) error {
	return service.Every(ctx, time.Minute, func(ctx context.Context) {
		if _, err := w.ReconcileOnce(ctx, js, w.Cfg.reconcileAfter()); err != nil && ctx.Err() == nil {
			w.Log.WarnContext(ctx, "reconcile uploads", "error", err)
		}
		if _, err := w.ReconcilePurgesOnce(ctx, js, purgeReconcileAfter); err != nil && ctx.Err() == nil {
			w.Log.WarnContext(ctx, "reconcile purges", "error", err)
		}
	})
}

// ReconcileOnce re-enqueues the jobs of uploads processing without a job enqueued for
// longer than age, when none can still be in flight (service.LostJobs). It returns how
// many it enqueued.
func (w *Worker) ReconcileOnce(ctx context.Context, js jetstream.JetStream, age time.Duration) (int, error) {
	return service.LostJobs{
		Queue: jobs.IngestQueue, Subject: jobs.IngestSubject, Durable: "ingest",
		Orphans: func(ctx context.Context) ([]uuid.UUID, error) { return w.Store.OrphanedUploads(ctx, age) },
		Requeue: func(ctx context.Context, id uuid.UUID) (bool, error) { return w.Store.RequeueUpload(ctx, id, age) },
		Log:     w.Log, LogKey: "upload_id",
	}.Reconcile(ctx, w.Store, js)
}

// HandleBlobDelete removes the stored bytes of a deleted upload (and its rendered pages). A missing object is
// done already; any other failure returns the job for another delivery, for as long as
// it takes (the consumer never gives up on it).
func (w *Worker) HandleBlobDelete(ctx context.Context, msg jetstream.Msg) error {
	var job jobs.BlobDeleteJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil || job.Key == "" {
		return fmt.Errorf("blob delete job %q: %w", msg.Data(), messaging.ErrPermanent)
	}
	if err := w.Blobs.Delete(ctx, job.Key); err != nil {
		return fmt.Errorf("delete %s: %w", job.Key, err)
	}
	if job.Prefix != "" {
		if err := w.Blobs.DeletePrefix(ctx, job.Prefix); err != nil {
			return fmt.Errorf("delete %s: %w", job.Prefix, err)
		}
	}
	return nil
}

// HandlePurge removes one submission's data.
func (w *Worker) HandlePurge(ctx context.Context, msg jetstream.Msg) error {
	var job jobs.PurgeJob
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		return fmt.Errorf("purge job: %v: %w", err, messaging.ErrPermanent)
	}
	if err := w.Store.PurgeSubmission(ctx, job.SubmissionID, w.Blobs.Delete, w.Blobs.DeletePrefix); err != nil {
		return err
	}
	w.Log.InfoContext(ctx, "submission purged", "submission_id", job.SubmissionID)
	return nil
}
