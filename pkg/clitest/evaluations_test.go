package partnercli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/testkit/samplepdf"
	"github.com/doceval/doceval/services/doceval/partnercli"
)

// A failed evaluation under --wait prints the failure and exits 1, so a script does
// not mistake it for a result.
func TestEvaluationWaitFailedExits1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	api := newRealAPI(t)
	var sub client.Submission
	decode(t, api.mustRun(t, "submissions", "create", "--external-id", "fails", "--json"), &sub)
	pdf := filepath.Join(t.TempDir(), "id.pdf")
	if err := os.WriteFile(pdf, samplepdf.Text([][]string{{"Personalausweis"}}), 0o600); err != nil {
		t.Fatal(err)
	}
	var up client.Upload
	decode(t, api.mustRun(t, "files", "upload", sub.Id.String(), pdf, "--external-id", "passport-front", "--json"), &up)
	if up.ExternalFileId != "passport-front" {
		t.Errorf("external file id %q", up.ExternalFileId)
	}
	if err := api.store.FinishIngest(ctx, up.Id, []document.Page{{Number: 1, Text: "Personalausweis", Chars: 15}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if out := api.mustRun(t, "submissions", "get", sub.Id.String()); !strings.Contains(out, "document slots:") {
		t.Errorf("submissions get shows no slots:\n%s", out)
	}

	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- partnercli.Run(ctx, []string{"evaluations", "start", sub.Id.String(), "--wait", "--interval=20ms"}, partnercli.Streams{Stdout: stdout, Stderr: stderr}, api.env())
	}()
	id := waitForEvaluation(t, api, sub.Id)
	if err := api.store.FailEvaluation(ctx, id, "processing_error", "the model timed out"); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != partnercli.ExitError {
			t.Errorf("exit %d, want 1", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("--wait did not return")
	}
	if !strings.Contains(stdout.String(), "failed") || !strings.Contains(stdout.String(), "the model timed out") {
		t.Errorf("stdout lacks the failure:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "ended failed") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
