package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// openTempDir is a directory for jobs that the sandbox's user can reach, as the
// system's temporary directory is (t.TempDir's parent is private to this process's
// user).
func openTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "doceval-extract-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// needSandbox fails the test where the sandbox cannot be made: the tools must never run
// unconfined by default, so extraction's tests need it (make tools installs
// bubblewrap).
func needSandbox(t testing.TB) {
	t.Helper()
	if how := isolation(); strings.HasPrefix(how, "none") {
		t.Fatal(how)
	}
}

// A sandboxed tool inherits none of the worker's secrets, runs as the sandbox's user
// without capabilities, works in a /tmp of its own with its job's directory read-only,
// leaves nothing behind, and runs under the resource limits: one that reads the job's
// files, and one that reads its input on standard input in a sandbox made ahead of
// need, which sees no job directory and works in the read-only root.
func TestToolsRunWithoutSecretsAndWithLimits(t *testing.T) {
	needSandbox(t)
	t.Setenv("DATABASE_URL", "postgres://doceval:secret@db/doceval")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
	t.Setenv("DOCEVAL_SECRET_KEY", "do-not-leak-either")
	script := `env; echo "as=$(ulimit -v) fsize=$(ulimit -f) cpu=$(ulimit -t) nproc=$(ulimit -u) core=$(ulimit -c)"
		echo "uid=$(id -u) pwd=$(pwd)"; grep CapEff /proc/self/status
		touch "$(pwd)/x" 2>/dev/null && echo job-writable; touch /tmp/x && echo tmp-writable`
	input := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(input, []byte("%PDF-1.4"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, stdin := range []bool{false, true} {
		t.Run(map[bool]string{false: "job directory", true: "standard input"}[stdin], func(t *testing.T) {
			dir := openTempDir(t)
			pool := newWarmPool()
			defer pool.stop()
			opt := Options{TempDir: dir, Limits: Limits{MaxMemory: 1 << 30, MaxFileSize: 8 << 20, MaxProcesses: 40}, warm: pool}.withDefaults()
			var out []byte
			var err error
			if stdin {
				out, err = runOn(context.Background(), opt, 1<<20, input, "bash", "-c", script)
				if err == nil { // again, from a sandbox made ahead
					c, cleanup, _ := sandboxed(opt, true, "bash", "-c", script)
					cleanup()
					waitReady(t, pool, c, 1)
					out, err = runOn(context.Background(), opt, 1<<20, input, "bash", "-c", script)
				}
			} else {
				out, err = run(context.Background(), opt, 1<<20, "bash", "-c", script)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(out)
			t.Log(got)
			for _, secret := range []string{"DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "DOCEVAL_SECRET_KEY", "secret@db", "do-not-leak"} {
				if strings.Contains(got, secret) {
					t.Errorf("the tool sees %s", secret)
				}
			}
			var pwd string
			for line := range strings.Lines(got) {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), "uid=65534 pwd="); ok {
					pwd = v
				}
			}
			if stdin && pwd != "/" || !stdin && (pwd == "" || filepath.Dir(pwd) != dir) {
				t.Errorf("want uid 65534 in a job directory under %s, or in / for standard input: %q", dir, pwd)
			}
			for _, want := range []string{"HOME=/tmp\n", "TMPDIR=/tmp\n", "CapEff:\t0000000000000000", "tmp-writable"} {
				if !strings.Contains(got, want) {
					t.Errorf("want %q", want)
				}
			}
			if strings.Contains(got, "job-writable") {
				t.Error("the tool can write to its job's directory")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the run left %v behind", entries)
			}
			cpu := strconv.Itoa(int(opt.Timeout.Seconds()))
			want := "as=" + strconv.Itoa(1<<20) + " fsize=" + strconv.Itoa(8<<20/1024) + " cpu=" + cpu + " nproc=40 core=0"
			if !strings.Contains(got, want) {
				t.Errorf("limits: want %q", want)
			}
		})
	}
}

// Where the sandbox cannot be made, nothing runs unconfined unless asked: Check
// refuses with the fix and the setting that opts out, a tool run fails as the
// worker's problem (not the file's), and Unconfined runs the tool with its limits.
func TestNoSandboxNoToolUnlessUnconfined(t *testing.T) {
	noBwrap := t.TempDir()
	for _, tool := range []string{"true", "prlimit", "bash", "env"} {
		p, err := toolPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(noBwrap, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", noBwrap)
	t.Setenv("DATABASE_URL", "postgres://doceval:secret@db/doceval")
	ctx := context.Background()

	_, err := Sandbox.Check(ctx, "")
	if err == nil || !strings.Contains(err.Error(), "DOCEVAL_PARSER_ISOLATION=unconfined") || !strings.Contains(err.Error(), "bubblewrap") {
		t.Errorf("Check without bwrap: %v", err)
	}
	t.Log(err)
	_, err = run(ctx, Options{}.withDefaults(), 1<<10, "true")
	var f *Failure
	if err == nil || errors.As(err, &f) {
		t.Errorf("a run without a sandbox: %v, want an error that is not the file's", err)
	}
	if _, err := Confinement("none").Check(ctx, ""); err == nil {
		t.Error("an unknown DOCEVAL_PARSER_ISOLATION is accepted")
	}

	how, err := Unconfined.Check(ctx, "")
	if err != nil || !strings.HasPrefix(how, "unconfined") {
		t.Fatalf("Unconfined: %q, %v", how, err)
	}
	opt := Options{Limits: Limits{MaxFileSize: 8 << 20, Confinement: Unconfined}}.withDefaults()
	out, err := run(ctx, opt, 1<<20, "bash", "-c", `env; echo "fsize=$(ulimit -f) core=$(ulimit -c)"`)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); strings.Contains(got, "secret@db") || !strings.Contains(got, "fsize=8192 core=0") {
		t.Errorf("unconfined run:\n%s", got)
	}
}

// isolation describes how document tools are confined on this machine by default
// (Sandbox), or why they cannot be: "none: " and the reason (probed once per test binary).
func isolation() string {
	probeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		how, err := Sandbox.Check(ctx, "")
		if err != nil {
			how = "none: " + err.Error()
		}
		probed = how
	})
	return probed
}

var (
	probeOnce sync.Once
	probed    string
)

// The command line of a run without a job is made once and reused: the same as one
// made anew, and a caller changing its copy changes nothing for the next run.
func TestSandboxArgvWithoutAJobIsReused(t *testing.T) {
	needSandbox(t)
	lim := Limits{}.withDefaults()
	env, limits := []string{"PATH=/usr/bin:/bin"}, []string{"--core=0"}
	first, err := sandboxArgv(nil, lim, env, limits, "pdftotext", []string{"-bbox-layout", "-", "-"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := makeSandboxArgv(nil, lim, env, limits, "pdftotext", []string{"-bbox-layout", "-", "-"})
	if err != nil || strings.Join(first, " ") != strings.Join(fresh, " ") {
		t.Fatalf("cached %q, made anew %q (%v)", first, fresh, err)
	}
	want := strings.Join(first, " ")
	first[len(first)-1] = "changed"
	again, err := sandboxArgv(nil, lim, env, limits, "pdftotext", []string{"-bbox-layout", "-", "-"})
	if err != nil || strings.Join(again, " ") != want {
		t.Fatalf("after the caller changed its copy: %q (%v)", again, err)
	}
	other, _ := sandboxArgv(nil, lim, env, limits, "pdfinfo", []string{"-"})
	if strings.Join(other, " ") == want {
		t.Fatal("another tool got pdftotext's command line")
	}
}
