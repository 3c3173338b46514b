package store_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// keyCacheSetup is a key cache watching on a store whose round trips f counts, a
// client with one key (and its hash), and a store on another pool of the same
// database, as another replica (or the console) would change keys.
type keyCacheSetup struct {
	cache  *store.KeyCache
	f      *dbtest.Faults
	other  *store.Store
	owner  *pgxpool.Pool
	client uuid.UUID
	keyID  uuid.UUID
	hash   []byte
}

func newKeyCacheSetup(t *testing.T, relisten time.Duration) keyCacheSetup {
	t.Helper()
	owner, url := dbtest.NewWithURL(t)
	pool, f := dbtest.FaultyPool(t, url)
	cache := store.NewKeyCache(store.New(pool), time.Hour, nil)
	cache.SetRelisten(relisten)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = cache.Watch(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the cache to listen", cache.Listening)
	other := store.New(owner)
	c, k, secret, err := other.CreateClient(context.Background(), "cached", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	return keyCacheSetup{cache: cache, f: f, other: other, owner: owner, client: c.ID, keyID: k.ID, hash: auth.HashKey(secret)}
}

func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// authenticate answers through the cache and says how many round trips it took.
func (s keyCacheSetup) authenticate(t *testing.T) (store.Credential, int, error) {
	t.Helper()
	before := s.f.RoundTrips()
	cred, err := s.cache.Authenticate(context.Background(), s.hash)
	return cred, s.f.RoundTrips() - before, err
}

// A key looked up once is answered from memory; a key revoked elsewhere (another
// replica's store, the console) is refused as soon as the announcement of the
// transaction that revoked it arrives, well within the cache's hour, and so is a
// change of the client's permissions or disabled state seen.
func TestKeyCacheAnswersFromMemoryUntilAChangeIsAnnounced(t *testing.T) {
	s := newKeyCacheSetup(t, time.Second)
	ctx := context.Background()
	if cred, trips, err := s.authenticate(t); err != nil || cred.Principal.ClientID != s.client || trips == 0 {
		t.Fatalf("first lookup: %+v %v after %d round trips", cred, err, trips)
	}
	if cred, trips, err := s.authenticate(t); err != nil || cred.Principal.KeyID != s.keyID || trips != 0 {
		t.Fatalf("second lookup: %+v %v after %d round trips, want none", cred, err, trips)
	}

	if _, err := s.other.SetClientPermissions(ctx, s.client, []auth.Permission{"submissions:read"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new permissions", func() bool {
		cred, _, err := s.authenticate(t)
		return err == nil && slices.Equal(cred.Principal.Permissions, []auth.Permission{"submissions:read"})
	})
	if _, err := s.other.SetClientDisabled(ctx, s.client, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client disabled", func() bool { cred, _, err := s.authenticate(t); return err == nil && cred.Disabled })
	if _, err := s.other.SetClientDisabled(ctx, s.client, false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client enabled", func() bool { cred, _, err := s.authenticate(t); return err == nil && !cred.Disabled })

	if _, err := s.other.RevokeKey(ctx, s.keyID); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "the revoked key refused", func() bool {
		_, _, err := s.authenticate(t)
		return errors.Is(err, store.ErrNotFound)
	})
	t.Logf("the revoked key was refused %v after its revocation committed", took)
}

// listener is the process id of the backend the cache listens on (0: none).
func (s keyCacheSetup) listener(t *testing.T) int {
	t.Helper()
	var pid int
	err := s.owner.QueryRow(context.Background(),
		"SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'").Scan(&pid)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// terminateListener ends the cache's listening backend, as a database restart or a
// broken connection would, and returns its process id.
func (s keyCacheSetup) terminateListener(t *testing.T) int {
	t.Helper()
	pid := s.listener(t)
	var ok bool
	if err := s.owner.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate the listener %d: %v", pid, err)
	}
	return pid
}

// While the cache's listening connection is lost, a change would go unannounced: the
// cache is emptied and every lookup goes to the database, so a key revoked meanwhile is
// refused at once.
func TestKeyCacheLooksKeysUpWhileItsListenerIsLost(t *testing.T) {
	s := newKeyCacheSetup(t, time.Hour)
	if _, _, err := s.authenticate(t); err != nil {
		t.Fatal(err)
	}
	s.terminateListener(t)
	waitFor(t, "the cache to notice", func() bool { return !s.cache.Listening() })
	for range 2 {
		if _, trips, err := s.authenticate(t); err != nil || trips == 0 {
			t.Fatalf("lookup without a listener: %v after %d round trips, want a lookup", err, trips)
		}
	}
	if _, err := s.other.RevokeKey(context.Background(), s.keyID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.authenticate(t); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a key revoked while nobody listened: %v, want ErrNotFound", err)
	}
}

// Once the cache listens again it answers from memory again, starting afresh: what it
// held before the loss is gone.
func TestKeyCacheListensAgain(t *testing.T) {
	s := newKeyCacheSetup(t, 50*time.Millisecond)
	if _, _, err := s.authenticate(t); err != nil {
		t.Fatal(err)
	}
	old := s.terminateListener(t)
	waitFor(t, "a new listener", func() bool {
		pid := s.listener(t)
		return pid != 0 && pid != old && s.cache.Listening()
	})
	if _, trips, err := s.authenticate(t); err != nil || trips == 0 {
		t.Fatalf("first lookup after listening again: %v after %d round trips, want a lookup", err, trips)
	}
	if _, trips, err := s.authenticate(t); err != nil || trips != 0 {
		t.Fatalf("second lookup after listening again: %v after %d round trips, want none", err, trips)
	}
}

// A cached key's last_used_at is still written to the minute: the answer is looked up
// again once the record it made is a minute old.
func TestKeyCacheKeepsLastUsedToTheMinute(t *testing.T) {
	s := newKeyCacheSetup(t, time.Second)
	ctx := context.Background()
	if _, err := s.owner.Exec(ctx, "UPDATE api_keys SET last_used_at = now() - interval '59.8 seconds' WHERE id = $1", s.keyID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.authenticate(t); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, trips, err := s.authenticate(t); err != nil || trips == 0 {
		t.Fatalf("a lookup whose record is a minute old: %v after %d round trips, want a lookup", err, trips)
	}
	var age time.Duration
	if err := s.owner.QueryRow(ctx, "SELECT extract(epoch FROM now() - last_used_at)::float8 * interval '1 second' FROM api_keys WHERE id = $1", s.keyID).Scan(&age); err != nil {
		t.Fatal(err)
	}
	if age > 5*time.Second {
		t.Fatalf("last_used_at is %v old after the lookup", age)
	}
}

// Requests that use a key for the first time at once all authenticate: the ones whose
// record of the use lost the race to another's still learn when the key was used.
func TestAuthenticateConcurrentFirstUse(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	c, _, _, err := st.CreateClient(ctx, "first use", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		_, secret, err := st.CreateKey(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := st.Authenticate(ctx, auth.HashKey(secret)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}

// A listener that does not hear the announcements (behind a pooler in transaction
// mode LISTEN ends with its statement; a connection may die without a word) never
// hears its own probes either: the cache then serves nothing, and looks every key up.
func TestKeyCacheServesOnlyWhileItHearsItself(t *testing.T) {
	owner, url := dbtest.NewWithURL(t)
	pool, f := dbtest.FaultyPool(t, url)
	cache := store.NewKeyCache(store.New(pool), time.Hour, nil)
	cache.SetProbes("somewhere_else", 20*time.Millisecond, 100*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = cache.Watch(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	_, _, secret, err := store.New(owner).CreateClient(context.Background(), "deaf", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		before := f.RoundTrips()
		if _, err := cache.Authenticate(context.Background(), auth.HashKey(secret)); err != nil || f.RoundTrips() == before {
			t.Fatalf("a deaf listener's cache answered without a lookup (err %v)", err)
		}
		if cache.Listening() {
			t.Fatal("a deaf listener's cache says it listens")
		}
		time.Sleep(60 * time.Millisecond)
	}
}
