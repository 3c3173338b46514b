package devstack_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// The README's curl quickstart runs as written against the dev stack (make run's
// Run), so it cannot rot: every command succeeds and the answers are the documented
// ones.
func TestReadmeQuickstart(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the quickstart needs curl")
	}
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	script := readmeBlock(t, "## Quickstart with curl")
	dir, _ := startDevStack(t)
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quickstart: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"key":"personal_real_estate_financing"`, // templates
		`"display_id":"SUB-`,                     // the submission
		`"external_file_id":"payslip-2026-01"`,   // the upload
		`"kind":"basic"`,                         // the evaluation
		`"code":"invalid_api_key"`,               // the wrong key
		`"param":"limit"`,                        // the field error
		`Idempotent-Replayed: true`,              // the repeated POST
		`"next_cursor":"`,                        // the event feed
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("quickstart output lacks %s:\n%s", want, out)
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
