package devstack

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/devtools/corpus"
	"github.com/doceval/doceval/pkg/sdk"
)

// PackageRunOptions configures PackageRun.
type PackageRunOptions struct {
	BaseURL, APIKey string
	// Packages is how many applicant packages to send, Parallel how many at a time.
	Packages, Parallel int
	// MinFiles and MaxFiles bound a package's files: corpus cases outside are skipped.
	MinFiles, MaxFiles int
	Seed               int64
	Out                io.Writer
}

// PackageRun sends applicant packages to a running stack (make run) as one API client
// would: per package a submission, then all its files at once, Parallel packages at a
// time; and it reports, per file, the time from the start of its upload until it is
// ready or failed (polled every 100 ms), as median, p90 and maximum. The packages are
// corpus cases (the generated applicants' documents) of MinFiles to MaxFiles files.
func PackageRun(ctx context.Context, o PackageRunOptions) error {
	c, err := sdk.New(o.BaseURL, o.APIKey)
	if err != nil {
		return err
	}
	var cases []corpus.Case
	for _, cs := range corpus.Generate(o.Seed, time.Now().UTC(), o.Packages*8) {
		if n := len(cs.Docs); n >= o.MinFiles && n <= o.MaxFiles && len(cases) < o.Packages {
			cases = append(cases, cs)
		}
	}
	if len(cases) < o.Packages {
		return fmt.Errorf("the corpus gave %d packages of %d to %d files, want %d", len(cases), o.MinFiles, o.MaxFiles, o.Packages)
	}
	run := uuid.NewString()[:8]
	var (
		mu     sync.Mutex
		took   []time.Duration
		failed int
		errs   []error
	)
	start := time.Now()
	sem := make(chan struct{}, max(1, o.Parallel))
	var wg sync.WaitGroup
	for i, cs := range cases {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			times, nFailed, err := sendPackage(ctx, c, fmt.Sprintf("package-%s-%d", run, i), cs)
			mu.Lock()
			defer mu.Unlock()
			took, failed = append(took, times...), failed+nFailed
			if err != nil {
				errs = append(errs, err)
			}
			fmt.Fprintf(o.Out, "package %d: %d files, slowest %s\n", i+1, len(cs.Docs), slices.Max(append(times, 0)).Round(100*time.Millisecond))
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("%d packages failed, the first: %w", len(errs), errs[0])
	}
	slices.Sort(took)
	at := func(q float64) time.Duration {
		return took[min(len(took)-1, int(q*float64(len(took))))].Round(100 * time.Millisecond)
	}
	fmt.Fprintf(o.Out, "\n%d packages, %d files (%d failed) in %s, %d at a time\nupload → ready per file: median %s, p90 %s, max %s\n",
		len(cases), len(took), failed, time.Since(start).Round(time.Second), o.Parallel, at(0.5), at(0.9), took[len(took)-1].Round(100*time.Millisecond))
	return nil
}

// sendPackage creates a submission for cs and uploads its files at once, returning each
// file's time from upload start to a final status and how many failed. It watches the
// package with one list of its uploads every 250 ms, as a partner polling would (well
// under the API's rate limit with a few packages at a time).
func sendPackage(ctx context.Context, c *sdk.Client, external string, cs corpus.Case) ([]time.Duration, int, error) {
	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: external})
	if err != nil {
		return nil, 0, err
	}
	started := map[uuid.UUID]time.Time{}
	var mu sync.Mutex
	errs := make([]error, len(cs.Docs))
	var wg sync.WaitGroup
	for i, d := range cs.Docs {
		wg.Go(func() {
			start := time.Now()
			u, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{
				ExternalFileID: fmt.Sprintf("%s-%d", d.Name, i), Filename: d.Name, ContentType: d.ContentType,
				Body: bytes.NewReader(d.Bytes), Size: int64(len(d.Bytes)),
			})
			if err != nil {
				errs[i] = fmt.Errorf("%s %s: %w", external, d.Name, err)
				return
			}
			mu.Lock()
			started[u.Id] = start
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	var times []time.Duration
	failed := 0
	for len(started) > 0 {
		select {
		case <-ctx.Done():
			return times, failed, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		for u, err := range c.ListUploads(ctx, sub.Id, nil) {
			if err != nil {
				return times, failed, fmt.Errorf("%s: list uploads: %w", external, err)
			}
			if start, ok := started[u.Id]; ok && u.UploadStatus != client.UploadStatusProcessing {
				times = append(times, time.Since(start))
				if u.UploadStatus == client.UploadStatusFailed {
					failed++
				}
				delete(started, u.Id)
			}
		}
	}
	return times, failed, nil
}
