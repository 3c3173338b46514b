package devstack_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"go/version"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/doceval/doceval/pkg/devtools/devstack"
	"github.com/doceval/doceval/pkg/sdk"
)

// releasedModules are the modules released together (devstack.ReleasedModules, which
// make release versions and tags).
var releasedModules = devstack.ReleasedModules

// cliModule is the CLI's module directory: partners `go install` it with the Go its
// go.mod names, which may be older than the server's.
const cliModule = "services/doceval"

// Partners install the SDK with `go get` and the CLI with `go install`, with no
// workspace and no replace directive, on the oldest Go the CLI's go.mod accepts. This
// publishes the released modules of this working tree to a file:// module proxy, then,
// outside the repository, with GOWORK=off and GOTOOLCHAIN set to that Go, builds a
// program that imports only the SDK and creates a submission on the dev stack, and
// installs the CLI and runs it. DOCEVAL_INSTALL_VERSION, set by make release, publishes
// at that version (with a suffix, see below) instead of the one the go.mod files name.
func TestInstallOutsideWorkspace(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	mods := readReleasedModules(t, repo)
	release := releaseVersion(t, mods)
	if v := os.Getenv("DOCEVAL_INSTALL_VERSION"); v != "" {
		if v != release {
			t.Fatalf("DOCEVAL_INSTALL_VERSION is %s, but the go.mod files require each other at %s", v, release)
		}
	}
	// The shared module cache may hold an older build of the release version, and the go
	// command prefers its cache to any proxy: the modules are published at a version of
	// their own, with each go.mod requiring the others at it.
	version := fmt.Sprintf("%s-install.%d", release, time.Now().UnixNano())
	proxy := t.TempDir()
	for _, m := range mods {
		publishModule(t, proxy, repo, m, mods, version)
	}
	modCache := goEnv(t, "GOMODCACHE")
	t.Cleanup(func() {
		for _, m := range mods {
			removeFromModCache(t, modCache, m.path(), version)
		}
	})

	gobin := t.TempDir()
	environ := installEnviron(t, proxy, gobin, cliToolchain(t, mods))
	goCmd := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, environ
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	}

	// (a) A program of the partner's own that imports only the SDK.
	checkPartnerImports(t, partnerProgram)
	program := t.TempDir()
	goCmd(program, "mod", "init", "example.com/partner")
	goCmd(program, "get", "github.com/doceval/doceval/pkg/sdk@"+version)
	if err := os.WriteFile(filepath.Join(program, "main.go"), []byte(partnerProgram), 0o600); err != nil {
		t.Fatal(err)
	}
	goCmd(program, "build", "-o", filepath.Join(gobin, "partner"), ".")
	gomod, err := os.ReadFile(filepath.Join(program, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "github.com/doceval/doceval/pkg/sdk " + version; !strings.Contains(string(gomod), want) {
		t.Errorf("the program's go.mod lacks %s:\n%s", want, gomod)
	}

	// (b) The CLI, as `go install` builds it.
	goCmd(t.TempDir(), "install", "github.com/doceval/doceval/services/doceval@"+version)

	_, env := startDevStack(t)
	// A fresh home: no CLI profile of the machine's user gets in the way.
	home := t.TempDir()
	stackEnv := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"DOCEVAL_BASE_URL="+env["DOCEVAL_BASE_URL"], "DOCEVAL_API_KEY="+env["DOCEVAL_API_KEY"])
	// run returns the command's standard output, and its error with both outputs.
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(gobin, name), args...)
		cmd.Dir, cmd.Env = t.TempDir(), stackEnv
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), nil
	}

	out, err := run("partner", "install-test")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(id) {
		t.Fatalf("the program printed %q, want a submission id", out)
	}
	var sub struct {
		ExternalSubmissionID string `json:"external_submission_id"`
	}
	getJSON(t, env, "/v1/submissions/"+id, &sub)
	if sub.ExternalSubmissionID != "install-test" {
		t.Errorf("submission %s has external id %q, want install-test", id, sub.ExternalSubmissionID)
	}

	// The CLI is being rebuilt: `version` where it has one, its help otherwise; and one
	// read command against the stack.
	if out, err := run("doceval", "version"); err == nil {
		t.Logf("doceval version: %s (names the module version: %t)", strings.TrimSpace(out), strings.Contains(out, version))
		if toolchain := cliToolchain(t, mods); !strings.Contains(out, toolchain) {
			t.Errorf("doceval version does not name %s, the Go it was to be installed with:\n%s", toolchain, out)
		}
	} else if _, err := run("doceval", "--help"); err != nil {
		t.Error(err)
	}
	if out, err := run("doceval", "templates", "list"); err != nil {
		t.Error(err)
	} else if !strings.Contains(out, "personal_real_estate_financing") {
		t.Errorf("doceval templates list lacks the builtin template:\n%s", out)
	}
}

