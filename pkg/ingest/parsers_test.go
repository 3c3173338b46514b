package ingest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/extract"
	"github.com/doceval/doceval/pkg/ingest"
)

// Ingest does not start where its document tools cannot be sandboxed (no bwrap here),
// unless DOCEVAL_PARSER_ISOLATION=unconfined asks for it; on this machine the sandbox
// is made.
func TestIngestChecksItsParsersAreConfined(t *testing.T) {
	ctx := context.Background()
	how, err := ingest.Config{}.CheckParsers(ctx)
	if err != nil || !strings.HasPrefix(how, "bubblewrap sandbox") {
		t.Errorf("with bwrap: %q, %v", how, err)
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatal(err)
	}
	noBwrap := t.TempDir() // prlimit alone, which unconfined tools still run under
	if err := os.Symlink(prlimit, filepath.Join(noBwrap, "prlimit")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", noBwrap)
	_, err = ingest.Config{ParserIsolation: extract.Sandbox}.CheckParsers(ctx)
	if err == nil || !strings.Contains(err.Error(), "DOCEVAL_PARSER_ISOLATION=unconfined") {
		t.Errorf("without bwrap: %v", err)
	}
	if how, err := (ingest.Config{ParserIsolation: extract.Unconfined}).CheckParsers(ctx); err != nil || !strings.HasPrefix(how, "unconfined") {
		t.Errorf("unconfined: %q, %v", how, err)
	}
}
