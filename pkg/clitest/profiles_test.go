package partnercli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/services/doceval/partnercli"
)

// envOf is an environment with only the given NAME, VALUE pairs.
func envOf(pairs ...string) partnercli.Env {
	vars := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		vars[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return vars[k] }
}

// `login` reads the key from stdin, checks it and stores it with the base URL in a
// profile of a 0600 file in a 0700 directory; commands then need neither flags nor
// environment. --profile and DOCEVAL_PROFILE select another profile; the environment
// overrides the profile and flags override both.
func TestLoginAndProfiles(t *testing.T) {
	t.Parallel()
	api := newRealAPI(t)
	home := t.TempDir()
	onlyConfig := envOf("XDG_CONFIG_HOME", home)

	// A wrong key is refused and nothing is stored.
	if r := runCLI(onlyConfig, "dek_wrong\n", "login", "--base-url", api.url); r.code != partnercli.ExitError || !strings.Contains(r.stderr, "not accepted") {
		t.Fatalf("login with a wrong key: exit %d, stderr %s", r.code, r.stderr)
	}
	path := filepath.Join(home, "doceval", "config.json")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a refused login wrote the config file: %v", err)
	}

	r := runCLI(onlyConfig, api.key+"\n", "login", "--base-url", api.url)
	if r.code != 0 || !strings.Contains(r.stderr, `profile "default"`) {
		t.Fatalf("login: exit %d, stderr %s", r.code, r.stderr)
	}
	if r.stdout != "" || strings.Contains(r.stderr, api.key) {
		t.Errorf("login printed the key: %q %q", r.stdout, r.stderr)
	}
	file, err := os.Stat(path)
	if err != nil || file.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, mode %v", err, file.Mode())
	}
	if dir, err := os.Stat(filepath.Dir(path)); err != nil || dir.Mode().Perm() != 0o700 {
		t.Fatalf("config directory: %v, mode %v", err, dir.Mode())
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), api.key) || !strings.Contains(string(b), api.url) {
		t.Errorf("config file lacks the key or URL:\n%s", b)
	}

	// The default profile is enough to call the API.
	var mine client.WebhookEndpoint
	decode(t, runCLI(onlyConfig, "", "webhooks", "create", "--url", "https://example.com/mine", "--json").stdout, &mine)
	if mine.Url != "https://example.com/mine" {
		t.Fatalf("webhooks create through the default profile: %+v", mine)
	}

	// A second client's key in the profile "other", piped without a newline.
	_, _, otherKey, err := api.store.CreateClient(context.Background(), "other", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	if r := runCLI(onlyConfig, otherKey, "login", "--profile", "other", "--base-url", api.url); r.code != 0 {
		t.Fatalf("login --profile other: exit %d, stderr %s", r.code, r.stderr)
	}
	endpoints := func(env partnercli.Env, args ...string) string {
		t.Helper()
		r := runCLI(env, "", append(args, "webhooks", "list", "-q")...)
		if r.code != 0 {
			t.Fatalf("webhooks list %v: exit %d, stderr %s", args, r.code, r.stderr)
		}
		return r.stdout
	}
	if got := endpoints(onlyConfig); strings.TrimSpace(got) != mine.Id.String() {
		t.Errorf("default profile sees %q", got)
	}
	if got := endpoints(onlyConfig, "--profile", "other"); got != "" {
		t.Errorf("--profile other sees the default client's endpoints: %q", got)
	}
	if got := endpoints(envOf("XDG_CONFIG_HOME", home, "DOCEVAL_PROFILE", "other")); got != "" {
		t.Errorf("DOCEVAL_PROFILE=other sees %q", got)
	}
	// The environment's key beats the profile's; the flag beats the environment.
	if got := endpoints(envOf("XDG_CONFIG_HOME", home, "DOCEVAL_API_KEY", otherKey)); got != "" {
		t.Errorf("DOCEVAL_API_KEY did not override the profile: %q", got)
	}
	if got := endpoints(envOf("XDG_CONFIG_HOME", home, "DOCEVAL_API_KEY", otherKey), "--api-key", api.key); strings.TrimSpace(got) != mine.Id.String() {
		t.Errorf("--api-key did not override DOCEVAL_API_KEY: %q", got)
	}
	if r := runCLI(envOf("XDG_CONFIG_HOME", home, "DOCEVAL_BASE_URL", "http://127.0.0.1:1"), "", "webhooks", "list"); r.code != partnercli.ExitError {
		t.Errorf("DOCEVAL_BASE_URL did not override the profile's URL: exit %d", r.code)
	}
	if r := runCLI(onlyConfig, "", "--profile", "missing", "webhooks", "list"); r.code != partnercli.ExitUsage || !strings.Contains(r.stderr, "doceval login --profile missing") {
		t.Errorf("unknown profile: exit %d, stderr %s", r.code, r.stderr)
	}

	// `profiles` lists both, keys masked; a second login keeps the base URL.
	out := runCLI(onlyConfig, "", "profiles").stdout
	if !strings.Contains(out, "default") || !strings.Contains(out, "other") || strings.Contains(out, api.key) || strings.Contains(out, otherKey) {
		t.Errorf("profiles:\n%s", out)
	}
	if r := runCLI(onlyConfig, api.key, "login"); r.code != 0 {
		t.Errorf("login again without --base-url: exit %d, %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), otherKey) {
		t.Errorf("logging in to one profile lost another:\n%s", b)
	}
}
