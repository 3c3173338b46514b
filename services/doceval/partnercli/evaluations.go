package partnercli

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

func (a *app) evaluationsCommand() *cobra.Command {
	cmd := a.group("evaluations", "Start an evaluation and read its result",
		`An evaluation reads a submission's ready uploads and answers its template's checks and
data fields. There is no list: the ids come from 'evaluations start', the submission's
latest_evaluation or the evaluation.* events.`, "evaluation", "evals")
	cmd.AddCommand(a.evaluationsStart(), a.evaluationsGet())
	return cmd
}

func (a *app) evaluationsStart() *cobra.Command {
	var (
		wait     bool
		interval time.Duration
		key      string
	)
	cmd := &cobra.Command{
		Use:   "start SUBMISSION_ID",
		Short: "Start an evaluation over the submission's ready uploads",
		Long: `Starts an evaluation. With --wait it polls until the evaluation ends, showing progress
on stderr (redrawn in place on a terminal, one line per change elsewhere), prints the
result and exits 1 when the evaluation failed or was canceled.`,
		Example: `  doceval evaluations start 0190a1b2-…
  doceval evaluations start 0190a1b2-… --wait
  doceval evaluations start 0190a1b2-… --wait --json > result.json`,
		Args: uuidArgs("submission id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			submissionID := uuidAt(args, 0)
			if interval <= 0 {
				return usagef("evaluations start: --interval must be positive")
			}
			c := a.sdkClient
			ev, err := receive[client.Evaluation](c.API().StartEvaluation(cmd.Context(), submissionID,
				&client.StartEvaluationParams{IdempotencyKey: optional(key)}))
			if err != nil {
				return err
			}
			if !wait {
				return a.printEvaluation(ev)
			}
			// Progress goes to stderr so stdout holds only the result.
			status := newStatusLine(a.stderr)
			ev, err = c.WaitForEvaluation(cmd.Context(), submissionID, ev.Id, sdk.WaitOptions{
				Interval: interval,
				OnProgress: func(e *client.Evaluation) {
					status.show(fmt.Sprintf("%s  %-9s %3d%%  %s", time.Now().Format(time.TimeOnly), e.Status, e.ProgressPercent, e.StageLabel))
				},
			})
			status.finish()
			if err != nil {
				return err
			}
			if err := a.printEvaluation(ev); err != nil {
				return err
			}
			// A script waiting for a result must be able to tell it did not get one.
			if ev.Status == client.EvaluationStatusFailed || ev.Status == client.EvaluationStatusCanceled {
				return fmt.Errorf("evaluation %s ended %s", ev.Id, ev.Status)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the result, showing progress on stderr")
	cmd.Flags().DurationVar(&interval, "interval", 5*time.Second, "how often to poll with --wait")
	idempotencyFlag(cmd, &key)
	return calls(cmd, "startEvaluation")
}

func (a *app) evaluationsGet() *cobra.Command {
	return calls(&cobra.Command{
		Use:     "get SUBMISSION_ID EVALUATION_ID",
		Short:   "Show an evaluation: its state, then its result or failure",
		Example: "  doceval evaluations get 0190a1b2-… 0190a1b5-…\n  doceval evaluations get 0190a1b2-… 0190a1b5-… --json | jq .result.summary",
		Args:    uuidArgs("submission id", "evaluation id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := []uuid.UUID{uuidAt(args, 0), uuidAt(args, 1)}
			c := a.sdkClient
			ev, err := c.GetEvaluation(cmd.Context(), ids[0], ids[1])
			if err != nil {
				return err
			}
			return a.printEvaluation(ev)
		},
	}, "getEvaluation")
}

// printEvaluation prints the state, then, once there is a result, its summary and the
// checks and fields a reviewer looks at first.
func (a *app) printEvaluation(ev *client.Evaluation) error {
	return a.emit(ev, []string{ev.Id.String()}, func() error { return a.printEvaluationTable(ev) })
}

func (a *app) printEvaluationTable(ev *client.Evaluation) error {
	if err := a.details("evaluation", ev.Id.String(), "status", string(ev.Status), "progress", fmt.Sprintf("%d%%", ev.ProgressPercent),
		"stage", ev.StageLabel, "started", ev.StartedAt, "finished", ev.FinishedAt); err != nil {
		return err
	}
	if ev.Failure != nil {
		a.println("")
		if err := a.details("failure", ev.Failure.Code, "message", ev.Failure.Message); err != nil {
			return err
		}
	}
	r := ev.Result
	if r == nil {
		return nil
	}
	a.println("")
	if err := a.details("outcome", string(r.Summary.Outcome), "recommendation", string(r.Summary.Recommendation),
		"risk band", string(r.Summary.RiskBand)); err != nil {
		return err
	}
	a.println("\nchecks:")
	checks := a.table("KEY", "STATUS", "CONFIDENCE")
	for _, ch := range r.Checks {
		checks.row(ch.Key, string(ch.Status), fmt.Sprintf("%.2f", ch.Confidence))
	}
	if err := checks.flush(); err != nil {
		return err
	}
	a.println("\nfields:")
	fields := a.table("KEY", "STATUS", "VALUE")
	for _, f := range r.Fields {
		fields.row(f.Key, string(f.Status), f.Value)
	}
	return fields.flush()
}
