package partnercli

import (
	"context"
	"fmt"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
)

func init() {
	groups["evaluations"] = group{summary: "start and inspect evaluations", cmds: map[string]command{
		"start": evaluationsStart,
		"get":   evaluationsGet,
	}}
}

func evaluationsStart(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("evaluations start")
	wait := fs.Bool("wait", false, "wait for the result, printing progress on stderr")
	interval := fs.Duration("interval", 5*time.Second, "how often to poll with --wait")
	pos, err := positionals(fs, args, "submission_id")
	if err != nil {
		return err
	}
	submissionID, err := parseUUID("submission id", pos[0])
	if err != nil {
		return err
	}
	if *interval <= 0 {
		return usagef("evaluations start: --interval must be positive")
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	ev, err := c.StartEvaluation(ctx, submissionID)
	if err != nil {
		return err
	}
	if *wait {
		// Progress goes to stderr so stdout holds only the result (table or JSON).
		ev, err = c.WaitForEvaluation(ctx, submissionID, ev.Id, sdk.WaitOptions{
			Interval: *interval,
			OnProgress: func(e *client.Evaluation) {
				fmt.Fprintf(a.stderr, "%s  %-9s %3d%%  %s\n", time.Now().Format(time.TimeOnly), e.Status, e.ProgressPercent, e.StageLabel)
			},
		})
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
	}
	return a.printEvaluation(ev)
}

func evaluationsGet(ctx context.Context, a *app, args []string) error {
	fs := a.newFlagSet("evaluations get")
	pos, err := positionals(fs, args, "submission_id", "evaluation_id")
	if err != nil {
		return err
	}
	submissionID, err := parseUUID("submission id", pos[0])
	if err != nil {
		return err
	}
	evaluationID, err := parseUUID("evaluation id", pos[1])
	if err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	ev, err := c.GetEvaluation(ctx, submissionID, evaluationID)
	if err != nil {
		return err
	}
	return a.printEvaluation(ev)
}

// printEvaluation prints the state, then, once there is a result, its summary and the
// checks and fields a reviewer looks at first.
func (a *app) printEvaluation(ev *client.Evaluation) error {
	if a.opts.json {
		return a.printJSON(ev)
	}
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
