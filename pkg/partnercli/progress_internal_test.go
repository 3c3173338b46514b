package partnercli

import (
	"bytes"
	"strings"
	"testing"
)

// Piped or captured stderr gets no progress bar; a terminal gets one redrawn line.
func TestProgressBarOnlyOnTerminals(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if bar := newProgressBar(&buf, "a.pdf"); bar != nil {
		t.Fatal("progress bar on a buffer")
	}
	var nilBar *progressBar
	nilBar.finish() // must not panic

	bar := &progressBar{w: &buf, label: "a.pdf"}
	bar.update(512, 1024)
	bar.update(1024, 1024)
	bar.finish()
	out := buf.String()
	if !strings.Contains(out, "\ra.pdf [===============               ]  50% 1.0 KiB") || !strings.Contains(out, "100%") || !strings.HasSuffix(out, "\n") {
		t.Errorf("bar output %q", out)
	}
}

func TestContentTypesByExtension(t *testing.T) {
	t.Parallel()
	for ext, want := range map[string]string{".pdf": "application/pdf", ".jpeg": "image/jpeg", ".jpg": "image/jpeg", ".png": "image/png", ".doc": "application/msword"} {
		if contentTypes[ext] != want {
			t.Errorf("%s: %q, want %q", ext, contentTypes[ext], want)
		}
	}
}
