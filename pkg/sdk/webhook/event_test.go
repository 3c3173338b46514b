package webhook

import (
	"encoding/json"
	"testing"
)

func TestParseEventKeepsUnknownTypesRaw(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","type":"submission.archived","created_at":"2026-01-02T03:04:05Z","api_client_id":"0190a1b2-0000-7000-8000-00000000000c","data":{"archive":{"reason":"retention"}},"new_field":1}`)
	e, err := ParseEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Archive struct{ Reason string } `json:"archive"`
	}
	if e.Type != "submission.archived" || json.Unmarshal(e.Data, &data) != nil || data.Archive.Reason != "retention" {
		t.Errorf("event %+v", e)
	}
	if _, err := e.Evaluation(); err == nil {
		t.Error("decoded an unknown type as an evaluation")
	}
}

func TestEventAccessors(t *testing.T) {
	t.Parallel()
	evaluation, err := ParseEvent([]byte(`{"id":"evt_2","type":"evaluation.completed","data":{"evaluation":{"id":"0190a1b2-0000-7000-8000-000000000002","status":"completed","kind":"brand_new_kind","progress_percent":100,"stage_label":"Done","input_file_ids":[]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := evaluation.Evaluation()
	if err != nil || ev.Status != "completed" || ev.Kind != "brand_new_kind" {
		t.Errorf("evaluation %+v, %v", ev, err)
	}
	if _, err := evaluation.Upload(); err == nil {
		t.Error("decoded an evaluation event as an upload")
	}

	file, _ := ParseEvent([]byte(`{"id":"evt_3","type":"file.failed","data":{"upload":{"external_file_id":"f","upload_status":"failed","failure":{"code":"some_new_failure","message":"m"}}}}`))
	up, err := file.Upload()
	if err != nil || up.Failure == nil || up.Failure.Code != "some_new_failure" {
		t.Errorf("upload %+v, %v", up, err)
	}

	slot, _ := ParseEvent([]byte(`{"id":"evt_4","type":"document_slot.updated","data":{"document_slot":{"key":"id_card","status":"escalated"},"previous_status":"missing","external_submission_id":"crm-1"}}`))
	d, err := slot.DocumentSlotUpdated()
	if err != nil || d.DocumentSlot.Status != "escalated" || d.PreviousStatus != "missing" {
		t.Errorf("slot %+v, %v", d, err)
	}
}

func TestParseEventRejectsWhatIsNotAnEnvelope(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`not json`, `{"type":"file.ready"}`, `{"id":"evt_5"}`, `[]`} {
		if _, err := ParseEvent([]byte(body)); err == nil {
			t.Errorf("accepted %s", body)
		}
	}
}
