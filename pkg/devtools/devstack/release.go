package devstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// ReleasedModules are the directories of the modules released together, from one commit,
// each tagged with the release version (the main module as vX.Y.Z, the others as
// DIR/vX.Y.Z): the server, the generated client, the SDK on it, and the partner CLI on
// the SDK. Each requires the others at the release version, with no replace directive.
var ReleasedModules = []string{".", "gen/client", "pkg/sdk", "services/doceval"}

// ReleaseWorkspaces map the release version of each released module to its directory
// (a workspace module still counts at the version required of it).
var ReleaseWorkspaces = []string{"go.work", "deploy/docker/images.work"}

// ReleaseChecks are the tests a release runs, in the released tree, with
// TEST_DATABASE_URL from the environment (make release runs under with-postgres): the
// partner modules' own tests, the CLI's tests against the real API, and the release's
// own: the modules agree on the version, the CLI module stays small, the SDK re-exports
// the client's types, and partners can go get the SDK and go install the CLI, with the
// CLI's Go, from a file:// module proxy of the released tree.
var ReleaseChecks = [][]string{
	{"vet", "github.com/doceval/doceval/gen/client/...", "github.com/doceval/doceval/pkg/sdk/...", "github.com/doceval/doceval/services/doceval/..."},
	{"test", "-count=1", "github.com/doceval/doceval/gen/client/...", "github.com/doceval/doceval/pkg/sdk/...", "github.com/doceval/doceval/services/doceval/...", "./pkg/clitest/"},
	{"test", "-count=1", "-run", "^(TestReleasedModules|TestCLIModule|TestSDKReexportsTheClientTypes|TestInstallOutsideWorkspace)$", "./pkg/devtools/devstack/"},
}

// ReleaseOptions configures Release.
type ReleaseOptions struct {
	Repo    string // the repository's root
	Version string // vX.Y.Z (a pre-release suffix is allowed)
	// DryRun releases a copy of the working tree in a temporary directory, tracked and
	// untracked files alike, and leaves the repository as it was; otherwise the
	// repository, which must have no uncommitted change, gets the release commit and
	// its tags.
	DryRun bool
	// SkipChecks leaves out ReleaseChecks (the tests of Release itself).
	SkipChecks bool
	Out        io.Writer
}

// Release cuts a release of ReleasedModules at one version: it sets the version in every
// released module's requirements of the others, in the replace lines of
// ReleaseWorkspaces and in sdk.Version, opens the version's section in CHANGELOG.md
// (Unreleased moves under it), tidies every module (make tidy), runs ReleaseChecks, and
// then, unless DryRun, commits and tags: the tags are printed either way.
func Release(ctx context.Context, o ReleaseOptions) error {
	if !semver.IsValid(o.Version) || semver.Canonical(o.Version) != o.Version || semver.Build(o.Version) != "" {
		return fmt.Errorf("release: %q is not a version such as v1.2.3 or v1.2.3-rc.1", o.Version)
	}
	dir := o.Repo
	if o.DryRun {
		tmp, err := os.MkdirTemp("", "doceval-release-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := CopyWorkingTree(ctx, o.Repo, tmp); err != nil {
			return fmt.Errorf("release: copy the working tree: %w", err)
		}
		dir = tmp
		fmt.Fprintf(o.Out, "release %s, dry run in a copy of the working tree: %s\n", o.Version, dir)
	} else {
		status, err := run(ctx, dir, nil, "git", "status", "--porcelain")
		if err != nil {
			return err
		}
		if status != "" {
			return fmt.Errorf("release: the working tree has uncommitted changes:\n%s", status)
		}
	}

	if err := setReleaseVersion(dir, o.Version); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	fmt.Fprintf(o.Out, "set %s in the go.mod files, %s, sdk.Version and CHANGELOG.md\n", o.Version, strings.Join(ReleaseWorkspaces, ", "))
	if _, err := run(ctx, dir, o.Out, "make", "--no-print-directory", "tidy"); err != nil {
		return fmt.Errorf("release: make tidy: %w", err)
	}
	if !o.SkipChecks {
		for _, args := range ReleaseChecks {
			fmt.Fprintf(o.Out, "go %s\n", strings.Join(args, " "))
			env := []string{"DOCEVAL_INSTALL_VERSION=" + o.Version}
			if _, err := runEnv(ctx, dir, o.Out, env, "go", args...); err != nil {
				return fmt.Errorf("release: go %s: %w", args[0], err)
			}
		}
	}

	tags := ReleaseTags(o.Version)
	if o.DryRun {
		fmt.Fprintf(o.Out, "dry run passed; the release would commit and create the tags:\n  %s\n", strings.Join(tags, "\n  "))
		return nil
	}
	if _, err := run(ctx, dir, o.Out, "git", "commit", "-q", "-a", "-m", "Release "+o.Version+": "+strings.Join(tags, ", ")); err != nil {
		return fmt.Errorf("release: commit: %w", err)
	}
	for _, tag := range tags {
		if _, err := run(ctx, dir, o.Out, "git", "tag", "-a", "-m", "doceval "+o.Version, tag); err != nil {
			return fmt.Errorf("release: tag %s: %w", tag, err)
		}
	}
	fmt.Fprintf(o.Out, "committed and tagged:\n  %s\npublish with: git push origin HEAD %s\n", strings.Join(tags, "\n  "), strings.Join(tags, " "))
	return nil
}

