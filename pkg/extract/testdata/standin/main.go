// Command standin plays a document tool taken over by a hostile file, for the parser
// boundary's test (TestACompromisedToolReachesNothing): whatever its name and
// arguments, it tries what an attacker would and reports each attempt on standard
// error as "attempt <name> <blocked|REACHED> <detail>", then fails.
//
// The test builds it with its targets set by -ldflags -X: the sandbox passes no
// environment and the arguments are the real tool's.
package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

var (
	secret     string // a value of the worker's environment
	workerPID  string // the worker's process id on the host
	otherJob   string // another job's directory, with a file in it
	listenAddr string // a TCP listener of the test on the host's loopback
	dbAddr     string // the test database's host:port, or empty
	hugeBytes  string // more than the largest file a tool may write
	sleepArg   string // the argument of the sleeps the fork attempt starts
)

func report(name string, reached bool, format string, args ...any) {
	outcome := "blocked"
	if reached {
		outcome = "REACHED"
	}
	fmt.Fprintf(os.Stderr, "attempt %s %s %s\n", name, outcome, strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
}

func main() {
	runtime.GOMAXPROCS(1) // few threads: the process limit counts them
	fmt.Fprintf(os.Stderr, "identity uid=%d gid=%d %s\n", os.Getuid(), os.Getgid(), capabilities())

	for _, p := range []struct{ name, pid string }{
		{"environ-parent", strconv.Itoa(os.Getppid())}, {"environ-init", "1"}, {"environ-worker", workerPID},
	} {
		b, err := os.ReadFile("/proc/" + p.pid + "/environ")
		switch {
		case err != nil:
			report(p.name, false, "pid %s: %v", p.pid, err)
		default:
			report(p.name, bytes.Contains(b, []byte(secret)), "pid %s: read %d bytes: %q", p.pid, len(b), b)
		}
	}

	procs, err := processes()
	report("proc", err == nil && len(procs) > 0 && foreign(procs), "%v %v", procs, err)

	entries, err := os.ReadDir(otherJob)
	report("other-job-list", err == nil, "%d entries, %v", len(entries), err)
	_, err = os.ReadFile(filepath.Join(otherJob, "secret.txt"))
	report("other-job-read", err == nil, "%v", err)

	for name, addr := range map[string]string{"loopback-listener": listenAddr, "database": dbAddr} {
		if addr == "" {
			report(name, false, "no address to try")
			continue
		}
		c, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err == nil {
			c.Close()
		}
		report(name, err == nil, "%s: %v", addr, err)
	}

	for _, p := range []struct{ name, path string }{
		{"write-usr", "/usr/probe"}, {"write-etc", "/etc/probe"}, {"write-root", "/probe"}, {"write-job", "probe"},
	} {
		err := os.WriteFile(p.path, []byte("x"), 0o644)
		report(p.name, err == nil, "%s: %v", p.path, err)
	}

	started := 0
	var forkErr error
	for range 100 {
		if forkErr = exec.Command("/bin/sleep", sleepArg).Start(); forkErr != nil {
			break
		}
		started++
	}
	report("fork-100", started == 100, "started %d: %v", started, forkErr)

	n, _ := strconv.ParseInt(hugeBytes, 10, 64)
	fmt.Fprintf(os.Stderr, "huge-file writing %d bytes\n", n)
	f, err := os.Create("/tmp/huge")
	if err == nil {
		var written int64
		chunk := make([]byte, 1<<20)
		for written < n && err == nil {
			var w int
			w, err = f.Write(chunk)
			written += int64(w)
		}
		f.Close()
		report("huge-file", err == nil, "wrote %d of %d bytes: %v", written, n, err)
	} else {
		report("huge-file", false, "%v", err)
	}
	os.Exit(3)
}

// capabilities is the effective capability set from /proc/self/status.
func capabilities() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "CapEff:") {
			return "capeff=" + strings.TrimSpace(strings.TrimPrefix(l, "CapEff:"))
		}
	}
	return "capeff=unknown"
}

// processes lists the visible processes as pid:name.
func processes() ([]string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		out = append(out, e.Name()+":"+strings.TrimSpace(string(comm)))
	}
	return out, nil
}

// foreign reports whether a process other than the sandbox's own (its init, this
// program under its tool's name, the sleeps) is visible.
func foreign(procs []string) bool {
	self := filepath.Base(os.Args[0])
	for _, p := range procs {
		_, name, _ := strings.Cut(p, ":")
		if name != "bwrap" && name != self && name != "sleep" {
			return true
		}
	}
	return false
}
