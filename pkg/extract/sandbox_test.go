package extract

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A document tool inherits none of the worker's secrets, works in a directory of its
// own that is gone afterwards, and runs under the resource limits.
func TestToolsRunWithoutSecretsAndWithLimits(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://doceval:secret@db/doceval")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
	t.Setenv("DOCEVAL_SECRET_KEY", "do-not-leak-either")
	opt := Options{TempDir: t.TempDir(), Limits: Limits{MaxMemory: 1 << 30, MaxFileSize: 8 << 20}}.withDefaults()
	out, err := run(context.Background(), opt, 1<<20, "bash", "-c", `env; echo "as=$(ulimit -v) fsize=$(ulimit -f) cpu=$(ulimit -t)"`)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, secret := range []string{"DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "DOCEVAL_SECRET_KEY", "secret@db", "do-not-leak"} {
		if strings.Contains(got, secret) {
			t.Errorf("the tool sees %s:\n%s", secret, got)
		}
	}
	var home, tmpdir string
	for line := range strings.Lines(got) {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "HOME="); ok {
			home = v
		}
		if v, ok := strings.CutPrefix(line, "TMPDIR="); ok {
			tmpdir = v
		}
	}
	if tmpdir == "" || home != tmpdir || filepath.Dir(tmpdir) != opt.TempDir {
		t.Errorf("tool directory: TMPDIR %q, HOME %q, want one directory under %s", tmpdir, home, opt.TempDir)
	}
	if _, err := os.Stat(tmpdir); !os.IsNotExist(err) {
		t.Errorf("the tool's directory %s outlives it: %v", tmpdir, err)
	}
	if !isolation.limits {
		t.Skip("prlimit is not installed: no resource limits to check")
	}
	cpu := strconv.Itoa(int(opt.Timeout.Seconds()))
	want := "as=" + strconv.Itoa(1<<20) + " fsize=" + strconv.Itoa(8<<20/1024) + " cpu=" + cpu
	if !strings.Contains(got, want) {
		t.Errorf("limits: want %q in\n%s", want, got)
	}
}

// Where the machine allows a network namespace, a tool cannot reach even the worker's
// loopback.
func TestToolsHaveNoNetwork(t *testing.T) {
	if strings.HasPrefix(Isolation(), "none") {
		t.Skip("no network isolation on this machine: " + Isolation())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	opt := Options{TempDir: t.TempDir()}.withDefaults()
	out, err := run(context.Background(), opt, 1<<10, "bash", "-c", "(echo > /dev/tcp/127.0.0.1/"+port+") 2>/dev/null && echo reached || echo isolated")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "isolated" {
		t.Errorf("a tool reached a port on the worker's loopback (%s): %s", Isolation(), out)
	}
}
