package partnercli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/partnercli"
)

// An API error names the status, the code and the request id (what support asks
// for) and exits 1.
func TestAPIErrorShowsCodeAndRequestID(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	r := api.run(t, "submissions", "get", uuid.NewString())
	if r.code != partnercli.ExitError {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, partnercli.ExitError, r.stderr)
	}
	if !strings.Contains(r.stderr, "404") || !strings.Contains(r.stderr, "not_found") || !strings.Contains(r.stderr, "request id: ") {
		t.Errorf("error message lacks status, code or request id:\n%s", r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout on error: %q", r.stdout)
	}

	// A wrong key is an API error too, not a usage error.
	var stdout, stderr strings.Builder
	code := partnercli.Run(context.Background(), []string{"--api-key", "wrong", "templates", "list"}, &stdout, &stderr, api.env())
	if code != partnercli.ExitError || !strings.Contains(stderr.String(), "401") {
		t.Errorf("wrong key: exit %d, stderr %s", code, stderr.String())
	}
}

// A wrong command line exits 2 before any request.
func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	noAPI := func(string) string { return "" }
	withAPI := func(k string) string {
		return map[string]string{"DOCEVAL_API_KEY": "k", "DOCEVAL_BASE_URL": "http://127.0.0.1:1"}[k]
	}
	cases := []struct {
		name string
		env  partnercli.Env
		args []string
		want string
	}{
		{"no command", withAPI, nil, "missing command"},
		{"unknown command", withAPI, []string{"frobnicate"}, "unknown command"},
		{"unknown subcommand", withAPI, []string{"submissions", "explode"}, "unknown subcommand"},
		{"missing subcommand", withAPI, []string{"events"}, "needs a subcommand"},
		{"no key", noAPI, []string{"submissions", "list"}, "DOCEVAL_API_KEY"},
		{"missing external id", withAPI, []string{"submissions", "create"}, "--external-id is required"},
		{"bad language", withAPI, []string{"submissions", "create", "--external-id", "x", "--language", "fr"}, "de or en"},
		{"bad metadata", withAPI, []string{"submissions", "create", "--external-id", "x", "--metadata", "[1"}, "JSON object"},
		{"not a uuid", withAPI, []string{"submissions", "get", "nope"}, "not a UUID"},
		{"missing argument", withAPI, []string{"evaluations", "get", uuid.NewString()}, "usage: evaluations get"},
		{"unknown flag", withAPI, []string{"templates", "list", "--colour"}, "flag provided but not defined"},
		{"unknown extension", withAPI, []string{"files", "upload", uuid.NewString(), "notes.txt"}, "--content-type"},
		{"listen without secret", noAPI, []string{"listen"}, "DOCEVAL_WEBHOOK_SECRET"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			code := partnercli.Run(context.Background(), tc.args, &stdout, &stderr, tc.env)
			if code != partnercli.ExitUsage || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr.String(), tc.want)
			}
		})
	}
}

// -h prints the subcommand's flags and succeeds.
func TestHelpExits0(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	code := partnercli.Run(context.Background(), []string{"files", "upload", "-h"}, &stdout, &stderr, nil)
	if code != partnercli.ExitOK || !strings.Contains(stderr.String(), "-content-type") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
