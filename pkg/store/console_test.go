package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// slotFixture makes a client's submission with one ready upload in its first slot.
func slotFixture(t *testing.T, st *store.Store) (client uuid.UUID, sub store.SubmissionDetail) {
	t.Helper()
	ctx := context.Background()
	c, _, _, err := st.CreateClient(ctx, "c", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(c.ID)
	s, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: "s", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := tenant.Submission(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	slot := d.Slots[0].ID
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{SubmissionID: s.ID, SlotID: &slot, ExternalFileID: "f", FileID: uuid.New(),
		Filename: "f.pdf", ContentType: "application/pdf", Size: 1, SHA256: []byte{1}, BlobKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishIngest(ctx, u.ID, []document.Page{{Number: 1, Text: "x", Chars: 1}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	d, err = tenant.Submission(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, d
}

// A decision stands until an upload change on the slot replaces it with the computed
// status; the same decision twice emits one event.
func TestUploadChangeReplacesDecision(t *testing.T) {
	t.Parallel()
	st := store.New(dbtest.New(t))
	ctx := context.Background()
	client, d := slotFixture(t, st)
	slot := d.Slots[0]
	if slot.Status != submission.SlotReceived {
		t.Fatalf("fixture slot: %s", slot.Status)
	}
	decide := submission.Decision{ClientID: client, SubmissionID: d.ID, SlotID: slot.ID, Decision: submission.DecisionAccepted}
	if _, err := st.DecideSlot(ctx, decide); err != nil {
		t.Fatal(err)
	}
	_, before := counts(t, st)
	if _, err := st.DecideSlot(ctx, decide); err != nil {
		t.Fatal(err)
	}
	if _, after := counts(t, st); after != before {
		t.Fatalf("the same decision again emitted %d events", after-before)
	}
	tenant := st.Tenant(client)
	got, err := tenant.Submission(ctx, d.ID)
	if err != nil || got.Slots[0].Status != submission.DecisionAccepted || got.Slots[0].Review == nil {
		t.Fatalf("after decision: %+v %v", got.Slots[0], err)
	}
	// Another upload into the slot (allow_multiple_files may be false: move the upload
	// out instead, which is an upload change too).
	if _, err := tenant.MoveUpload(ctx, d.ID, slot.Uploads[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	got, err = tenant.Submission(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Slots[0].Status != submission.SlotMissing || got.Slots[0].Review != nil {
		t.Fatalf("after the upload moved out: %s %+v", got.Slots[0].Status, got.Slots[0].Review)
	}
}

func TestDecisionRules(t *testing.T) {
	t.Parallel()
	st := store.New(dbtest.New(t))
	ctx := context.Background()
	client, d := slotFixture(t, st)
	slot := d.Slots[0].ID
	for _, tc := range []struct {
		d    submission.Decision
		want error
	}{
		{submission.Decision{Decision: submission.DecisionRejected}, submission.ErrReasonRequired},
		{submission.Decision{Decision: submission.DecisionNeedsReview, Reason: " \n"}, submission.ErrReasonRequired},
		{submission.Decision{Decision: "approved"}, submission.ErrDecisionUnknown},
		{submission.Decision{Decision: submission.DecisionAccepted, Reason: string(make([]rune, submission.MaxReasonLength+1))}, submission.ErrReasonTooLong},
		{submission.Decision{Decision: submission.DecisionAccepted, SlotID: uuid.New()}, store.ErrNotFound},
		{submission.Decision{Decision: submission.DecisionAccepted, ClientID: uuid.New()}, store.ErrNotFound}, // another client's
	} {
		if tc.d.ClientID == uuid.Nil {
			tc.d.ClientID = client
		}
		tc.d.SubmissionID = d.ID
		if tc.d.SlotID == uuid.Nil {
			tc.d.SlotID = slot
		}
		if _, err := st.DecideSlot(ctx, tc.d); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.d.Decision, err, tc.want)
		}
	}
	if err := st.Tenant(client).DeleteSubmission(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DecideSlot(ctx, submission.Decision{ClientID: client, SubmissionID: d.ID, SlotID: slot, Decision: submission.DecisionAccepted}); !errors.Is(err, submission.ErrPurging) {
		t.Fatalf("decision on a submission being purged: %v", err)
	}
}

// The audit log takes entries and refuses to change or lose them.
func TestAuditLogIsAppendOnly(t *testing.T) {
	t.Parallel()
	st := store.New(dbtest.New(t))
	ctx := context.Background()
	admin := st.As(store.Actor{Name: "admin@example.com", IP: "192.0.2.1"})
	c, _, _, err := admin.CreateClient(ctx, "Broker", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := admin.CreateKey(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RevokeKey(ctx, key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.SetClientPermissions(ctx, c.ID, auth.AllPermissions[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.SetClientDisabled(ctx, c.ID, true); err != nil {
		t.Fatal(err)
	}
	// Without an actor (partner or worker writes) nothing is recorded.
	if _, _, err := st.CreateKey(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	entries, err := st.AuditLog(ctx, store.AuditFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
		if e.Actor != "admin@example.com" || e.IP != "192.0.2.1" {
			t.Errorf("entry %s: %+v", e.Action, e)
		}
	}
	want := []string{"client.disable", "client.permissions", "key.revoke", "key.issue", "client.create"}
	if len(actions) != len(want) {
		t.Fatalf("actions %v, want %v", actions, want)
	}
	for i := range want {
		if actions[i] != want[i] {
			t.Fatalf("actions %v, want %v", actions, want)
		}
	}
	for _, sql := range []string{"UPDATE audit_log SET actor = 'someone else'", "DELETE FROM audit_log"} {
		if _, err := st.Pool().Exec(ctx, sql); err == nil {
			t.Errorf("%s: allowed", sql)
		}
	}
	if again, _ := st.AuditLog(ctx, store.AuditFilter{Limit: 10}); len(again) != len(entries) {
		t.Fatalf("entries changed: %d → %d", len(entries), len(again))
	}
}

// A session ends when idle for longer than the idle limit, at its absolute expiry, or
// when its operator is disabled.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	st := store.New(dbtest.New(t), store.WithClock(clk))
	ctx := context.Background()
	op, err := st.CreateOperator(ctx, store.NewOperator{Email: "a@example.com", Role: store.RoleAdvisor})
	if err != nil {
		t.Fatal(err)
	}
	open := func(token string) {
		if _, err := st.CreateSession(ctx, store.NewSession{TokenHash: []byte(token), OperatorID: op.ID, CSRFToken: "c", MaxAge: 2 * time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	alive := func(token string) bool {
		_, err := st.Session(ctx, []byte(token), 30*time.Minute)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	open("busy")
	open("idle")
	for i := 0; i < 7; i++ { // used every 20 minutes for 2h20m
		clk.Advance(20 * time.Minute)
		if got, want := alive("busy"), i < 5; got != want {
			t.Fatalf("busy session after %v: alive %v, want %v (absolute expiry 2h)", time.Duration(i+1)*20*time.Minute, got, want)
		}
		if i == 1 && alive("idle") {
			t.Fatal("a session idle for 40 minutes is alive")
		}
	}
	open("disabled")
	if err := st.SetOperatorDisabled(ctx, op.ID, true); err != nil {
		t.Fatal(err)
	}
	if alive("disabled") {
		t.Fatal("the session of a disabled operator is alive")
	}
}

// Staff e-mails are unique in any letter case.
func TestOperatorEmailUnique(t *testing.T) {
	t.Parallel()
	st := store.New(dbtest.New(t))
	ctx := context.Background()
	if _, err := st.CreateOperator(ctx, store.NewOperator{Email: "Ada@Example.com", Role: store.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateOperator(ctx, store.NewOperator{Email: "ada@example.COM", Role: store.RoleAdvisor}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second account with the same e-mail: %v", err)
	}
	op, err := st.OperatorByEmail(ctx, "ADA@example.com")
	if err != nil || op.Role != store.RoleAdmin {
		t.Fatalf("lookup: %+v %v", op, err)
	}
}

// An account is bound to one single sign-on identity: a second identity (say, a
// concurrent sign-in with the same e-mail) is refused, and an identity binds one account.
func TestBindOIDCSubjectOnce(t *testing.T) {
	t.Parallel()
	st := store.New(dbtest.New(t))
	ctx := context.Background()
	a, err := st.CreateOperator(ctx, store.NewOperator{Email: "a@example.com", Role: store.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.CreateOperator(ctx, store.NewOperator{Email: "b@example.com", Role: store.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.BindOIDCSubject(ctx, a.ID, "https://idp.example one"); err != nil {
		t.Fatal(err)
	}
	if err := st.BindOIDCSubject(ctx, a.ID, "https://idp.example one"); err != nil {
		t.Fatalf("binding the same identity again: %v", err)
	}
	if err := st.BindOIDCSubject(ctx, a.ID, "https://idp.example two"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second identity: %v", err)
	}
	if err := st.BindOIDCSubject(ctx, b.ID, "https://idp.example one"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the identity on another account: %v", err)
	}
	if err := st.BindOIDCSubject(ctx, uuid.New(), "https://idp.example three"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no such account: %v", err)
	}
}
