package service_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/service"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

// A service that keeps no files starts whatever DOCEVAL_BLOB_URL says (on Kubernetes the
// evaluator and dispatcher have no blob volume and a read-only root); the blob store is
// opened, and its errors surface, only where it is used.
func TestBlobStoreOpenedOnlyWhenUsed(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	cfg := config.Common{
		DatabaseURL: dbURL, NatsURL: natstest.URL(t), StreamReplicas: 1,
		BlobURL: "file:///proc/doceval-cannot-be-created",
	}
	rt, err := service.Start(context.Background(), "evaluator", cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("start with an unusable blob URL: %v", err)
	}
	defer rt.Close()
	if _, err := rt.Blobs(context.Background()); err == nil {
		t.Fatal("opening an uncreatable blob directory succeeded")
	}
}

// A service that cannot work answers /readyz with 503 and no reason: the reason (a
// database error names its host, user and database) goes to the log only.
func TestReadyzTellsNoReason(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	cfg := config.Common{DatabaseURL: dbURL, NatsURL: natstest.URL(t), StreamReplicas: 1}
	rt, err := service.Start(context.Background(), "evaluator", cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	rt.NC.Close() // NATS gone: not ready
	rec := httptest.NewRecorder()
	rt.OpsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Body.String() != "not ready\n" {
		t.Fatalf("readyz: %d %q", rec.Code, rec.Body.String())
	}
}

// Every service reports doceval_build_info on its /metrics: 1, with its name, version
// and Go version.
func TestBuildInfoOnMetrics(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	cfg := config.Common{DatabaseURL: dbURL, NatsURL: natstest.URL(t), StreamReplicas: 1}
	rt, err := service.Start(context.Background(), "dispatcher", cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	v, ok := metricstest.Value(t, rt.Registry, "doceval_build_info", "service", "dispatcher", "version", service.Version, "goversion", runtime.Version())
	if !ok || v != 1 {
		t.Fatalf("doceval_build_info: %v %v", v, ok)
	}
}
