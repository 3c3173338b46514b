package devstack_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/extract"
)

// The partner CLI, built as partners get it, drives the whole dev stack: create,
// upload, evaluate --wait, events; `doceval listen --direct` receives real webhook
// deliveries from the dispatcher and verifies their signatures, the one `trigger`
// asks for among them.
func TestCLIAgainstDevStack(t *testing.T) {
	if err := extract.CheckTools(); err != nil {
		t.Skip(err)
	}
	t.Parallel()
	dir, env := startDevStack(t)
	bin := filepath.Join(t.TempDir(), "doceval")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../services/doceval").CombinedOutput(); err != nil {
		t.Fatalf("build the CLI: %v\n%s", err, out)
	}
	environ := append(os.Environ(), "DOCEVAL_BASE_URL="+env["DOCEVAL_BASE_URL"], "DOCEVAL_API_KEY="+env["DOCEVAL_API_KEY"])
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, environ
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("doceval %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	// A receiver on a free port, registered as a webhook endpoint.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var endpoint struct {
		ID            string `json:"id"`
		SigningSecret string `json:"signing_secret"`
	}
	if err := json.Unmarshal([]byte(run("webhooks", "create", "--url", "http://"+addr+"/hook", "--json")), &endpoint); err != nil || endpoint.SigningSecret == "" {
		t.Fatalf("webhooks create: %v %+v", err, endpoint)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := exec.CommandContext(ctx, bin, "listen", "--direct", "--addr", addr, "--secret", endpoint.SigningSecret)
	listen.Env = environ
	received, err := listen.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	listenErr := &lockedBuffer{}
	listen.Stderr = listenErr
	if err := listen.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		for sc := bufio.NewScanner(received); sc.Scan(); {
			lines <- sc.Text()
		}
		close(lines)
	}()

	var sub struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(run("submissions", "create", "--external-id", "cli-e2e", "--language", "de", "--json")), &sub); err != nil || sub.ID == "" {
		t.Fatalf("submissions create: %v", err)
	}
	run("files", "upload", sub.ID, ".data/samples/payslip.pdf", "--external-id", "payslip")
	ready := regexp.MustCompile(`"upload_status":\s*"ready"`)
	for deadline := time.Now().Add(60 * time.Second); !ready.MatchString(run("submissions", "get", sub.ID, "--json")); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the upload did not become ready")
		}
	}
	result := run("evaluations", "start", sub.ID, "--wait", "--interval", "300ms")
	for _, want := range []string{"documents_readable", "salary_statements_complete", "net_monthly_income"} {
		if !strings.Contains(result, want) {
			t.Errorf("evaluations start --wait lacks %s:\n%s", want, result)
		}
	}
	if events := run("events", "list", "--submission", sub.ID); !strings.Contains(events, "evaluation.completed") || !strings.Contains(events, "file.ready") {
		t.Errorf("events list:\n%s", events)
	}
	// The dispatcher delivers to the receiver, which verifies and prints each event.
	deadline := time.After(60 * time.Second)
	for got := ""; !strings.Contains(got, "evaluation.completed"); {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("listen ended: %s\n%s", got, listenErr.String())
			}
			got += line + "\n"
		case <-deadline:
			t.Fatalf("no verified evaluation.completed delivery; listen printed:\n%s\n%s", got, listenErr.String())
		}
	}
	// `trigger` sends a signed test event to that endpoint, which the receiver verifies too;
	// --wait waits for the dispatcher's attempt and exits 1 unless it was acknowledged.
	if out := run("trigger", endpoint.ID, "--wait"); !strings.Contains(out, "webhook_endpoint.test") || !strings.Contains(out, "succeeded") {
		t.Errorf("trigger --wait:\n%s", out)
	}
	for got := ""; !strings.Contains(got, "webhook_endpoint.test"); {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("listen ended: %s\n%s", got, listenErr.String())
			}
			got += line + "\n"
		case <-deadline:
			t.Fatalf("no verified webhook_endpoint.test delivery; listen printed:\n%s\n%s", got, listenErr.String())
		}
	}
	if strings.Contains(listenErr.String(), "rejected") {
		t.Errorf("listen rejected a real delivery: %s", listenErr.String())
	}
}

// lockedBuffer is a bytes.Buffer that a running command writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
