package partnercli_test

import (
	"strings"
	"testing"

	"github.com/doceval/doceval/services/doceval/partnercli"
)

// Every group answers --help (and `help GROUP`) with its subcommands, exit 0 and no
// key needed; every subcommand's help shows its examples.
func TestHelpForEveryGroup(t *testing.T) {
	t.Parallel()
	groups := map[string][]string{
		"templates":      {"list", "get", "create", "update", "delete", "duplicate", "replace-documents", "replace-checks", "replace-fields"},
		"checks":         {"list", "get", "create", "update", "delete"},
		"data-fields":    {"list", "get", "create", "update", "delete"},
		"document-types": {"list", "get", "create", "update", "delete"},
		"submissions":    {"list", "get", "create", "update", "cancel", "delete"},
		"files":          {"list", "get", "upload", "move", "delete"},
		"evaluations":    {"start", "get"},
		"events":         {"list", "get", "redeliver", "feed"},
		"webhooks":       {"list", "get", "create", "update", "delete", "rotate-secret", "test", "sign", "verify"},
	}
	for group, subs := range groups {
		t.Run(group, func(t *testing.T) {
			t.Parallel()
			for _, args := range [][]string{{group, "--help"}, {"help", group}, {group, "-h"}} {
				r := runCLI(nil, "", args...)
				if r.code != partnercli.ExitOK || r.stderr != "" {
					t.Fatalf("doceval %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
				}
				for _, sub := range subs {
					if !strings.Contains(r.stdout, "\n  "+sub+" ") {
						t.Errorf("doceval %s does not list %s:\n%s", strings.Join(args, " "), sub, r.stdout)
					}
				}
			}
			for _, sub := range subs {
				r := runCLI(nil, "", group, sub, "--help")
				if r.code != partnercli.ExitOK || !strings.Contains(r.stdout, "Examples:\n  doceval "+group) {
					t.Errorf("doceval %s %s --help: exit %d\n%s", group, sub, r.code, r.stdout)
				}
			}
		})
	}
	for _, cmd := range []string{"listen", "trigger", "api", "login", "profiles", "version", "completion"} {
		if r := runCLI(nil, "", cmd, "--help"); r.code != partnercli.ExitOK || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("doceval %s --help: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
		}
	}
	// An alias reaches the same group.
	if r := runCLI(nil, "", "uploads", "--help"); r.code != 0 || !strings.Contains(r.stdout, "doceval files [command]") {
		t.Errorf("uploads --help: %d\n%s", r.code, r.stdout)
	}
}

// `completion SHELL` prints a script for that shell, and the hidden completion request
// completes commands and flag values.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, marker := range map[string]string{
		"bash": "complete -o default -F __start_doceval doceval",
		"zsh":  "#compdef doceval",
		"fish": "complete -c doceval",
	} {
		r := runCLI(nil, "", "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s: exit %d, lacks %q (%d bytes)", shell, r.code, marker, len(r.stdout))
		}
	}
	r := runCLI(nil, "", "__complete", "sub")
	if !strings.Contains(r.stdout, "submissions") {
		t.Errorf("completing sub: %q", r.stdout)
	}
	r = runCLI(nil, "", "__complete", "submissions", "list", "--status", "")
	if !strings.Contains(r.stdout, "collecting_documents") || !strings.Contains(r.stdout, "canceled") {
		t.Errorf("completing --status: %q", r.stdout)
	}
	r = runCLI(nil, "", "__complete", "listen", "--events", "")
	if !strings.Contains(r.stdout, "evaluation.completed") {
		t.Errorf("completing listen --events: %q", r.stdout)
	}
}

// `version` prints the build's module version (a tag for `go install …@vX.Y.Z`,
// "(devel)" in a test binary) without needing a key.
func TestVersion(t *testing.T) {
	t.Parallel()
	r := runCLI(nil, "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "doceval:") || !strings.Contains(r.stdout, "sdk:") {
		t.Errorf("version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var v struct {
		Version string `json:"version"`
		Go      string `json:"go"`
	}
	decode(t, runCLI(nil, "", "version", "--json").stdout, &v)
	if v.Version == "" || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version --json: %+v", v)
	}
}
