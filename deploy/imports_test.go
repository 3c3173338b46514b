package deploy_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// deps lists the packages of this module that pkg (a pattern go list takes) is built
// from, itself included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var own []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/doceval/doceval/") {
			own = append(own, strings.TrimPrefix(p, "github.com/doceval/doceval/"))
		}
	}
	return own
}

// What runs in production is built from no test kit and no development tool: the
// images carry the services, not the private PostgreSQL cluster, the embedded NATS
// server, the corpus generator or the tests' helpers.
func TestProductionImportsNoTestKitOrDevTool(t *testing.T) {
	t.Parallel()
	forbidden := []string{"pkg/testkit", "pkg/devtools"}
	for _, svc := range []string{"api", "ingest", "evaluator", "dispatcher", "console", "admin", "extractor", "doceval"} {
		for _, p := range deps(t, "../services/"+svc) {
			for _, f := range forbidden {
				if p == f || strings.HasPrefix(p, f+"/") {
					t.Errorf("services/%s is built from %s", svc, p)
				}
			}
		}
	}
}

// The database layer's arrows point down only: it may use the domain and the libraries
// below it, and no new one joins them. Those marked "leaving" are what it still takes
// from the queue (messaging) and the engine (evidence); the list only shrinks. The HTTP
// edge (apierr) left: the store returns the domain's refusals, and the edge chooses
// their statuses.
func TestStoreImportsOnlyWhatItMay(t *testing.T) {
	t.Parallel()
	allowed := []string{
		"gen/db", "sql", "pkg/store", "pkg/auth", "pkg/blobkey", "pkg/clock", "pkg/events", "pkg/keyset", "pkg/slug", "pkg/tracing",
		"pkg/messaging", "pkg/engine/evidence", // leaving
	}
	for _, p := range deps(t, "../pkg/store") {
		if !slices.Contains(allowed, p) && p != "pkg/domain" && !strings.HasPrefix(p, "pkg/domain/") {
			t.Errorf("pkg/store is built from %s", p)
		}
	}
}

// The domain (pkg/domain and its aggregates) is plain Go: the rules and refusals of
// submissions, evaluations, webhooks and the catalog know nothing of HTTP, the database
// or the queue, so the store, the API, the console and the workers all share them.
func TestDomainImportsNoEdge(t *testing.T) {
	t.Parallel()
	forbidden := []string{
		"pkg/apierr", "pkg/httpx", "pkg/store", "pkg/messaging", "gen/db", "gen/api",
		"github.com/labstack/echo/v4", "github.com/jackc/pgx/v5", "github.com/nats-io/nats.go", "net/http",
	}
	out, err := exec.Command("go", "list", "-deps", "../pkg/domain/...").Output()
	if err != nil {
		t.Fatalf("go list -deps ../pkg/domain/...: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		own := strings.TrimPrefix(p, "github.com/doceval/doceval/")
		for _, f := range forbidden {
			if own == f || strings.HasPrefix(own, f+"/") || p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("pkg/domain is built from %s", p)
			}
		}
	}
}
