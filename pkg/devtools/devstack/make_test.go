package devstack

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// make run installs only what runs the stack: the document tools and their sandbox,
// never the test tools (Chromium, qpdf, curl, gcc); make test installs those as well.
// make -n prints what each would install (the install step's own make runs, printing).
func TestMakeRunInstallsOnlyWhatRuns(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	// plan is the packages the target's install steps would look for (NEED="…").
	plan := func(target string) string {
		out, err := exec.Command("make", "-n", "-C", "../../..", target).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		var need []string
		for _, m := range regexp.MustCompile(`NEED="([^"]*)"`).FindAllStringSubmatch(string(out), -1) {
			need = append(need, m[1])
		}
		return strings.Join(need, " ")
	}
	run, test := plan("run"), plan("test")
	for _, pkg := range []string{"poppler-utils", "tesseract-ocr", "antiword", "bubblewrap"} {
		if !strings.Contains(run, pkg) || !strings.Contains(test, pkg) {
			t.Errorf("%s: not among what make run and make test install", pkg)
		}
	}
	for _, pkg := range []string{"chromium", "qpdf", "curl", "gcc"} {
		if strings.Contains(run, pkg) {
			t.Errorf("make run would install %s", pkg)
		}
		if !strings.Contains(test, pkg) {
			t.Errorf("make test would not install %s", pkg)
		}
	}
}
