package partnercli_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/services/doceval/partnercli"
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
	wrong := runCLI(api.env(), "", "--api-key", "wrong", "templates", "list")
	if wrong.code != partnercli.ExitError || !strings.Contains(wrong.stderr, "401") {
		t.Errorf("wrong key: exit %d, stderr %s", wrong.code, wrong.stderr)
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
		{"misspelt command", withAPI, []string{"submisions", "list"}, "did you mean submissions?"},
		{"unknown subcommand", withAPI, []string{"submissions", "explode"}, "unknown subcommand"},
		{"missing subcommand", withAPI, []string{"events"}, "needs a subcommand"},
		{"json and quiet", withAPI, []string{"templates", "list", "--json", "-q"}, "exclude each other"},
		{"no key", noAPI, []string{"submissions", "list"}, "DOCEVAL_API_KEY"},
		{"missing external id", withAPI, []string{"submissions", "create"}, "--external-id is required"},
		{"bad language", withAPI, []string{"submissions", "create", "--external-id", "x", "--language", "fr"}, "de or en"},
		{"bad metadata", withAPI, []string{"submissions", "create", "--external-id", "x", "--metadata", "[1"}, "JSON object"},
		{"not a uuid", withAPI, []string{"submissions", "get", "nope"}, "not a UUID"},
		{"missing argument", withAPI, []string{"evaluations", "get", uuid.NewString()}, "usage: doceval evaluations get SUBMISSION_ID EVALUATION_ID"},
		{"unknown flag", withAPI, []string{"templates", "list", "--colour"}, "unknown flag: --colour"},
		{"unknown extension", withAPI, []string{"files", "upload", uuid.NewString(), "notes.txt"}, "--content-type"},
		{"move without target", withAPI, []string{"files", "move", uuid.NewString(), uuid.NewString()}, "--slot or --unassign"},
		{"check without prompt", withAPI, []string{"checks", "create", "--title", "x"}, "--prompt is required"},
		{"data not an object", withAPI, []string{"checks", "create", "--data", "[1]"}, "not a JSON object"},
		{"update without change", withAPI, []string{"webhooks", "update", uuid.NewString()}, "nothing to change"},
		{"bad time", withAPI, []string{"submissions", "list", "--created-after", "yesterday"}, "RFC 3339"},
		{"api without path", withAPI, []string{"api", "GET"}, "usage: doceval api METHOD PATH"},
		{"listen --direct without secret", noAPI, []string{"listen", "--direct"}, "DOCEVAL_WEBHOOK_SECRET"},
		{"listen without key", noAPI, []string{"listen"}, "doceval login"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(tc.env, "", tc.args...)
			if r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// -h prints the subcommand's help, flags and examples, and succeeds.
func TestHelpExits0(t *testing.T) {
	t.Parallel()
	r := runCLI(nil, "", "files", "upload", "-h")
	if r.code != partnercli.ExitOK || !strings.Contains(r.stdout, "--content-type") || !strings.Contains(r.stdout, "Examples:") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}
