package store_test

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	migrations "github.com/doceval/doceval/sql"
)

// Replicas starting together migrate an empty database once, without errors.
func TestMigrateConcurrently(t *testing.T) {
	pool, _ := dbtest.NewEmpty(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = store.Migrate(ctx, pool) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	var applied int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM goose_db_version WHERE version_id > 0 AND is_applied").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(migrations.Migrations, "migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	if applied != len(files) {
		t.Errorf("%d migration rows, want %d (each migration applied once)", applied, len(files))
	}
	if err := store.Migrate(ctx, pool); err != nil {
		t.Errorf("second migrate: %v", err)
	}
}

func counts(t *testing.T, st *store.Store) (eventRows, outboxRows int) {
	t.Helper()
	ctx := context.Background()
	if err := st.Pool().QueryRow(ctx, "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM outbox)").Scan(&eventRows, &outboxRows); err != nil {
		t.Fatal(err)
	}
	return
}

// An event and its outbox row commit or roll back with the state change that emits it.
func TestEmitIsTransactional(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	c, _, _, err := st.CreateClient(ctx, "emitter", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	client := c.ID
	boom := errors.New("state change failed")
	err = st.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Emit(ctx, events.Draft{APIClientID: client, Type: events.FileReady, Data: map[string]string{"a": "b"}}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx: %v", err)
	}
	if e, o := counts(t, st); e != 0 || o != 0 {
		t.Fatalf("after rollback: %d events, %d outbox rows", e, o)
	}

	var env events.Envelope
	err = st.InTx(ctx, func(tx *store.Tx) (err error) {
		env, err = tx.Emit(ctx, events.Draft{APIClientID: client, Type: events.FileReady, Data: map[string]string{"a": "b"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if e, o := counts(t, st); e != 1 || o != 1 {
		t.Fatalf("after commit: %d events, %d outbox rows", e, o)
	}
	id, err := events.ParseID(env.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Tenant(client).Event(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + env.ID + `","type":"file.ready","created_at":"` + env.CreatedAt.Format("2006-01-02T15:04:05.999999Z07:00") + `","api_client_id":"` + client.String() + `","data":{"a":"b"}}`
	if string(stored.Envelope) != want {
		t.Errorf("stored envelope\n%s\nwant\n%s", stored.Envelope, want)
	}
}

// Database errors map to the store's sentinels in one place.
func TestErrorMapping(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	if _, err := st.RevokeKey(ctx, uuid.New()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke unknown key: %v, want ErrNotFound", err)
	}
	if _, err := st.Authenticate(ctx, auth.HashKey(auth.NewKey())); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown key: %v, want ErrNotFound", err)
	}
	if _, _, err := st.CreateKey(ctx, uuid.New()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("key for an unknown client: %v, want ErrNotFound (foreign key)", err)
	}
	if _, err := st.Tenant(uuid.New()).Event(ctx, uuid.New()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown event: %v, want ErrNotFound", err)
	}
}
