package extract

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// Limits confine every document tool (pdftotext, pdfinfo, pdftoppm, tesseract,
// antiword): it parses hostile input, so it runs with the least this process can
// give it.
//
//   - Environment: PATH and the tool's own settings (TESSDATA_PREFIX,
//     OMP_THREAD_LIMIT) only; never DATABASE_URL, keys or cloud credentials. HOME and
//     TMPDIR point to a directory of its own, removed when it ends.
//   - Resources, with prlimit(1): address space (MaxMemory), CPU time (the file's
//     timeout), size of any file it writes (MaxFileSize), open files.
//   - Network: none, in a network namespace of its own (unshare(1) --net, as root or
//     through a user namespace) when the machine allows one; Isolation says whether
//     it does. Where it does not (a container without user namespaces), the tools run
//     with the network of the worker; the Helm chart's NetworkPolicy is then the
//     fence.
type Limits struct {
	MaxMemory   int64 // bytes of address space (default 2 GiB)
	MaxFileSize int64 // bytes of any one file written (default 512 MiB)
}

func (l Limits) withDefaults() Limits {
	if l.MaxMemory <= 0 {
		l.MaxMemory = 2 << 30
	}
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = 512 << 20
	}
	return l
}

// toolEnv is what a tool inherits from this process: nothing else.
var toolEnv = []string{"PATH", "TESSDATA_PREFIX", "OMP_THREAD_LIMIT"}

// Isolation reports how the tools are kept off the network on this machine:
// "network namespace", "user and network namespace", or "none" with the reason.
func Isolation() string {
	isolationOnce.Do(probeIsolation)
	return isolation.describe
}

var (
	isolationOnce sync.Once
	isolation     struct {
		prefix   []string // the unshare command line before the tool
		limits   bool     // prlimit is available
		describe string
	}
)

func probeIsolation() {
	_, err := exec.LookPath("prlimit")
	isolation.limits = err == nil
	for _, c := range []struct {
		prefix   []string
		describe string
	}{
		{[]string{"unshare", "--net", "--"}, "network namespace"},
		{[]string{"unshare", "--map-root-user", "--net", "--"}, "user and network namespace"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := exec.CommandContext(ctx, c.prefix[0], append(c.prefix[1:], "true")...).Run()
		cancel()
		if err == nil {
			isolation.prefix, isolation.describe = c.prefix, c.describe
			break
		}
	}
	if isolation.prefix == nil {
		isolation.describe = "none (unshare cannot create a network namespace here)"
	}
	if !isolation.limits {
		isolation.describe += "; no resource limits (prlimit not found)"
	}
}

// sandboxed builds the confined command for one tool run: the tool behind prlimit and
// unshare where present, a minimal environment, and a temporary directory of its own
// (removed by the returned cleanup).
func sandboxed(ctx context.Context, opt Options, name string, args ...string) (*exec.Cmd, func(), error) {
	isolationOnce.Do(probeIsolation)
	home, err := os.MkdirTemp(opt.TempDir, "doceval-tool-")
	if err != nil {
		return nil, nil, fmt.Errorf("tool directory: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(home) }
	lim := opt.Limits.withDefaults()
	var argv []string
	if isolation.limits {
		cpu := max(int(opt.Timeout.Seconds()), 1)
		argv = append(argv, "prlimit",
			"--as="+strconv.FormatInt(lim.MaxMemory, 10),
			"--cpu="+strconv.Itoa(cpu),
			"--fsize="+strconv.FormatInt(lim.MaxFileSize, 10),
			"--nofile=256", "--")
	}
	argv = append(argv, isolation.prefix...)
	argv = append(argv, name)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home}
	for _, k := range toolEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	return cmd, cleanup, nil
}