// ReleaseTags are the tags of a release: vX.Y.Z for the main module, DIR/vX.Y.Z for the
// others.
func ReleaseTags(version string) []string {
	var tags []string
	for _, dir := range ReleasedModules {
		tags = append(tags, path.Join(dir, version))
	}
	return tags
}

// sdkVersion is sdk.Version's declaration, which the User-Agent names.
var sdkVersion = regexp.MustCompile(`(?m)^const Version = "[^"]*"$`)

// setReleaseVersion writes version into the released modules' go.mod files (their
// requirements of each other), the workspaces' replace lines, sdk.Version and the
// changelog.
func setReleaseVersion(dir, version string) error {
	var paths []string
	gomods := map[string]*modfile.File{}
	for _, m := range ReleasedModules {
		name := filepath.Join(dir, m, "go.mod")
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(name, b, nil)
		if err != nil {
			return err
		}
		gomods[m] = f
		paths = append(paths, f.Module.Mod.Path)
	}
	for _, m := range ReleasedModules {
		f := gomods[m]
		for _, r := range f.Require {
			if slices.Contains(paths, r.Mod.Path) {
				if err := f.AddRequire(r.Mod.Path, version); err != nil {
					return err
				}
			}
		}
		if err := writeFormatted(filepath.Join(dir, m, "go.mod"), f.Format); err != nil {
			return err
		}
	}
	for _, w := range ReleaseWorkspaces {
		name := filepath.Join(dir, w)
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := modfile.ParseWork(name, b, nil)
		if err != nil {
			return err
		}
		// Each replace line's version is rewritten where it stands, so that the block and
		// its comments stay as they are.
		for _, r := range f.Replace {
			if !slices.Contains(paths, r.Old.Path) || r.Old.Version == "" {
				continue
			}
			tok := r.Syntax.Token
			for i := 0; i+1 < len(tok); i++ {
				if tok[i] == modfile.AutoQuote(r.Old.Path) && tok[i+1] == r.Old.Version {
					tok[i+1] = version
					break
				}
			}
			r.Old.Version = version
		}
		if err := writeFormatted(name, func() ([]byte, error) { return modfile.Format(f.Syntax), nil }); err != nil {
			return err
		}
	}
	if err := editFile(filepath.Join(dir, "pkg/sdk/client.go"), func(b []byte) ([]byte, error) {
		if !sdkVersion.Match(b) {
			return nil, errors.New("pkg/sdk/client.go has no const Version")
		}
		return sdkVersion.ReplaceAll(b, []byte(`const Version = "`+strings.TrimPrefix(version, "v")+`"`)), nil
	}); err != nil {
		return err
	}
	return editFile(filepath.Join(dir, "CHANGELOG.md"), func(b []byte) ([]byte, error) {
		if bytes.Contains(b, []byte("\n## "+version+"\n")) {
			return b, nil // already opened, by hand or by an earlier run
		}
		const unreleased = "\n## Unreleased\n"
		if !bytes.Contains(b, []byte(unreleased)) {
			return nil, errors.New(`CHANGELOG.md has no "## Unreleased" section`)
		}
		return bytes.Replace(b, []byte(unreleased), []byte(unreleased+"\n## "+version+"\n"), 1), nil
	})
}

func writeFormatted(name string, format func() ([]byte, error)) error {
	b, err := format()
	if err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o644)
}

func editFile(name string, edit func([]byte) ([]byte, error)) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if b, err = edit(b); err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o644)
}

// CopyWorkingTree copies what git tracks or would track (untracked but not ignored) in
// repo to dst, and makes dst a git repository holding the same files, so that what
// lists a module's files by git sees the same there.
func CopyWorkingTree(ctx context.Context, repo, dst string) error {
	out, err := run(ctx, repo, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	for _, name := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		src := filepath.Join(repo, filepath.FromSlash(name))
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet in git
		}
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		if _, err := run(ctx, dst, nil, "git", args...); err != nil {
			return err
		}
	}
	return nil
}

func run(ctx context.Context, dir string, log io.Writer, name string, args ...string) (string, error) {
	return runEnv(ctx, dir, log, nil, name, args...)
}

// runEnv runs name in dir with env added to the environment. Its standard output is
// returned, and copied to log when log is set; its standard error goes to log, or into
// the error.
func runEnv(ctx context.Context, dir string, log io.Writer, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if log != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&stdout, log), log
	}
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// NextMinorVersion is the release after the current one (the version the released
// modules require each other at) that adds: vX.(Y+1).0.
func NextMinorVersion(repo string) (string, error) {
	b, err := os.ReadFile(filepath.Join(repo, "pkg/sdk/go.mod"))
	if err != nil {
		return "", err
	}
	f, err := modfile.Parse("pkg/sdk/go.mod", b, nil)
	if err != nil {
		return "", err
	}
	for _, r := range f.Require {
		if r.Mod.Path == "github.com/doceval/doceval/gen/client" {
			var major, minor int
			if _, err := fmt.Sscanf(semver.MajorMinor(r.Mod.Version), "v%d.%d", &major, &minor); err != nil {
				return "", fmt.Errorf("the SDK requires the client at %s: %w", r.Mod.Version, err)
			}
			return fmt.Sprintf("v%d.%d.0", major, minor+1), nil
		}
	}
	return "", errors.New("pkg/sdk/go.mod does not require the client")
}