// The released modules require each other at one release version and replace none;
// the workspaces (go.work, and images.work that the images build in) map exactly that
// version of each to its directory; sdk.Version is that version; and each module
// carries the LICENSE that pkg.go.dev needs to show its documentation.
func TestReleasedModules(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	mods := readReleasedModules(t, repo)
	release := releaseVersion(t, mods)
	for _, name := range []string{"go.work", "deploy/docker/images.work"} {
		b, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil {
			t.Fatal(err)
		}
		work, err := modfile.ParseWork(name, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		rel := func(p string) string { return filepath.Join(filepath.Dir(name), filepath.FromSlash(p)) }
		for _, m := range mods {
			if !slices.ContainsFunc(work.Use, func(u *modfile.Use) bool { return rel(u.Path) == filepath.Clean(m.dir) }) {
				t.Errorf("%s does not use %s", name, m.dir)
			}
		}
		replaced := map[string]bool{}
		for _, r := range work.Replace {
			i := slices.IndexFunc(mods, func(m releasedModule) bool { return m.path() == r.Old.Path })
			switch {
			case i < 0:
				t.Errorf("%s replaces %s, not a released module", name, r.Old.Path)
			case r.Old.Version != release || rel(r.New.Path) != filepath.Clean(mods[i].dir):
				t.Errorf("%s replaces %s %s => %s, want %s %s => the directory %s", name, r.Old.Path, r.Old.Version, r.New.Path, r.Old.Path, release, mods[i].dir)
			default:
				replaced[r.Old.Path] = true
			}
		}
		for _, m := range mods {
			for _, r := range m.gomod.Require {
				if slices.ContainsFunc(mods, func(o releasedModule) bool { return o.path() == r.Mod.Path }) && !replaced[r.Mod.Path] {
					t.Errorf("%s does not replace %s %s (required by %s) with its directory", name, r.Mod.Path, release, m.dir)
				}
			}
		}
	}
	if want := strings.TrimPrefix(release, "v"); sdk.Version != want {
		t.Errorf("sdk.Version, which the User-Agent names, is %q; want the release version %q", sdk.Version, want)
	}
	license, err := os.ReadFile(filepath.Join(repo, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		if b, err := os.ReadFile(filepath.Join(repo, m.dir, "LICENSE")); err != nil || !bytes.Equal(b, license) {
			t.Errorf("%s/LICENSE is not a copy of the repository's LICENSE (%v)", m.dir, err)
		}
	}
}

// The CLI's module is small and old-Go friendly: its go.mod names Go 1.24 at most and
// requires no server module and no library beyond the SDK's and cliLibraries, and the
// CLI's packages, tests included, are built from no package of this repository but the
// client, the SDK and its own.
func TestCLIModule(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	mods := readReleasedModules(t, repo)
	toolchain := cliToolchain(t, mods)
	if version.Compare(toolchain, "go1.25") >= 0 {
		t.Errorf("%s/go.mod needs %s; partners install the CLI with Go 1.24", cliModule, toolchain)
	}
	allowed := map[string]bool{}
	for _, l := range cliLibraries {
		allowed[l] = true
	}
	for _, m := range mods {
		switch m.dir {
		case "gen/client", "pkg/sdk":
			allowed[m.path()] = true
			for _, r := range m.gomod.Require {
				allowed[r.Mod.Path] = true
			}
			if version.Compare("go"+m.gomod.Go.Version, toolchain) > 0 {
				t.Errorf("%s/go.mod needs go %s, newer than the CLI's %s", m.dir, m.gomod.Go.Version, toolchain)
			}
		}
	}
	for _, m := range mods {
		if m.dir != cliModule {
			continue
		}
		for _, r := range m.gomod.Require {
			if !allowed[r.Mod.Path] {
				t.Errorf("%s/go.mod requires %s: not the client's, the SDK's or one of cliLibraries", cliModule, r.Mod.Path)
			}
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-test", "./...")
	cmd.Dir = filepath.Join(repo, cliModule)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -test in %s: %v", cliModule, err)
	}
	for _, p := range strings.Fields(string(out)) {
		own, ok := strings.CutPrefix(p, "github.com/doceval/doceval/")
		if ok && !slices.ContainsFunc([]string{"gen/client", "pkg/sdk", cliModule}, func(dir string) bool {
			return own == dir || strings.HasPrefix(own, dir+"/") || strings.HasPrefix(own, dir+".")
		}) {
			t.Errorf("the CLI is built from %s", p)
		}
	}
}

// cliLibraries are the modules the CLI may require besides the client's and the SDK's:
// cobra (with pflag and, on Windows, mousetrap) for commands, x/term (with x/sys) for
// prompts, uuid for ids, and, in its tests only, creack/pty and YAML to read the spec.
var cliLibraries = []string{
	"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/inconshreveable/mousetrap",
	"golang.org/x/term", "golang.org/x/sys", "github.com/google/uuid",
	"github.com/creack/pty", "go.yaml.in/yaml/v3",
}

// cliToolchain is the oldest Go the CLI's go.mod accepts, as GOTOOLCHAIN names it.
func cliToolchain(t *testing.T, mods []releasedModule) string {
	t.Helper()
	for _, m := range mods {
		if m.dir == cliModule && m.gomod.Go != nil {
			return "go" + m.gomod.Go.Version
		}
	}
	t.Fatalf("%s/go.mod has no go line", cliModule)
	return ""
}

// partnerProgram is what a partner writes after `go get`, importing only the SDK and
// sdk/webhook (checkPartnerImports): it creates a submission with the external id in its
// argument, finds a builtin template, and prints the submission's id. flow, not run, names
// the types of the rest of a partner's flow: it builds only while the SDK re-exports them.
const partnerProgram = `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

func main() {
	ctx := context.Background()
	c, err := sdk.New(os.Getenv("DOCEVAL_BASE_URL"), os.Getenv("DOCEVAL_API_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	var sub *sdk.Submission
	sub, err = c.CreateSubmission(ctx, sdk.CreateSubmissionRequest{ExternalSubmissionId: os.Args[1]})
	if err != nil {
		log.Fatal(err)
	}
	var builtin *sdk.Template
	for tpl, err := range c.ListTemplates(ctx, &sdk.ListTemplatesParams{}) {
		if err != nil {
			log.Fatal(err)
		}
		if tpl.Builtin {
			builtin = tpl
			break
		}
	}
	if builtin == nil {
		log.Fatal("no builtin template")
	}
	fmt.Println(sub.Id)
}

func flow(ctx context.Context, c *sdk.Client, sub *sdk.Submission, f *os.File) error {
	var up *sdk.Upload
	up, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{ExternalFileID: "f1", Filename: "a.pdf", ContentType: "application/pdf", Body: f})
	if err != nil {
		return err
	}
	if up.UploadStatus == sdk.UploadStatusFailed {
		return errors.New("failed")
	}
	var ev *sdk.Evaluation
	if ev, err = c.StartEvaluation(ctx, sub.Id); err != nil {
		return err
	}
	if ev, err = c.WaitForEvaluation(ctx, sub.Id, ev.Id, sdk.WaitOptions{}); err != nil || ev.Status != sdk.EvaluationStatusCompleted {
		return err
	}
	status := sdk.SubmissionStatus("completed")
	for s, err := range c.ListSubmissions(ctx, &sdk.ListSubmissionsParams{Status: &status}) {
		var _ *sdk.SubmissionSummary = s
		if err != nil {
			return err
		}
	}
	for e, err := range c.ListEvents(ctx, &sdk.ListEventsParams{SubmissionId: &sub.Id}) {
		var _ *sdk.Event = e
		if err != nil || e.Type == sdk.EventTypeEvaluationCompleted {
			return err
		}
	}
	var endpoint *sdk.WebhookEndpointWithSecret
	if endpoint, err = c.CreateWebhookEndpoint(ctx, sdk.CreateWebhookEndpointRequest{Url: "https://crm.example/hook"}); err != nil {
		return err
	}
	var _ *sdk.WebhookEndpoint
	http.Handle("/hook", webhook.Handler([]string{endpoint.SigningSecret}, webhook.NewMemoryDedupStore(time.Hour),
		func(ctx context.Context, e webhook.Event) error {
			var done *sdk.Evaluation
			done, err := e.Evaluation()
			if err == nil && done.Status == sdk.EvaluationStatusCompleted {
				fmt.Println("done")
			}
			return err
		}))
	return nil
}

var _ = flow
`

// checkPartnerImports fails the test if program imports any package but the standard
// library's, pkg/sdk and pkg/sdk/webhook: a partner needs no other package of ours.
func checkPartnerImports(t *testing.T, program string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", program, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		std := !strings.Contains(strings.Split(p, "/")[0], ".")
		if !std && p != "github.com/doceval/doceval/pkg/sdk" && p != "github.com/doceval/doceval/pkg/sdk/webhook" {
			t.Errorf("the partner program imports %s; it must need only pkg/sdk and pkg/sdk/webhook", p)
		}
	}
}

// installEnviron is a partner's environment: no workspace, go.mod updated as needed,
// this repository's modules from the file:// proxy (GOPRIVATE or GONOPROXY would fetch
// them from git instead) and every other module, and the Go toolchain, from the module
// cache or the machine's own proxy. Our modules skip the checksum database, which never
// saw these versions.
func installEnviron(t *testing.T, proxy, gobin, toolchain string) []string {
	t.Helper()
	var environ []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GOWORK", "GOFLAGS", "GOPROXY", "GONOPROXY", "GOPRIVATE", "GONOSUMDB", "GOBIN", "GOTOOLCHAIN":
		default:
			environ = append(environ, kv)
		}
	}
	return append(environ,
		"GOWORK=off", "GOFLAGS=-mod=mod", "GOBIN="+gobin, "GOTOOLCHAIN="+toolchain,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+","+goEnv(t, "GOPROXY"),
		"GONOSUMDB="+strings.Trim(goEnv(t, "GONOSUMDB")+",github.com/doceval/doceval", ","),
	)
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// releasedModule is one of releasedModules: its directory and go.mod.
type releasedModule struct {
	dir   string
	gomod *modfile.File
}

func (m releasedModule) path() string { return m.gomod.Module.Mod.Path }

func readReleasedModules(t *testing.T, repo string) []releasedModule {
	t.Helper()
	var mods []releasedModule
	for _, dir := range releasedModules {
		name := filepath.Join(repo, dir, "go.mod")
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(name, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, releasedModule{dir: dir, gomod: f})
	}
	return mods
}

// releaseVersion is the version at which the released modules require each other; they
// must agree on one, and none may replace another (go install refuses a module whose
// go.mod has replace directives).
func releaseVersion(t *testing.T, mods []releasedModule) string {
	t.Helper()
	versions := map[string][]string{}
	for _, m := range mods {
		if len(m.gomod.Replace) > 0 {
			t.Errorf("%s/go.mod has replace directives", m.dir)
		}
		for _, r := range m.gomod.Require {
			if slices.ContainsFunc(mods, func(o releasedModule) bool { return o.path() == r.Mod.Path }) {
				versions[r.Mod.Version] = append(versions[r.Mod.Version], m.dir+" → "+r.Mod.Path)
			}
		}
	}
	if len(versions) != 1 {
		t.Fatalf("the released modules must require each other at one release version: %v", versions)
	}
	for v := range versions {
		if module.IsPseudoVersion(v) || module.CanonicalVersion(v) != v {
			t.Fatalf("the released modules require each other at %s, want a release version such as v1.2.3", v)
		}
		return v
	}
	return ""
}

// publishModule writes m at version to the file:// proxy dir, as `go mod download` would
// find it on a module proxy: .info, .mod and .zip, and the version list. The zip holds
// the module's files as a tag would, from this working tree: what git tracks or would
// track, less nested modules (x/mod/zip drops those). Its go.mod requires the other
// released modules at version.
func publishModule(t *testing.T, proxy, repo string, m releasedModule, mods []releasedModule, version string) {
	t.Helper()
	gomod, err := modfile.Parse("go.mod", modfile.Format(m.gomod.Syntax), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range gomod.Require {
		if slices.ContainsFunc(mods, func(o releasedModule) bool { return o.path() == r.Mod.Path }) {
			if err := gomod.AddRequire(r.Mod.Path, version); err != nil {
				t.Fatal(err)
			}
		}
	}
	modBytes, err := gomod.Format()
	if err != nil {
		t.Fatal(err)
	}
	files := []modzip.File{memFile{name: "go.mod", data: modBytes}}
	for _, name := range gitFiles(t, filepath.Join(repo, m.dir)) {
		if name == "go.mod" {
			continue
		}
		info, err := os.Lstat(filepath.Join(repo, m.dir, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet in git
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, diskFile{name: name, file: filepath.Join(repo, m.dir, filepath.FromSlash(name)), info: info})
	}
	if !slices.ContainsFunc(files, func(f modzip.File) bool { return f.Path() == "LICENSE" }) {
		t.Errorf("%s has no LICENSE: pkg.go.dev would not show its documentation", m.dir)
	}

	escaped, err := module.EscapePath(m.path())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, module.Version{Path: m.path(), Version: version}, files); err != nil {
		t.Fatalf("%s: %v", m.dir, err)
	}
	info, err := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		version + ".zip":  zip.Bytes(),
		version + ".mod":  modBytes,
		version + ".info": info,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitFiles lists the files under dir that git tracks or would track (untracked but not
// ignored), relative to dir.
func gitFiles(t *testing.T, dir string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", dir, err)
	}
	names := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	slices.Sort(names)
	return slices.Compact(names)
}

// removeFromModCache deletes one version of a module from the shared module cache: the
// extracted tree (read-only, as the go command leaves it) and the downloaded files.
func removeFromModCache(t *testing.T, modCache, modPath, version string) {
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		t.Error(err)
		return
	}
	escapedVersion, err := module.EscapeVersion(version)
	if err != nil {
		t.Error(err)
		return
	}
	tree := filepath.Join(modCache, filepath.FromSlash(escaped)+"@"+escapedVersion)
	_ = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(tree); err != nil {
		t.Error(err)
	}
	download := filepath.Join(modCache, "cache", "download", filepath.FromSlash(escaped), "@v")
	matches, _ := filepath.Glob(filepath.Join(download, escapedVersion+".*"))
	for _, f := range matches {
		if err := os.Remove(f); err != nil {
			t.Error(err)
		}
	}
	// The cached version list is rebuilt the next time the go command downloads one.
	_ = os.Remove(filepath.Join(download, "list"))
}

func getJSON(t *testing.T, env map[string]string, path string, v any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env["DOCEVAL_BASE_URL"]+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+env["DOCEVAL_API_KEY"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// diskFile is a file of the working tree in a module zip.
type diskFile struct {
	name, file string
	info       fs.FileInfo
}

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.file) }

// memFile is a file made by the test, the rewritten go.mod.
type memFile struct {
	name string
	data []byte
}

func (f memFile) Path() string                 { return f.name }
func (f memFile) Lstat() (fs.FileInfo, error)  { return memFileInfo(f), nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type memFileInfo memFile

func (i memFileInfo) Name() string       { return path.Base(i.name) }
func (i memFileInfo) Size() int64        { return int64(len(i.data)) }
func (i memFileInfo) Mode() fs.FileMode  { return 0o644 }
func (i memFileInfo) ModTime() time.Time { return time.Time{} }
func (i memFileInfo) IsDir() bool        { return false }
func (i memFileInfo) Sys() any           { return nil }
