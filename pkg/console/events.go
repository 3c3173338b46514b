package console

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/store"
)

// eventView is an event of the log with what its envelope names.
type eventView struct {
	ID           uuid.UUID
	Type         string
	CreatedAt    time.Time
	SubmissionID string
}

func eventViewOf(e store.StoredEvent) eventView {
	var env struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(e.Envelope, &env)
	var data struct {
		SubmissionID string `json:"submission_id"`
	}
	_ = json.Unmarshal(env.Data, &data)
	return eventView{ID: e.ID, Type: env.Type, CreatedAt: e.CreatedAt, SubmissionID: data.SubmissionID}
}
