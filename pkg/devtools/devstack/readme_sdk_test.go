package devstack_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/extract"
)

// The README's Go SDK program compiles and runs as written against the dev stack: it
// creates a submission, uploads the sample payslip, evaluates it and prints the checks.
func TestReadmeSDKProgram(t *testing.T) {
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	program := readmeBlockOf(t, "## Go SDK and the `doceval` CLI", "```go")
	dir, env := startDevStack(t)
	main := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(main, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "readme-sdk"), main)
	build.Dir = repo // the workspace resolves the SDK and the client
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README program does not build: %v\n%s", err, out)
	}
	cmd := exec.Command(filepath.Join(dir, "readme-sdk"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCEVAL_BASE_URL="+env["DOCEVAL_BASE_URL"], "DOCEVAL_API_KEY="+env["DOCEVAL_API_KEY"])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README program: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "completed ") || !strings.Contains(string(out), "documents_readable") {
		t.Errorf("the README program printed:\n%s", out)
	}
}
