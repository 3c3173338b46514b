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

// A key claimed outside a request transaction while that transaction runs (an upload
// claims without its lock) is not overwritten by the transaction's kept answer: the
// transaction rolls back whole and is set aside, and the key stays the upload's.
func TestIdempotentTxYieldsToAClaimMadeMeanwhile(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	c, _, _, err := st.CreateClient(ctx, "yields", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	outcome, _, err := st.IdempotentTx(ctx, c.ID, "k", uuid.New(), func(wctx context.Context) (*store.KeptAnswer, bool) {
		if claimed, _, err := st.ClaimIdempotencyKey(ctx, c.ID, "k", uuid.New()); err != nil || !claimed {
			t.Errorf("the upload's claim: %v (claimed %v)", err, claimed)
		}
		if _, _, _, err := st.CreateClient(wctx, "inside", auth.AllPermissions); err != nil {
			t.Error(err)
		}
		return &store.KeptAnswer{RequestHash: []byte{1}, Response: store.StoredResponse{Status: 201, ContentType: "application/json", SealedBody: []byte("sealed")}}, false
	})
	if err != nil || outcome != store.SetAside {
		t.Fatalf("IdempotentTx: %v (outcome %d), want set aside", err, outcome)
	}
	clients, err := st.ListClients(ctx)
	if err != nil || len(clients) != 1 {
		t.Fatalf("clients after the rollback: %v %+v", err, clients)
	}
	if claimed, rec, err := st.ClaimIdempotencyKey(ctx, c.ID, "k", uuid.New()); err != nil || claimed || !rec.Running {
		t.Fatalf("the key after the rollback: %v (claimed %v, %+v), want the upload's running claim", err, claimed, rec)
	}
}
