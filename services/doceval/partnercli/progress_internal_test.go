package partnercli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
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

// Table cells: nil pointers of any type are a dash, pointers their value.
func TestCell(t *testing.T) {
	t.Parallel()
	id := uuid.MustParse("0190a1b2-0000-7000-8000-000000000001")
	var noID *uuid.UUID
	var noTime *time.Time
	when := time.Date(2026, 11, 23, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		in   any
		want string
	}{
		{noID, "-"}, {&id, id.String()}, {noTime, "-"}, {&when, "2026-11-23T09:00:00Z"}, {"", "-"},
		{"a\tb\nc", "a b c"}, {true, "true"}, {0.85, "0.85"}, {[]string{"x"}, `["x"]`}, {nil, "-"},
	} {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// On a terminal the status line is redrawn in place; elsewhere each state is a line.
func TestStatusLine(t *testing.T) {
	t.Parallel()
	var plain bytes.Buffer
	s := newStatusLine(&plain)
	s.show("a.pdf: processing")
	s.show("a.pdf: ready")
	s.finish()
	if plain.String() != "a.pdf: processing\na.pdf: ready\n" {
		t.Errorf("plain %q", plain.String())
	}
	var term bytes.Buffer
	s = &statusLine{w: &term, terminal: true}
	s.show("a.pdf: processing")
	s.show("a.pdf: ready")
	s.finish()
	if term.String() != "\ra.pdf: processing\ra.pdf: ready     \n" {
		t.Errorf("terminal %q", term.String())
	}
}
