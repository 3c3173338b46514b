package evaluator

import (
	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/store"
)

// Input maps an evaluation's inputs to the engine's terms: the snapshot taken when the
// submission was created, the ready uploads at start, and the start date (so a
// redelivered job judges expiry and recency against the same day).
func Input(run store.EvaluationRun) engine.Input {
	snap := run.Submission.Snapshot
	in := engine.Input{
		Language: run.Submission.Language, Date: run.Evaluation.CreatedAt, Template: snap.TemplateKey,
		Documents: documents(run),
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

// documents are the input uploads as the engine reads them: the slot an upload is in
// names its expected document type, and the pages go as ingest stored them.
func documents(run store.EvaluationRun) []*evidence.Document {
	slotType := make(map[uuid.UUID]string, len(run.Slots))
	for _, sl := range run.Slots {
		slotType[sl.ID] = sl.Key
	}
	docs := make([]*evidence.Document, len(run.Inputs))
	for i, in := range run.Inputs {
		u := in.Upload
		docs[i] = &evidence.Document{
			UploadID: u.ID, FileID: u.FileID, ExternalFileID: u.ExternalFileID, SlotID: u.SlotID,
			Filename: u.Filename, Pages: in.Pages,
		}
		if u.SlotID != nil {
			docs[i].SlotType = slotType[*u.SlotID]
		}
	}
	return docs
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
