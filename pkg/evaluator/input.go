package evaluator

import (
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/store"
)

// Input maps an evaluation's inputs to the engine's terms: the snapshot taken when the
// submission was created, the ready uploads at start, and the start date (so a
// redelivered job judges expiry and recency against the same day).
func Input(run store.EvaluationRun) engine.Input {
	snap := run.Submission.Snapshot
	in := engine.Input{
		Language: run.Submission.Language, Date: run.Evaluation.CreatedAt, Template: snap.TemplateKey,
		Documents: run.Documents,
	}
	for _, sl := range run.Slots {
		in.Requirements = append(in.Requirements, engine.Requirement{Type: sl.Key, Required: sl.Required})
	}
	for _, c := range snap.Checks {
		in.Checks = append(in.Checks, engine.CheckSpec{
			ID: c.Check.ID, Key: c.Check.Key, Title: c.Title, Description: c.Description, Prompt: deref(c.Prompt), Builtin: c.Check.Builtin,
		})
	}
	for _, f := range snap.DataFields {
		in.Fields = append(in.Fields, engine.FieldSpec{
			ID: f.DataField.ID, Key: f.DataField.Key, Label: f.DisplayName, Prompt: deref(f.Prompt), ValueFormat: deref(f.ValueFormat),
			Builtin: f.DataField.Builtin, Required: f.Required, Threshold: f.ConfidenceThreshold,
		})
	}
	return in
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
