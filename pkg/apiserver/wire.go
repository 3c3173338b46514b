package apiserver

import (
	"encoding/json"
	"fmt"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
)

// toWire reads v's JSON form as the contract's type T. The store's JSON forms of an
// evaluation and an upload are the ones events carry: responses built from them cannot
// drift apart from the events.
func toWire[T any](v any) (T, error) {
	var out T
	raw, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	return out, json.Unmarshal(raw, &out)
}

// evaluationToAPI maps an evaluation to the contract's Evaluation.
func evaluationToAPI(e evaluation.Evaluation) (api.Evaluation, error) {
	out, err := toWire[api.Evaluation](e)
	if err != nil {
		return out, fmt.Errorf("evaluation %s: %w", e.ID, err)
	}
	return out, nil
}

// uploadToAPI maps an upload to the contract's Upload. external_submission_id is present
// in event payloads only.
func uploadToAPI(u submission.Upload) (api.Upload, error) {
	out, err := toWire[api.Upload](u)
	if err != nil {
		return out, fmt.Errorf("upload %s: %w", u.ID, err)
	}
	out.ExternalSubmissionId = nil
	return out, nil
}

func uploadsToAPI(us []submission.Upload) ([]api.Upload, error) {
	out := make([]api.Upload, len(us))
	for i, u := range us {
		var err error
		if out[i], err = uploadToAPI(u); err != nil {
			return nil, err
		}
	}
	return out, nil
}
