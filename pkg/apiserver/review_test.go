package apiserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/store"
)

// An advisor's decision reaches the partner: the slot's status and its review object in
// submission detail (checked against the OpenAPI document by the harness) and in the
// data of document_slot.updated; a later upload change replaces it.
func TestSlotReviewVisibleToPartner(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	clientID, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "rev"})
	d, _ := c.GetSubmissionWithResponse(ctx, sub.Id)
	slot := d.JSON200.DocumentSlots[0]
	if slot.Review != nil {
		t.Fatalf("a new slot has a review: %+v", slot.Review)
	}
	up := e.upload(c, sub.Id, &slot.Id, fileParts("f", "a.pdf", "application/pdf", pdfBytes)...)
	expect(t, nil, up.StatusCode(), up.Body, 202)
	if err := e.store.FinishIngest(ctx, up.JSON202.Id, []document.Page{{Number: 1, Text: "Lohn", Chars: 4}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	advisor := e.store.As(store.Actor{Name: "advisor@lender.example"})
	if _, err := advisor.DecideSlot(ctx, submission.Decision{ClientID: clientID, SubmissionID: sub.Id, SlotID: slot.Id, Decision: submission.DecisionNeedsReview, Reason: "Page 2 missing"}); err != nil {
		t.Fatal(err)
	}
	d, err := c.GetSubmissionWithResponse(ctx, sub.Id)
	expect(t, err, d.StatusCode(), d.Body, 200)
	got := d.JSON200.DocumentSlots[0]
	if got.Status != "needs_review" || got.Review == nil || got.Review.Decision != "needs_review" || got.Review.Reason == nil || *got.Review.Reason != "Page 2 missing" || got.Review.DecidedAt.IsZero() {
		t.Fatalf("slot after decision: %+v review %+v", got, got.Review)
	}
	evs, err := c.ListEventsWithResponse(ctx, &client.ListEventsParams{Type: ptr(client.EventType("document_slot.updated"))})
	expect(t, err, evs.StatusCode(), evs.Body, 200)
	raw, _ := json.Marshal(evs.JSON200.Data[0].Data)
	var data client.DocumentSlotUpdatedEventData
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if data.PreviousStatus != "received" || data.DocumentSlot.Review == nil || data.DocumentSlot.Review.Decision != "needs_review" {
		t.Fatalf("event data: %s", raw)
	}
	// Any upload change on the slot replaces the decision with the computed status.
	moved, err := c.UpdateUploadWithResponse(ctx, sub.Id, up.JSON202.Id, client.UpdateUploadJSONRequestBody{DocumentSlotId: nil})
	expect(t, err, moved.StatusCode(), moved.Body, 200)
	d, _ = c.GetSubmissionWithResponse(ctx, sub.Id)
	if s := d.JSON200.DocumentSlots[0]; s.Status != "missing" || s.Review != nil {
		t.Fatalf("slot after the upload moved out: %s %+v", s.Status, s.Review)
	}
}
