package extract

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Limits confine every document tool (pdftotext, pdfinfo, pdftoppm, tesseract,
// antiword): it parses hostile input, so a compromise of it must reach nothing.
//
// Under Sandbox (the default) each tool run is a bubblewrap sandbox (see bwrapArgs):
// user, PID, network, IPC, UTS and cgroup namespaces of its own, uid 65534, no
// capabilities, a read-only view of the system's programs, libraries and fonts, its
// own /proc and /dev, the directory of its job (one file's work, see job) read-only,
// and as its only writable place a fresh /tmp in memory that ends with it. A tool that
// reads its file on standard input (pdftotext and pdfinfo on a PDF, see runOn) sees no
// job directory at all, and its sandbox may be made ahead of need (see warmPool), to
// serve that one run. It sees no other process, no network and no other job; its
// environment is PATH and the tool's own settings (TESSDATA_PREFIX, OMP_THREAD_LIMIT)
// with HOME and TMPDIR in /tmp; never DATABASE_URL, keys or cloud credentials. The
// tools hand back what they make on standard output: one that could write to the
// job's directory could plant a link there that this process, often root, would
// follow when it writes the next file. Inside the sandbox prlimit(1) bounds the
// address space (MaxMemory), CPU time (the file's timeout), the size of any file
// written (MaxFileSize), open files, processes and threads (MaxProcesses), and turns
// core dumps off. A sandbox that cannot be made fails the run; it never falls back.
//
// Under Unconfined the tools run as this process's user with the same environment
// (HOME and TMPDIR in the job's directory) and resource limits but for the process
// count, nothing more: for a developer's machine without user namespaces, or the
// extractor service's pod, which Kubernetes confines instead.
type Limits struct {
	MaxMemory    int64 // bytes of address space (default 2 GiB)
	MaxFileSize  int64 // bytes of any one file written (default 512 MiB)
	MaxProcesses int   // processes and threads of one run, the sandbox's init included (default 64)
	// Confinement is where the tools run; "" is Sandbox.
	Confinement Confinement
}

func (l Limits) withDefaults() Limits {
	if l.MaxMemory <= 0 {
		l.MaxMemory = 2 << 30
	}
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = 512 << 20
	}
	if l.MaxProcesses <= 0 {
		l.MaxProcesses = 64
	}
	if l.Confinement == "" {
		l.Confinement = Sandbox
	}
	return l
}

// Confinement is how document tools are confined: the DOCEVAL_PARSER_ISOLATION setting
// of the ingest and console services.
type Confinement string

const (
	// Sandbox runs every tool in a bubblewrap sandbox; a service refuses to start where
	// one cannot be made.
	Sandbox Confinement = "sandbox"
	// Unconfined runs the tools as the service's own user: an explicit opt-out for
	// development, or where something else confines them (the extractor's pod).
	Unconfined Confinement = "unconfined"
)

// sandboxed reports whether tools run in the sandbox: anything but an explicit
// Unconfined does.
func (c Confinement) sandboxed() bool { return c != Unconfined }

// Check makes sure document tools can run as c says on this machine with their jobs'
// directories under tempDir (the system's when empty), and describes how they run,
// for the start-up log. Under Sandbox it runs a program in the sandbox; when that
// fails, the error says why and how to fix it. A service must not start on an error.
func (c Confinement) Check(ctx context.Context, tempDir string) (string, error) {
	switch c {
	case Unconfined:
		if _, err := exec.LookPath("prlimit"); err != nil {
			return "", fmt.Errorf("DOCEVAL_PARSER_ISOLATION=unconfined needs prlimit (util-linux) for the tools' resource limits: %w", err)
		}
		return "unconfined (DOCEVAL_PARSER_ISOLATION=unconfined): tools run as this process's user with a scrubbed environment, a private directory and resource limits only", nil
	case Sandbox, "":
	default:
		return "", fmt.Errorf("DOCEVAL_PARSER_ISOLATION is %q: want %q or %q", c, Sandbox, Unconfined)
	}
	opt := Options{TempDir: tempDir, Timeout: 30 * time.Second}.withDefaults()
	if _, err := run(ctx, opt, 1<<10, "true"); err != nil {
		hint := ""
		if _, lookErr := exec.LookPath(bwrap); lookErr == nil && os.Geteuid() == 0 {
			hint = fmt.Sprintf(" (as root, the sandbox runs as uid %d, which must be able to reach the job directories in %s)", sandboxUID, orSystemTemp(tempDir))
		}
		return "", fmt.Errorf("document tools cannot be sandboxed on this machine: %w%s; install bubblewrap (apt-get install bubblewrap) where unprivileged user namespaces are allowed, or set DOCEVAL_PARSER_ISOLATION=unconfined where something else confines the tools (a developer's machine, the extractor's pod)", err, hint)
	}
	return fmt.Sprintf("bubblewrap sandbox: own user, pid, network, ipc, uts and cgroup namespaces, uid %d without capabilities, read-only system and job directory, private /tmp, at most %d processes, no core dumps", sandboxUID, Limits{}.withDefaults().MaxProcesses), nil
}

