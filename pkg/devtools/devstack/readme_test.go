package devstack_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/devtools/devstack"
	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

// readmeBlock returns the first sh code block after the heading.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	return readmeBlockOf(t, heading, "```sh")
}

// readmeBlockOf returns the first code block opened by fence after the heading.
func readmeBlockOf(t *testing.T, heading, fence string) string {
	t.Helper()
	f, err := os.Open("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var block strings.Builder
	state := 0 // 0: before the heading, 1: before the block, 2: inside it
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case state == 0 && line == heading:
			state = 1
		case state == 1 && line == fence:
			state = 2
		case state == 2 && line == "```":
			return block.String()
		case state == 2:
			block.WriteString(line + "\n")
		}
	}
	t.Fatalf("no %s block after %q in README.md", fence, heading)
	return ""
}

// needTool finds a command the quickstart uses: without it the test fails in CI (make
// tools installs it) and is skipped elsewhere.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the quickstart needs %s (make tools installs it)", name)
		}
		t.Skipf("the quickstart needs %s", name)
	}
}

// The README's quickstart runs as written, twice, against one dev stack (make run's
// Run): the listen terminal, then the core flow by curl, by the Go SDK and by the CLI,
// then the custom check and template. Every run completes its evaluation, the second
// as the first (the blocks are safe to run again), and listen receives every event.
func TestReadmeQuickstart(t *testing.T) {
	for _, tool := range []string{"curl", "jq"} {
		needTool(t, tool)
	}
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	listenBlock := readmeBlock(t, "## Quickstart")
	curlBlock := readmeBlock(t, "### curl")
	customBlock := readmeBlock(t, "### Custom checks and templates")
	cliBlock := readmeBlock(t, "### CLI")
	program := readmeBlockOf(t, "### Go SDK", "```go")
	dir, env := startDevStack(t)

	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	build := func(out string, args ...string) {
		cmd := exec.Command("go", append([]string{"build", "-o", out}, args...)...)
		cmd.Dir = repo // the workspace resolves the SDK and the client
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, b)
		}
	}
	build(filepath.Join(dir, "bin", "doceval"), "./services/doceval")
	mainGo := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(mainGo, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	build(filepath.Join(dir, "quickstart-sdk"), mainGo)

	// The CLI's profile (and listen's position) in a config file of the test's own.
	shellEnv := append(os.Environ(), "DOCEVAL_CONFIG="+filepath.Join(t.TempDir(), "config.json"))
	shell := func(ctx context.Context, script string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = dir, shellEnv
		return cmd
	}
	ctx, stopListen := context.WithCancel(context.Background())
	var listened lockedBuffer
	listen := shell(ctx, listenBlock)
	listen.Stdout, listen.Stderr = &listened, &listened
	if err := listen.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stopListen(); _ = listen.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(listened.String(), "Ctrl-C stops"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("listen did not start:\n%s", listened.String())
		}
	}

	var customTemplate string
	for run := 1; run <= 2; run++ {
		out, err := shell(context.Background(), curlBlock).CombinedOutput()
		if err != nil {
			t.Fatalf("run %d, curl: %v\n%s", run, err, out)
		}
		for _, want := range []string{
			"completed: action_required, request_documents\n", // the evaluation, read
			`  net_monthly_income = {"amount":"3250.00","currency":"EUR"}`,
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("run %d, curl: output lacks %q:\n%s", run, want, out)
			}
		}
		// The custom block, in the curl block's shell (its first lines, up to the first
		// blank one, set it up): the first run makes the check and the template and
		// prints their keys, the second finds them; both print the submission's
		// template, the same one.
		setup, _, _ := strings.Cut(curlBlock, "\n\n")
		if out, err = shell(context.Background(), setup+"\n"+customBlock).CombinedOutput(); err != nil {
			t.Fatalf("run %d, custom: %v\n%s", run, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		made := strings.Contains(string(out), "employer_verified\nloan_with_employer_check\n")
		if last := lines[len(lines)-1]; made != (run == 1) || uuid.Validate(last) != nil || (run == 2 && last != customTemplate) {
			t.Errorf("run %d, custom: made %v, template %q (first run: %q):\n%s", run, made, last, customTemplate, out)
		} else {
			customTemplate = last
		}
		sdk := exec.Command(filepath.Join(dir, "quickstart-sdk"))
		sdk.Dir = dir
		sdk.Env = append(os.Environ(), "DOCEVAL_BASE_URL="+env["DOCEVAL_BASE_URL"], "DOCEVAL_API_KEY="+env["DOCEVAL_API_KEY"])
		if out, err = sdk.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "completed: ") || !strings.Contains(string(out), "net_monthly_income") {
			t.Errorf("run %d, SDK: %v\n%s", run, err, out)
		}
		if out, err = shell(context.Background(), cliBlock).CombinedOutput(); err != nil || !regexp.MustCompile(`(?m)^status: +completed$`).Match(out) {
			t.Errorf("run %d, CLI: %v\n%s", run, err, out)
		}
	}

	// listen printed each flow's evaluation.completed once per run, and each upload's
	// file.ready once (the second run found the upload already read).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got := listened.String()
		complete := true
		for _, ext := range []string{"crm-4711", "crm-4712", "crm-4713"} {
			completed := regexp.MustCompile(`evaluation\.completed +evt_\S+ +submission ` + ext + ` `)
			complete = complete && len(completed.FindAllString(got, -1)) == 2
		}
		if complete && strings.Count(got, "file.ready") == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("listen did not print two evaluation.completed per flow and three file.ready:\n%s", got)
		}
	}
}

// startDevStack runs make run's stack on a fresh database and embedded NATS in a
// temporary directory, waits until it wrote .data/dev.env, and returns the directory
// and that file's variables.
func startDevStack(t *testing.T) (string, map[string]string) {
	t.Helper()
	_, dbURL := dbtest.NewWithURL(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- devstack.Run(ctx, devstack.RunOptions{
			DataDir: filepath.Join(dir, ".data"), HTTPAddr: "127.0.0.1:0", DatabaseURL: dbURL, NatsURL: natstest.URL(t),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: devNull(t),
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dev stack: %v", err)
		}
	})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, ".data", "dev.env")); err == nil && strings.Contains(string(b), "DOCEVAL_API_KEY") {
			env := map[string]string{}
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimPrefix(line, "export ")
				if k, v, ok := strings.Cut(line, "="); ok {
					env[k] = strings.Trim(v, `'"`)
				}
			}
			return dir, env
		}
		if time.Now().After(deadline) {
			t.Fatal("the dev stack did not write .data/dev.env")
		}
	}
}

func devNull(t *testing.T) *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The README stays a short way in (at most 200 lines), and every page it or a docs page
// links to exists, anchors included.
func TestReadmeLinks(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 200 {
		t.Errorf("README.md has %d lines; keep it to 200 and move the rest to docs/", n)
	}
	pages, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range append(pages, "../../../README.md") {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(m[1], "mailto:") {
				continue
			}
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), target)
			}
			content, err := os.ReadFile(path)
			if err != nil {
				if info, serr := os.Stat(path); serr != nil || !info.IsDir() {
					t.Errorf("%s links to %s, which does not exist", filepath.Base(page), m[1])
				}
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !slices.Contains(headingAnchors(string(content)), anchor) {
				t.Errorf("%s links to %s: no heading makes #%s", filepath.Base(page), m[1], anchor)
			}
		}
	}
}

// headingAnchors are the ids GitHub gives a Markdown file's headings: lower case,
// punctuation dropped, spaces as hyphens.
func headingAnchors(markdown string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range title {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
