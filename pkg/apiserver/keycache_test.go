package apiserver_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// withKeyCache caches the server's key lookups for ttl, its listener running for the
// test, as doceval-api runs.
func withKeyCache(t *testing.T, ttl time.Duration) envOption {
	return func(d *apiserver.Deps) {
		d.Keys = store.NewKeyCache(d.Store, ttl, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = d.Keys.Watch(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		for start := time.Now(); !d.Keys.Listening(); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatal("the key cache does not listen")
			}
		}
	}
}

// Two API replicas on one database, each caching key lookups for an hour: a client
// disabled, enabled or its key revoked through the store (as the console does) is
// answered so by both within a second (api_client_disabled, then invalid_api_key).
func TestKeyCacheAcrossReplicas(t *testing.T) {
	owner, url := dbtest.NewWithURL(t)
	st := store.New(owner)
	replicas := []*testEnv{
		newEnvOn(t, st, store.New(dbtest.RolePool(t, url, "api")), withKeyCache(t, time.Hour)),
		newEnvOn(t, st, store.New(dbtest.RolePool(t, url, "api")), withKeyCache(t, time.Hour)),
	}
	clientID, key := replicas[0].newClient()
	keys, err := st.ListKeys(context.Background(), clientID)
	if err != nil {
		t.Fatal(err)
	}
	list := func(e *testEnv) (*http.Response, []byte) {
		return e.raw(http.MethodGet, "/v1/submissions", key, "", nil)
	}
	// everyAnswers waits until both replicas answer status (within a second).
	everyAnswers := func(what string, status int, code client.ErrorCode) {
		t.Helper()
		for i, e := range replicas {
			start := time.Now()
			for {
				res, body := list(e)
				if res.StatusCode == status {
					if code != "" {
						wantError(t, res, body, status, code)
					}
					break
				}
				if time.Since(start) > time.Second {
					t.Fatalf("replica %d still answers %d %s a second after %s", i, res.StatusCode, body, what)
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("replica %d: %s seen after %v", i, what, time.Since(start))
		}
	}
	everyAnswers("nothing", http.StatusOK, "")

	if _, err := st.SetClientDisabled(context.Background(), clientID, true); err != nil {
		t.Fatal(err)
	}
	everyAnswers("the client disabled", http.StatusForbidden, client.ErrorCodeApiClientDisabled)
	if _, err := st.SetClientDisabled(context.Background(), clientID, false); err != nil {
		t.Fatal(err)
	}
	everyAnswers("the client enabled", http.StatusOK, "")
	if _, err := st.RevokeKey(context.Background(), keys[0].ID); err != nil {
		t.Fatal(err)
	}
	everyAnswers("the key revoked", http.StatusUnauthorized, client.ErrorCodeInvalidApiKey)
}
