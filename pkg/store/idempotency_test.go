package store_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// A key is released or finished only by the request that claimed it: a request whose
// claim was lost (or went stale and was taken over) cannot free or answer a claim that
// another request holds.
func TestIdempotencyKeyBelongsToItsClaim(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	c, _, _, err := st.CreateClient(ctx, "idem", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	mine, other := uuid.New(), uuid.New()
	if claimed, _, err := st.ClaimIdempotencyKey(ctx, c.ID, "k", mine); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if err := st.ReleaseIdempotencyKey(ctx, c.ID, "k", other); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishIdempotencyKey(ctx, c.ID, "k", other, []byte("h"), store.StoredResponse{Status: 201, ContentType: "application/json", SealedBody: []byte("sealed")}); err != nil {
		t.Fatal(err)
	}
	claimed, rec, err := st.ClaimIdempotencyKey(ctx, c.ID, "k", other)
	if err != nil || claimed || !rec.Running {
		t.Fatalf("after another request's release and finish: claimed %v, running %v, %v; want still running", claimed, rec.Running, err)
	}
	if err := st.ReleaseIdempotencyKey(ctx, c.ID, "k", mine); err != nil {
		t.Fatal(err)
	}
	if claimed, _, err := st.ClaimIdempotencyKey(ctx, c.ID, "k", other); err != nil || !claimed {
		t.Fatalf("after the owner's release: claimed %v, %v", claimed, err)
	}
}
