package devstack_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/doceval/doceval/pkg/devtools/devstack"
)

// A dry run releases a copy of the working tree: every file of the repository, tracked
// or not, is as it was afterwards, and it names the four tags it would create. (Its
// checks are left out here: make release-check runs the whole dry run in CI.)
func TestReleaseDryRunLeavesTheTreeUnchanged(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("needs make")
	}
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	before := treeDigest(t, repo)
	var out bytes.Buffer
	err = devstack.Release(context.Background(), devstack.ReleaseOptions{Repo: repo, Version: "v0.99.0", DryRun: true, SkipChecks: true, Out: &out})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if after := treeDigest(t, repo); after != before {
		t.Errorf("the dry run changed the repository")
	}
	for _, tag := range []string{"v0.99.0", "gen/client/v0.99.0", "pkg/sdk/v0.99.0", "services/doceval/v0.99.0"} {
		if !strings.Contains(out.String(), "\n  "+tag+"\n") {
			t.Errorf("the dry run does not name the tag %s:\n%s", tag, out.String())
		}
	}
}

// A release sets its version everywhere the released modules meet (their requirements
// of each other, the workspaces' replace lines, sdk.Version), opens its CHANGELOG
// section, leaves the modules tidy, commits, and tags each module; here on a copy of the
// repository with the checks left out.
func TestReleaseVersionsCommitsAndTags(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("needs make")
	}
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The working tree as it is, committed in a repository of its own.
	if err := devstack.CopyWorkingTree(context.Background(), repo, dir); err != nil {
		t.Fatal(err)
	}
	git("config", "user.name", "release test")
	git("config", "user.email", "release@test.invalid")
	git("commit", "-q", "-m", "before the release")

	const version = "v0.98.0"
	var out bytes.Buffer
	if err := devstack.Release(context.Background(), devstack.ReleaseOptions{Repo: dir, Version: version, SkipChecks: true, Out: &out}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	mods := readReleasedModules(t, dir)
	if got := releaseVersion(t, mods); got != version {
		t.Errorf("the released modules require each other at %s, want %s", got, version)
	}
	for _, name := range []string{"go.work", "deploy/docker/images.work"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		work, err := modfile.ParseWork(name, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(work.Replace) != len(mods)-1 {
			t.Errorf("%s has %d replace lines, want one per released module but the main one", name, len(work.Replace))
		}
		for _, r := range work.Replace {
			if r.Old.Version != version {
				t.Errorf("%s replaces %s %s, want %s", name, r.Old.Path, r.Old.Version, version)
			}
		}
	}
	// The replace lines change where they stand, and nothing else in the workspaces.
	for _, name := range []string{"go.work", "deploy/docker/images.work"} {
		if got, want := git("diff", "--numstat", "HEAD~1", "--", name), fmt.Sprintf("%d\t%d\t%s\n", len(mods)-1, len(mods)-1, name); got != want {
			t.Errorf("the release changed %s by %q (added, removed), want %q", name, got, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pkg/sdk/client.go")); !bytes.Contains(b, []byte(`const Version = "0.98.0"`)) {
		t.Error("sdk.Version is not 0.98.0")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "CHANGELOG.md")); !bytes.Contains(b, []byte("\n## Unreleased\n\n## "+version+"\n")) {
		t.Errorf("CHANGELOG.md has no %s section under Unreleased", version)
	}
	if status := git("status", "--porcelain"); status != "" {
		t.Errorf("the release left changes uncommitted:\n%s", status)
	}
	if subject := git("log", "-1", "--format=%s"); !strings.HasPrefix(subject, "Release "+version) {
		t.Errorf("the release commit is %q", subject)
	}
	tags := strings.Fields(git("tag", "--points-at", "HEAD"))
	for _, want := range devstack.ReleaseTags(version) {
		if !strings.Contains(" "+strings.Join(tags, " ")+" ", " "+want+" ") {
			t.Errorf("HEAD lacks the tag %s; it has %v", want, tags)
		}
	}
}

func TestReleaseRefusesWhatIsNotAVersion(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "0.2.0", "v0.2", "v0.2.0+build.1", "latest"} {
		err := devstack.Release(context.Background(), devstack.ReleaseOptions{Repo: t.TempDir(), Version: v, DryRun: true, Out: &bytes.Buffer{}})
		if err == nil || !strings.Contains(err.Error(), "is not a version") {
			t.Errorf("Release(%q): %v, want it refused as not a version", v, err)
		}
	}
}

// treeDigest sums every file git tracks or would track in repo, with git's view of
// the tree's status.
func treeDigest(t *testing.T, repo string) [32]byte {
	t.Helper()
	h := sha256.New()
	h.Write([]byte(gitOutput(t, repo, "status", "--porcelain", "--untracked-files=all")))
	for _, name := range strings.Split(strings.TrimSuffix(gitOutput(t, repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		h.Write([]byte(name))
		h.Write(b)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return string(out)
}
