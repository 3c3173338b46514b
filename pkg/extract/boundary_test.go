package extract

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	imgpkg "image"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The parser boundary holds: a stand-in pdftotext, pdfinfo, pdftoppm and tesseract,
// run through the same boundary as the real tools, tries what a tool taken over by a
// hostile file would (see testdata/standin) and reaches nothing: not the worker's
// environment, not its processes, not another job's files, not the database or a
// listener on the host's loopback, not a hundred processes, not a file larger than
// MaxFileSize. The job fails cleanly: an error, promptly, with nothing left behind.
// Only addresses on this machine are tried.
func TestACompromisedToolReachesNothing(t *testing.T) {
	needSandbox(t)
	const secret = "s3cr3t-db-password"
	t.Setenv("DATABASE_URL", "postgres://doceval:"+secret+"@127.0.0.1:5432/doceval")
	t.Setenv("NATS_URL", "nats://doceval:"+secret+"@127.0.0.1:4222")
	tempDir := openTempDir(t)

	other, err := newJob(tempDir, Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other.dir, "secret.txt"), []byte("another tenant's payslip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(other.dir, "secret.txt"), -1, other.gid); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	dbAddr := ""
	if u, err := url.Parse(os.Getenv("TEST_DATABASE_URL")); err == nil && u.Host != "" {
		dbAddr = u.Host
		if u.Port() == "" {
			dbAddr = net.JoinHostPort(u.Hostname(), "5432")
		}
	}
	if dbAddr == "" {
		t.Log("TEST_DATABASE_URL is not set: the database attempt has no address (run under devstack with-postgres to try it)")
	}

	lim := Limits{MaxFileSize: 4 << 20}
	sleepArg := "317" // the stand-in's sleeps, to find any left over
	bin := buildStandIn(t, map[string]string{
		"secret": secret, "workerPID": strconv.Itoa(os.Getpid()), "otherJob": other.dir,
		"listenAddr": ln.Addr().String(), "dbAddr": dbAddr,
		"hugeBytes": strconv.FormatInt(lim.MaxFileSize+(1<<20), 10), "sleepArg": sleepArg,
	}, "pdftotext", "pdfinfo", "pdftoppm", "tesseract")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	// Through run, the boundary every tool call crosses, and through runOn, which hands
	// a file on standard input to a sandbox made ahead of need: the stand-in's report.
	pool := newWarmPool()
	opt := Options{TempDir: tempDir, Limits: lim, Timeout: time.Minute, warm: pool}.withDefaults()
	input := writeTemp(t, "input.pdf", []byte("%PDF-1.4"))
	for _, how := range []string{"run", "runOn"} {
		start := time.Now()
		if how == "run" {
			_, err = run(context.Background(), opt, 1<<20, "pdftotext", "-layout", "-enc", "UTF-8", "input", "-")
		} else {
			_, err = runOn(context.Background(), opt, 1<<20, input, "pdftotext", "-layout", "-enc", "UTF-8", "-", "-")
		}
		var ee *exitError
		if !errors.As(err, &ee) {
			t.Fatalf("the stand-in's run through %s: %v, want its failure", how, err)
		}
		t.Logf("through %s, the stand-in failed after %s: %v", how, time.Since(start).Round(time.Millisecond), ee.err)
		attempts := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(ee.stderr))
		for sc.Scan() {
			line := sc.Text()
			if name, rest, ok := strings.Cut(strings.TrimPrefix(line, "attempt "), " "); ok && strings.HasPrefix(line, "attempt ") {
				attempts[name] = rest
				t.Logf("%-22s %s", name, rest)
			} else {
				t.Log(line)
			}
		}
		if !strings.Contains(ee.stderr, "identity uid=65534 gid=65534 capeff=0000000000000000") {
			t.Errorf("%s: the stand-in does not run as uid 65534 without capabilities", how)
		}
		for _, name := range []string{
			"environ-parent", "environ-init", "environ-worker", "proc",
			"other-job-list", "other-job-read", "loopback-listener", "database",
			"write-usr", "write-etc", "write-root", "write-job", "fork-100",
		} {
			outcome, ok := attempts[name]
			switch {
			case !ok:
				t.Errorf("%s: %s: no report", how, name)
			case !strings.HasPrefix(outcome, "blocked "):
				t.Errorf("%s: %s: %s", how, name, outcome)
			}
		}
		// The write beyond MaxFileSize ends the tool (SIGXFSZ) or fails.
		if outcome, ok := attempts["huge-file"]; ok && !strings.HasPrefix(outcome, "blocked ") {
			t.Errorf("%s: huge-file: %s", how, outcome)
		}
		if !strings.Contains(ee.stderr, "huge-file writing") {
			t.Errorf("%s: the stand-in never tried the huge file", how)
		}
	}
	pool.stop()
	if n := accepted.Load(); n > 0 {
		t.Errorf("the listener on the host's loopback accepted %d connections", n)
	}

	// Through the jobs: extraction of a PDF (pdftotext, pdfinfo) and of an image
	// (tesseract), and a page rendered for the console (pdfinfo, pdftoppm).
	pdf := writeTemp(t, "a.pdf", makePDF(payslip))
	png := writeTemp(t, "a.png", encodePNG(t, imgpkg.NewGray(imgpkg.Rect(0, 0, 64, 64))))
	for name, job := range map[string]func(ctx context.Context) error{
		"pdf": func(ctx context.Context) error {
			_, err := File(ctx, pdf, PDF, Options{TempDir: tempDir, Limits: lim, Timeout: time.Minute})
			return err
		},
		"image": func(ctx context.Context) error {
			_, err := File(ctx, png, PNG, Options{TempDir: tempDir, Limits: lim, Timeout: time.Minute})
			return err
		},
		"render": func(ctx context.Context) error {
			_, err := RenderPage(ctx, pdf, 1, 100, lim)
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := time.Now()
		err := job(ctx)
		cancel()
		took := time.Since(start)
		var f *Failure
		if !errors.As(err, &f) {
			t.Errorf("%s job: %v, want a *Failure", name, err)
		}
		if took > 30*time.Second {
			t.Errorf("%s job took %s", name, took)
		}
		t.Logf("%s job failed after %s: %v", name, took.Round(time.Millisecond), err)
	}
	if entries, _ := os.ReadDir(tempDir); len(entries) != 1 || entries[0].Name() != filepath.Base(other.dir) {
		t.Errorf("left in the jobs' directory: %v", entries)
	}
	if leftover := sleepsLeft(sleepArg); len(leftover) > 0 {
		t.Errorf("the stand-in's processes outlive their sandboxes: %v", leftover)
	}
	if n := accepted.Load(); n > 0 {
		t.Errorf("the listener on the host's loopback accepted %d connections", n)
	}
}

// buildStandIn builds testdata/standin with its targets and installs it under each of
// names in a directory the sandbox's user can reach; the directory is returned.
func buildStandIn(t *testing.T, targets map[string]string, names ...string) string {
	t.Helper()
	dir := filepath.Join(openTempDir(t), "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var ldflags []string
	for k, v := range targets {
		ldflags = append(ldflags, fmt.Sprintf("-X main.%s=%s", k, v))
	}
	bin := filepath.Join(dir, names[0])
	cmd := exec.Command("go", "build", "-o", bin, "-ldflags", strings.Join(ldflags, " "), "./testdata/standin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the stand-in: %v\n%s", err, out)
	}
	for _, n := range names[1:] {
		if err := os.Link(bin, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sleepsLeft lists the host's processes running "sleep arg".
func sleepsLeft(arg string) []string {
	var left []string
	for range 20 { // a sandbox's processes end as it is torn down
		left = left[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.HasSuffix(string(cmdline), "sleep\x00"+arg+"\x00") {
				left = append(left, e.Name())
			}
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return left
}
