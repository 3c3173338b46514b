package deploy_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// goDeps lists every package pkg (a pattern go list takes) is built from, itself
// included.
func goDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// deps lists the packages of this module that pkg is built from, itself included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	var own []string
	for _, p := range goDeps(t, pkg) {
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

// The database layer's arrows point down only: it is the PostgreSQL adapter of the
// domain, and takes nothing from the HTTP edge (apierr, page, httpx), the queue
// (messaging) or the engine; it may use the domain and the libraries below it, and no
// new one joins them without this list saying so.
func TestStoreImportsOnlyWhatItMay(t *testing.T) {
	t.Parallel()
	allowed := []string{
		"gen/db", "sql", "pkg/store", "pkg/auth", "pkg/blobkey", "pkg/clock", "pkg/document", "pkg/events", "pkg/jobs", "pkg/keyset",
		"pkg/slug", "pkg/tracing",
	}
	for _, p := range deps(t, "../pkg/store") {
		if !slices.Contains(allowed, p) && p != "pkg/domain" && !strings.HasPrefix(p, "pkg/domain/") {
			t.Errorf("pkg/store is built from %s", p)
		}
	}
}

// The domain (pkg/domain and its aggregates) is plain Go: the rules and refusals of
// submissions, evaluations, webhooks and the catalog are built from nothing else of
// ours and know nothing of HTTP, the database or the queue, so the store, the API, the
// console and the workers all share them.
func TestDomainImportsNoEdge(t *testing.T) {
	t.Parallel()
	forbidden := []string{"net/http", "github.com/labstack/", "github.com/jackc/", "github.com/nats-io/"}
	for _, p := range goDeps(t, "../pkg/domain/...") {
		own, ours := strings.CutPrefix(p, "github.com/doceval/doceval/")
		if ours && own != "pkg/domain" && !strings.HasPrefix(own, "pkg/domain/") {
			t.Errorf("pkg/domain is built from %s", own)
		}
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, f) {
				t.Errorf("pkg/domain is built from %s", p)
			}
		}
	}
}

// The database layer writes jobs to the outbox and never talks to the queue: neither it
// nor the job definitions it writes (pkg/jobs) are built from the NATS client.
func TestStoreImportsNoNATS(t *testing.T) {
	t.Parallel()
	for _, p := range goDeps(t, "../pkg/store") {
		if strings.HasPrefix(p, "github.com/nats-io/") {
			t.Errorf("pkg/store is built from %s", p)
		}
	}
}

// What extraction makes of a page (pkg/document) and the messages the services hand each
// other (pkg/jobs) sit at the bottom: every layer from extract to the engine, and from
// store to the workers, shares them, so they take nothing from any of those layers.
func TestImportsOfSharedTypes(t *testing.T) {
	t.Parallel()
	for pkg, allowed := range map[string][]string{
		"pkg/document": {"pkg/document"},
		"pkg/jobs":     {"pkg/jobs", "pkg/events"},
	} {
		for _, p := range deps(t, "../"+pkg) {
			if !slices.Contains(allowed, p) {
				t.Errorf("%s is built from %s", pkg, p)
			}
		}
	}
}
