package sdk

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
)

// evaluationSequence answers the evaluations in order, then the last one forever.
func evaluationSequence(states ...map[string]any) (http.HandlerFunc, *atomic.Int32) {
	var calls atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1)) - 1
		writeJSON(w, http.StatusOK, states[min(n, len(states)-1)])
	}, &calls
}

func TestWaitForEvaluationUntilCompleted(t *testing.T) {
	t.Parallel()
	h, calls := evaluationSequence(
		evaluationJSON("queued", 0, "Queued"),
		evaluationJSON("running", 10, "Reading"),
		evaluationJSON("running", 10, "Reading"),
		evaluationJSON("running", 60, "Checking"),
		evaluationJSON("completed", 100, "Done"),
	)
	c, _ := newTestClient(t, h)
	var seen []string
	ev, err := c.WaitForEvaluation(context.Background(), testSubmissionID, testEvaluationID, WaitOptions{
		Interval:   time.Millisecond,
		OnProgress: func(e *client.Evaluation) { seen = append(seen, string(e.Status)+"/"+e.StageLabel) },
	})
	if err != nil || ev.Status != client.EvaluationStatusCompleted {
		t.Fatalf("ev %+v err %v", ev, err)
	}
	if calls.Load() != 5 {
		t.Errorf("%d polls, want 5", calls.Load())
	}
	want := "[queued/Queued running/Reading running/Checking completed/Done]"
	if got := fmtSlice(seen); got != want {
		t.Errorf("progress %s, want %s", got, want)
	}
}

func TestWaitForEvaluationReturnsOnFailedAndCanceled(t *testing.T) {
	t.Parallel()
	for _, status := range []string{"failed", "canceled"} {
		h, _ := evaluationSequence(evaluationJSON("running", 50, "x"), evaluationJSON(status, 50, "x"))
		c, _ := newTestClient(t, h)
		ev, err := c.WaitForEvaluation(context.Background(), testSubmissionID, testEvaluationID, WaitOptions{Interval: time.Millisecond})
		if err != nil || string(ev.Status) != status {
			t.Errorf("%s: ev %+v err %v", status, ev, err)
		}
	}
}

// A status this version does not know is handed back, not waited on forever, and not
// rejected either.
func TestWaitForEvaluationReturnsUnknownStatus(t *testing.T) {
	t.Parallel()
	h, calls := evaluationSequence(evaluationJSON("awaiting_human_review", 80, "Review"))
	c, _ := newTestClient(t, h)
	ev, err := c.WaitForEvaluation(context.Background(), testSubmissionID, testEvaluationID, WaitOptions{Interval: time.Hour})
	if err != nil || ev.Status != "awaiting_human_review" || calls.Load() != 1 {
		t.Errorf("ev %+v err %v after %d polls", ev, err, calls.Load())
	}
}

func TestWaitForEvaluationStopsWithContext(t *testing.T) {
	t.Parallel()
	h, _ := evaluationSequence(evaluationJSON("running", 10, "Reading"))
	c, _ := newTestClient(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ev, err := c.WaitForEvaluation(ctx, testSubmissionID, testEvaluationID, WaitOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || ev == nil || ev.Status != "running" {
		t.Errorf("ev %+v err %v", ev, err)
	}
}

func TestWaitForEvaluationReturnsAPIErrors(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusConflict, "analysis_outdated", "")
	})
	_, err := c.WaitForEvaluation(context.Background(), testSubmissionID, testEvaluationID, WaitOptions{Interval: time.Millisecond})
	if Code(err) != "analysis_outdated" {
		t.Errorf("err %v", err)
	}
}

func fmtSlice(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}
