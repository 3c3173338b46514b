package extract

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// warmTestScript is a tool that reads its input and reports what its sandbox shows:
// its PID namespace, whether an earlier run left a file in its /tmp, whether it sees
// the job directory given as $1, and where it works.
const warmTestScript = `cat; echo; echo "ns=$(readlink /proc/self/ns/pid)"
test -e /tmp/left && echo saw-left; echo x > /tmp/left
ls "$1" >/dev/null 2>&1 && echo sees-job; echo "pwd=$(pwd)"`

// waitReady waits until pool holds n sandboxes of c ready.
func waitReady(t *testing.T, pool *warmPool, c toolCommand, n int) []*toolProc {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		pool.mu.Lock()
		ready := slices.Clone(pool.ready[c.key()])
		pool.mu.Unlock()
		if len(ready) >= n {
			return ready
		}
	}
	t.Fatalf("no %d sandboxes made ahead", n)
	return nil
}

// A sandbox made ahead of need serves exactly one run of one file: two files' runs of
// the same command get two sandboxes (two PID namespaces), made before either file was
// there; neither sees the other's input, what the other left in its /tmp, or any job
// directory; and the pool never holds a sandbox that has run.
func TestWarmSandboxServesOneRun(t *testing.T) {
	needSandbox(t)
	dir := openTempDir(t)
	other, err := newJob(dir, Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	defer other.remove()
	if err := os.WriteFile(filepath.Join(other.dir, "secret.txt"), []byte("another tenant's payslip"), 0o640); err != nil {
		t.Fatal(err)
	}
	pool := newWarmPool()
	defer pool.stop()
	opt := Options{TempDir: dir, Timeout: time.Minute, warm: pool}.withDefaults()
	c, cleanup, err := sandboxed(opt, true, "bash", "-c", warmTestScript, "script", other.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if !c.warmable {
		t.Fatalf("command %q is not made ahead", c.argv)
	}
	first, err := pool.take(c) // none was ready: started now, and two more made ahead
	if err != nil {
		t.Fatal(err)
	}
	ahead := waitReady(t, pool, c, warmPerCommand)
	var used []*toolProc
	var outs []string
	for i, p := range append([]*toolProc{first}, ahead...) {
		if i > 0 {
			if p, err = pool.take(c); err != nil {
				t.Fatal(err)
			}
			if p != ahead[i-1] {
				t.Fatalf("run %d did not take the oldest sandbox made ahead", i)
			}
		}
		input := filepath.Join(t.TempDir(), "input")
		if err := os.WriteFile(input, []byte("file "+string(rune('A'+i))), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(input)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.finish(context.Background(), f, 1<<20)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !p.ended() {
			t.Error("a sandbox lives on after its run")
		}
		used = append(used, p)
		outs = append(outs, string(out))
	}
	namespaces := map[string]bool{}
	for i, out := range outs {
		t.Logf("run %d: %q", i, out)
		if !strings.HasPrefix(out, "file "+string(rune('A'+i))+"\n") || strings.Count(out, "file ") != 1 {
			t.Errorf("run %d read %q", i, out)
		}
		for _, bad := range []string{"saw-left", "sees-job"} {
			if strings.Contains(out, bad) {
				t.Errorf("run %d: %s", i, bad)
			}
		}
		if !strings.Contains(out, "pwd=/\n") {
			t.Errorf("run %d works outside the read-only root", i)
		}
		_, ns, _ := strings.Cut(out, "ns=")
		ns, _, _ = strings.Cut(ns, "\n")
		namespaces[ns] = true
	}
	if len(namespaces) != len(outs) {
		t.Errorf("%d runs in %d PID namespaces", len(outs), len(namespaces))
	}
	for _, p := range waitReady(t, pool, c, 1) {
		if slices.Contains(used, p) {
			t.Error("the pool holds a sandbox that has run")
		}
	}

	// One left unused past warmIdle ends, and leaves the pool.
	waiting := waitReady(t, pool, c, 1)[0]
	pool.expire(c.key(), waiting)
	<-waiting.done
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if slices.Contains(pool.ready[c.key()], waiting) {
		t.Error("an expired sandbox stays in the pool")
	}
}

// A sandbox that died while it waited (killed, out of memory) is never handed a file:
// the run takes another and succeeds, so a file is never refused for it.
func TestWarmSandboxThatDiedIsNotUsed(t *testing.T) {
	needSandbox(t)
	pool := newWarmPool()
	defer pool.stop()
	opt := Options{TempDir: openTempDir(t), Timeout: time.Minute, warm: pool}.withDefaults()
	input := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(input, []byte("the file"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, cleanup, err := sandboxed(opt, true, "cat")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if out, err := runOn(context.Background(), opt, 1<<10, input, "cat"); err != nil || string(out) != "the file" {
		t.Fatalf("first run: %q, %v", out, err)
	}
	for _, p := range waitReady(t, pool, c, warmPerCommand) {
		p.kill()
		<-p.done
	}
	for range warmPerCommand + 1 {
		if out, err := runOn(context.Background(), opt, 1<<10, input, "cat"); err != nil || string(out) != "the file" {
			t.Fatalf("after the sandboxes made ahead died: %q, %v", out, err)
		}
	}
}

// Files extracted at once (the ingest slots) each read their own text from the
// sandboxes made ahead: none is handed to two runs.
func TestWarmSandboxesForFilesAtOnce(t *testing.T) {
	needTools(t)
	needSandbox(t)
	pool := newWarmPool()
	defer pool.stop()
	files := map[string]string{
		writeTemp(t, "a.pdf", makePDF(payslip)): "Nettobezug 3.250,00 EUR",
		writeTemp(t, "b.pdf", benchPDF(2)):      "Kontoauszug Nr. 1 / 2026",
	}
	var wg sync.WaitGroup
	for range 4 {
		for path, want := range files {
			wg.Go(func() {
				for range 5 {
					res, err := File(context.Background(), path, PDF, Options{warm: pool})
					if err != nil || !strings.Contains(res.Pages[0].Text, want) {
						t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}
