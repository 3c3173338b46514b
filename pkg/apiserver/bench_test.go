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

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// benchSchema is the shape of a submission write until the submissions issue lands its
// table: one row keyed by (client, external id) with JSON metadata, plus its outbox row,
// in one transaction.
const benchSchema = `CREATE TABLE bench_submissions (
	id uuid PRIMARY KEY,
	api_client_id uuid NOT NULL,
	external_submission_id text NOT NULL,
	metadata jsonb NOT NULL,
	created_at timestamptz NOT NULL,
	UNIQUE (api_client_id, external_submission_id))`

// writeSubmission is the SQL both sides of the benchmark run.
func writeSubmission(ctx context.Context, pool *pgxpool.Pool, client uuid.UUID, external string, metadata []byte) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		id, now := uuid.Must(uuid.NewV7()), time.Now()
		if _, err := tx.Exec(ctx, `INSERT INTO bench_submissions (id, api_client_id, external_submission_id, metadata, created_at)
			VALUES ($1, $2, $3, $4, $5)`, id, client, external, metadata, now); err != nil {
			return err
		}
		payload, _ := json.Marshal(map[string]any{"submission_id": id})
		_, err := tx.Exec(ctx, `INSERT INTO outbox (id, subject, payload, created_at) VALUES ($1, $2, $3, $4)`,
			uuid.Must(uuid.NewV7()), "doceval.jobs.bench", payload, now)
		return err
	})
}

// benchHandlers answers POST /v1/submissions with writeSubmission; everything in front
// of it (request id, metrics, recovery, body limit, key lookup, rate limiter, routing,
// permission and schema validation, JSON binding) is the production chain.
type benchHandlers struct {
	api.StrictServerInterface
	pool *pgxpool.Pool
}

func (h benchHandlers) CreateSubmission(ctx context.Context, req api.CreateSubmissionRequestObject) (api.CreateSubmissionResponseObject, error) {
	p, err := httpx.Principal(ctx)
	if err != nil {
		return nil, err
	}
	metadata, err := json.Marshal(req.Body.Metadata)
	if err != nil {
		return nil, err
	}
	if err := writeSubmission(ctx, h.pool, p.ClientID, req.Body.ExternalSubmissionId, metadata); err != nil {
		return nil, err
	}
	return api.CreateSubmission201JSONResponse{Body: api.Submission{ExternalSubmissionId: req.Body.ExternalSubmissionId}}, nil
}

// BenchmarkSubmissionWrite compares sustained submission-shaped writes through the API
// (HTTP on loopback, the whole middleware chain, the handler's transaction) with the
// same transaction run directly through pgx, all with 4 concurrent writers per CPU; the
// API once more with an Idempotency-Key on every request, as the SDK sends.
// make bench prints the rates and the ratio; the first case is the baseline.
func BenchmarkSubmissionWrite(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	if _, err := pool.Exec(ctx, benchSchema); err != nil {
		b.Fatal(err)
	}
	st := store.New(pool)
	c, _, key, err := st.CreateClient(ctx, "bench", auth.AllPermissions)
	if err != nil {
		b.Fatal(err)
	}
	metadata := map[string]any{"broker": "Example Finanz GmbH", "loan_amount_eur": 350000, "branch": "Köln"}
	rawMetadata, _ := json.Marshal(metadata)
	var seq atomic.Int64
	nextID := func() string { return fmt.Sprintf("ext-%d", seq.Add(1)) }

	b.Run("direct_pgx", func(b *testing.B) {
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := writeSubmission(ctx, pool, c.ID, nextID(), rawMetadata); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})

	throughAPI := func(b *testing.B, idempotencyKey bool) {
		e, err := apiserver.New(apiserver.Deps{
			Store: st, Secrets: newSecrets(b), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.NewRegistry(),
			RateLimiter: httpx.NewRateLimiter(0, 1, nil),
			Handlers:    benchHandlers{StrictServerInterface: apiserver.NewServer(apiserver.Deps{Store: st}), pool: pool},
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
