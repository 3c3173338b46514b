package sdk

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// DefaultWaitInterval is four polls a minute: the API asks clients to poll at most
// a few times per minute (webhooks are the intended path).
const DefaultWaitInterval = 15 * time.Second

// WaitOptions tunes WaitForEvaluation.
type WaitOptions struct {
	// Interval between polls; default DefaultWaitInterval. Keep it polite.
	Interval time.Duration
	// OnProgress, when set, is called with the first evaluation read and then whenever
	// its status, stage or progress changed.
	OnProgress func(*client.Evaluation)
}

// WaitForEvaluation polls the evaluation until it is no longer queued or running and
// returns it. That is completed, failed or canceled today; a status this SDK does not
// know is returned too rather than waited on forever, so check Status. When ctx ends
// first it returns the last evaluation read with ctx's error.
func (c *Client) WaitForEvaluation(ctx context.Context, submissionID, evaluationID uuid.UUID, opts WaitOptions) (*client.Evaluation, error) {
	interval := opts.Interval
	if interval <= 0 {
		interval = DefaultWaitInterval
	}
	var last *client.Evaluation
	for {
		ev, err := c.GetEvaluation(ctx, submissionID, evaluationID)
		if err != nil {
			return last, err
		}
		if opts.OnProgress != nil && changed(last, ev) {
			opts.OnProgress(ev)
		}
		last = ev
		if !inProgress(ev.Status) {
			return ev, nil
		}
		if err := sleepContext(ctx, interval); err != nil {
			return last, err
		}
	}
}

// inProgress is true only for the statuses known to move on by themselves.
func inProgress(s client.EvaluationStatus) bool {
	return s == client.EvaluationStatusQueued || s == client.EvaluationStatusRunning
}

func changed(before, now *client.Evaluation) bool {
	return before == nil || before.Status != now.Status || before.StageLabel != now.StageLabel ||
		before.ProgressPercent != now.ProgressPercent
}
