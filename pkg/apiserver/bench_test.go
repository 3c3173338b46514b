package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// BenchmarkSubmissionWrite compares sustained createSubmission calls through the API
// (HTTP on loopback, the whole middleware chain, the real handler) with the same store
// call and so the same SQL run directly through pgx, all with 4 concurrent writers per
// CPU; the API once more with an Idempotency-Key on every request, as the SDK sends
// (the key's claim and kept answer in the handler's transaction). make bench prints the
// rates and the ratio; the first case is the baseline.
func BenchmarkSubmissionWrite(b *testing.B) {
	ctx := context.Background()
	st := store.New(dbtest.New(b))
	c, _, key, err := st.CreateClient(ctx, "bench", auth.AllPermissions)
	if err != nil {
		b.Fatal(err)
	}
	metadata := map[string]any{"broker": "Example Finanz GmbH", "loan_amount_eur": 350000, "branch": "Köln"}
	rawMetadata, _ := json.Marshal(metadata)
	var seq atomic.Int64
	nextID := func() string { return fmt.Sprintf("ext-%d", seq.Add(1)) }

	b.Run("direct_pgx", func(b *testing.B) {
		tenant := st.Tenant(c.ID)
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: nextID(), Metadata: rawMetadata, Language: "en"}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})

	throughAPI := func(b *testing.B, idempotencyKey bool) {
		// Key lookups are cached as doceval-api caches them (RunOn), its listener running.
		keys := store.NewKeyCache(st, 10*time.Second, nil)
		watchCtx, stopWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() { defer close(watched); _ = keys.Watch(watchCtx) }()
		defer func() { stopWatch(); <-watched }()
		e, err := apiserver.New(apiserver.Deps{
			Store: st, Keys: keys, Secrets: newSecrets(b), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.NewRegistry(),
			RateLimiter: httpx.NewRateLimiter(0, 1, nil),
		})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(e)
		defer srv.Close()
		transport := &http.Transport{MaxIdleConnsPerHost: 64}
		defer transport.CloseIdleConnections()
		hc := &http.Client{Transport: transport}
		b.SetParallelism(4)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				body, _ := json.Marshal(map[string]any{"external_submission_id": nextID(), "metadata": metadata})
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/submissions", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				if idempotencyKey {
					req.Header.Set("Idempotency-Key", nextID()) // the response is kept, sealed
				}
				res, err := hc.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body) //nolint:errcheck
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					b.Errorf("status %d", res.StatusCode)
					return
				}
			}
		})
	}
	b.Run("api", func(b *testing.B) { throughAPI(b, false) })
	// Every POST of the SDK carries an Idempotency-Key: the response is kept, sealed
	// with the key ring.
	b.Run("api_idempotency_key", func(b *testing.B) { throughAPI(b, true) })
}
