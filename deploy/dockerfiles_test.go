package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// services are the binaries that ship as images, one Dockerfile each.
var services = []string{"api", "ingest", "evaluator", "dispatcher", "admin", "console", "extractor"}

// runtimeBases are the final-stage images we accept: distroless for static binaries,
// Debian slim where document tools must be installed.
var runtimeBases = map[string][]string{
	"ingest":    {"debian:bookworm-slim"},
	"console":   {"debian:bookworm-slim"},
	"extractor": {"debian:bookworm-slim"},
}

// imagePackages are the Debian packages an image must install: ingest's extraction
// tools, the console's page renderer, and both for the extractor service that runs
// them for ingest and the console where DOCEVAL_EXTRACTOR_URL is set; all limit their
// tools' resources with util-linux's prlimit (pkg/extract/sandbox.go).
var imagePackages = map[string][]string{
	"ingest":    {"poppler-utils", "tesseract-ocr-deu", "tesseract-ocr-eng", "tesseract-ocr-fra", "tesseract-ocr-spa", "tesseract-ocr-ita", "tesseract-ocr-nld", "tesseract-ocr-por", "tesseract-ocr-pol", "antiword"},
	"console":   {"poppler-utils", "util-linux"},
	"extractor": {"poppler-utils", "tesseract-ocr-deu", "tesseract-ocr-eng", "tesseract-ocr-fra", "tesseract-ocr-spa", "tesseract-ocr-ita", "tesseract-ocr-nld", "tesseract-ocr-por", "tesseract-ocr-pol", "antiword", "util-linux"},
}

const distroless = "gcr.io/distroless/static-debian12:nonroot"

// Every image is multi-stage, from pinned bases, builds a static binary with its
// version, and runs as a non-root user from an exec-form entrypoint; the ingest and
// console images carry their tools.
func TestDockerfiles(t *testing.T) {
	from := regexp.MustCompile(`(?m)^FROM\s+(\S+)`)
	for _, s := range services {
		b, err := os.ReadFile(filepath.Join("docker", s+".Dockerfile"))
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		df := string(b)
		bases := from.FindAllStringSubmatch(df, -1)
		if len(bases) < 2 {
			t.Errorf("%s: %d stages, want a build stage and a runtime stage", s, len(bases))
			continue
		}
		for _, m := range bases {
			if !strings.Contains(m[1], ":") || strings.HasSuffix(m[1], ":latest") {
				t.Errorf("%s: base %s is not pinned to a tag", s, m[1])
			}
		}
		final := bases[len(bases)-1][1]
		allowed := runtimeBases[s]
		if allowed == nil {
			allowed = []string{distroless}
		}
		if !slices.Contains(allowed, final) {
			t.Errorf("%s: runtime base %s, want one of %v", s, final, allowed)
		}
		runtime := df[strings.LastIndex(df, "\nFROM "):]
		user := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindStringSubmatch(runtime)
		if user == nil || strings.HasPrefix(user[1], "0") || strings.HasPrefix(user[1], "root") {
			t.Errorf("%s: the runtime stage does not switch to a non-root user (%v)", s, user)
		}
		for _, want := range []string{"ARG VERSION", "ENV GOWORK=/src/deploy/docker/images.work", "COPY deploy/docker/images.work", "CGO_ENABLED=0", "-trimpath", "pkg/service.Version=${VERSION}", "./services/" + s,
			`ENTRYPOINT ["/usr/local/bin/doceval-` + s + `"]`} {
			if !strings.Contains(df, want) {
				t.Errorf("%s: lacks %s", s, want)
			}
		}
	}
	for s, pkgs := range imagePackages {
		df, _ := os.ReadFile(filepath.Join("docker", s+".Dockerfile"))
		for _, pkg := range pkgs {
			if !strings.Contains(string(df), pkg) {
				t.Errorf("the %s image lacks %s", s, pkg)
			}
		}
	}
	ignore, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".git", ".data", "bin"} {
		if !slices.Contains(strings.Fields(string(ignore)), want) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

// The images build in the workspace images.work (ENV GOWORK): the main module with the
// client and SDK modules from this tree, without the chart-verification module and its
// Kubernetes dependencies. That only works while that workspace and the go.sum files of
// its modules resolve every service on their own.
func TestServicesBuildInImageWorkspace(t *testing.T) {
	t.Parallel()
	work, err := filepath.Abs(filepath.Join("docker", "images.work"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-test=false", "../services/...")
	cmd.Env = append(os.Environ(), "GOWORK="+work, "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the services do not resolve in images.work: %v\n%s", err, out)
	}
}
