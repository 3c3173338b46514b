package extract

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// bwrap is bubblewrap's program (Debian's bubblewrap package).
const bwrap = "bwrap"

// sandboxUID is the user a sandboxed tool runs as, inside and, when this process is
// root, outside its user namespace too: RLIMIT_NPROC counts processes per real user
// and exempts root, so only a user other than root makes the process limit hold.
const sandboxUID = 65534

// sandboxCredential is who starts bwrap: the sandbox's user when this process is root
// (bwrap then makes its namespaces unprivileged, as it is meant to be run), else this
// process's user, which the sandbox maps to sandboxUID.
func sandboxCredential() *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	return &syscall.Credential{Uid: sandboxUID, Gid: sandboxUID, Groups: []uint32{}}
}

// maxSandboxTmp bounds a sandbox's /tmp, which is memory outside its address-space
// limit: the tools write their results to standard output, and nothing large to /tmp
// (fontconfig's cache at most).
const maxSandboxTmp = 64 << 20

// systemFiles are what the tools read besides /usr: the dynamic linker's cache,
// fontconfig's settings and cache (without the cache every run would scan the fonts),
// the time zone (pdfinfo's dates) and Debian's alternatives links. Missing ones are
// skipped.
var systemFiles = []string{"/etc/ld.so.cache", "/etc/fonts", "/etc/localtime", "/etc/alternatives", "/var/cache/fontconfig"}

// rootDirs are the top-level directories of programs and libraries: symbolic links
// into /usr on a merged-/usr system, bound read-only where they are directories.
var rootDirs = []string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"}

// sandboxArgv is the command line that runs name with args in a sandbox in job j, with
// the environment env: bwrap, then prlimit with limits and the process limit, then the
// tool.
func sandboxArgv(j *job, lim Limits, env, limits []string, name string, args []string) ([]string, error) {
	if j != nil {
		return makeSandboxArgv(j, lim, env, limits, name, args)
	}
	// Without a job the command line is the same for every file: it is made once a
	// minute, not per run (finding the tools' paths costs a dozen file-system calls, a
	// fortieth of a text PDF's extraction).
	key := strings.Join(slices.Concat(env, limits, []string{name, strconv.FormatInt(lim.MaxMemory, 10),
		strconv.FormatInt(lim.MaxFileSize, 10), strconv.Itoa(lim.MaxProcesses)}, args), "\x00")
	if e, ok := argvCache.Load(key); ok && time.Since(e.(argvEntry).made) < time.Minute {
		return slices.Clone(e.(argvEntry).argv), nil
	}
	argv, err := makeSandboxArgv(nil, lim, env, limits, name, args)
	if err == nil {
		argvCache.Store(key, argvEntry{argv: slices.Clone(argv), made: time.Now()})
	}
	return argv, err
}

// argvCache holds the command lines of runs without a job, by what they are made of.
var argvCache sync.Map

type argvEntry struct {
	argv []string
	made time.Time
}

func makeSandboxArgv(j *job, lim Limits, env, limits []string, name string, args []string) ([]string, error) {
	if _, err := exec.LookPath(bwrap); err != nil {
		return nil, fmt.Errorf("%s: no sandbox: %w", name, err)
	}
	tool, err := toolPath(name)
	if err != nil {
		return nil, err
	}
	prlimit, err := toolPath("prlimit")
	if err != nil {
		return nil, err
	}
	inner := append([]string{prlimit}, limits...)
	inner = append(inner, "--nproc="+strconv.Itoa(lim.MaxProcesses), "--", tool)
	return append([]string{bwrap}, bwrapArgs(j, lim, tool, env, append(inner, args...))...), nil
}

// bwrapArgs is bubblewrap's command line for running inner (prlimit and the tool at
// path tool) in job j with the environment env and nothing else. The job's directory
// appears read-only at its own path, so the paths of its files need no translation;
// /tmp, in memory and at most maxSandboxTmp, is the only writable place. Without a job
// (j nil: a tool that reads its input on standard input) no host directory but the
// system's is seen, and the tool works in the read-only root.
func bwrapArgs(j *job, lim Limits, tool string, env, inner []string) []string {
	a := []string{
		"--unshare-all", "--unshare-user", "--disable-userns",
		"--uid", strconv.Itoa(sandboxUID), "--gid", strconv.Itoa(sandboxUID), "--cap-drop", "ALL",
		"--die-with-parent", "--new-session", "--clearenv",
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	a = append(a, "--ro-bind", "/usr", "/usr")
	for _, d := range rootDirs {
		p := "/" + d
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(p); err == nil {
				a = append(a, "--symlink", target, p)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", p, p)
		}
	}
	for _, p := range systemFiles {
		a = append(a, "--ro-bind-try", p, p)
	}
	if td := os.Getenv("TESSDATA_PREFIX"); td != "" && !inSystem(td) {
		a = append(a, "--ro-bind-try", td, td)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev",
		"--size", strconv.FormatInt(min(lim.MaxFileSize, maxSandboxTmp), 10), "--tmpfs", "/tmp")
	if j != nil {
		a = append(a, "--ro-bind", j.dir, j.dir, "--chdir", j.dir)
	} else {
		a = append(a, "--chdir", "/")
	}
	if !inSystem(tool) {
		// A program outside the system's directories (a static build, a test's
		// stand-in) is bound alone.
		a = append(a, "--ro-bind", tool, tool)
	}
	// The root, made in memory for the sandbox, is read-only too: /tmp is a mount of its own.
	a = append(a, "--remount-ro", "/")
	return append(append(a, "--"), inner...)
}

// inSystem reports whether path lies in what every sandbox binds (/usr and the
// top-level directories of programs and libraries).
func inSystem(path string) bool {
	if strings.HasPrefix(path, "/usr/") {
		return true
	}
	for _, d := range rootDirs {
		if strings.HasPrefix(path, "/"+d+"/") {
			return true
		}
	}
	return false
}

// toolPath is the program name runs, found on PATH, with symbolic links resolved (a
// link may point through /etc/alternatives or elsewhere the sandbox does not show).
func toolPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err) // a missing tool: not the file's fault
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}
