package apiserver_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/store"
)

// While the database is out of reach a request answers 503 service_unavailable with
// retry-after, in the error envelope: retryable, never a 500.
func TestDatabaseOutageIs503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // no database listens there
	pool, err := pgxpool.New(context.Background(), "postgres://doceval@127.0.0.1:"+strconv.Itoa(port)+"/doceval?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e, err := apiserver.New(apiserver.Deps{
		Store: store.New(pool), Secrets: newSecrets(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.NewRegistry(),
		RateLimiter: httpx.NewRateLimiter(0, 1, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	env := &testEnv{t: t, srv: srv, http: &http.Client{Transport: newContractCheck(t)}}
	res, body := env.raw("GET", "/v1/templates", auth.NewKey(), "", nil)
	wantError(t, res, body, http.StatusServiceUnavailable, client.ErrorCodeServiceUnavailable)
	if res.Header.Get("retry-after") == "" {
		t.Error("503 without retry-after")
	}
}