func orSystemTemp(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}

// toolEnv is what a tool inherits from this process: nothing else.
var toolEnv = []string{"PATH", "TESSDATA_PREFIX", "OMP_THREAD_LIMIT"}

// toolCommand is how one tool run is started (see start): its command line and
// environment, fixed before the run starts.
type toolCommand struct {
	name string // the tool, for messages
	argv []string
	env  []string
	// stdin: the tool reads its input on standard input (its file argument is "-") and
	// sees no job directory; else its standard input is empty.
	stdin bool
	// warmable: the command names nothing of one job (a sandboxed tool that reads its
	// input on standard input), so its sandbox can be started ahead of need (see warmPool).
	warmable bool
}

// key is what two runs of the same command share, and nothing else does.
func (c toolCommand) key() string {
	return strings.Join(c.argv, "\x00") + "\x00\x00" + strings.Join(c.env, "\x00")
}

// sandboxed builds the confined command for one tool run in opt's job (a job of its
// own, removed by the returned cleanup, when opt has none). With stdin the tool reads
// its input on standard input: in the sandbox it then sees no job directory at all
// and works in the read-only root, and its command is warmable.
func sandboxed(opt Options, stdin bool, name string, args ...string) (toolCommand, func(), error) {
	lim := opt.Limits.withDefaults()
	j, cleanup := opt.job, func() {}
	if !stdin || !lim.Confinement.sandboxed() { // the job's directory is needed
		var err error
		if j == nil {
			if j, err = newJob(opt.TempDir, lim.Confinement); err != nil {
				return toolCommand{}, nil, err
			}
			cleanup = j.remove
		} else if err = j.made(); err != nil {
			return toolCommand{}, nil, err
		}
	}
	home := "/tmp" // the sandbox's own
	if !lim.Confinement.sandboxed() {
		home = j.dir
	}
	env := []string{"HOME=" + home, "TMPDIR=" + home}
	for _, k := range toolEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	limits := []string{
		"--as=" + strconv.FormatInt(lim.MaxMemory, 10),
		"--cpu=" + strconv.Itoa(max(int(opt.Timeout.Seconds()), 1)),
		"--fsize=" + strconv.FormatInt(lim.MaxFileSize, 10),
		"--nofile=256", "--core=0",
	}
	cmd := toolCommand{name: name, env: env, stdin: stdin}
	if lim.Confinement.sandboxed() {
		if stdin {
			j = nil // the input comes on standard input: no job directory is bound
		}
		var err error
		if cmd.argv, err = sandboxArgv(j, lim, env, limits, name, args); err != nil {
			cleanup()
			return toolCommand{}, nil, err
		}
		cmd.warmable = stdin
		return cmd, cleanup, nil
	}
	// RLIMIT_NPROC counts every process of the user, and root is exempt: outside a
	// sandbox it bounds nothing of one run.
	if _, err := exec.LookPath("prlimit"); err == nil {
		cmd.argv = append(append([]string{"prlimit"}, limits...), "--")
	}
	cmd.argv = append(append(cmd.argv, name), args...)
	return cmd, cleanup, nil
}
