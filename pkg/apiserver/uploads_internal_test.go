package apiserver

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Filenames keep no path parts, no control characters, at most 255 bytes of valid UTF-8
// (Upload.filename).
func TestSanitizeFilename(t *testing.T) {
	for in, want := range map[string]string{
		"payslip.pdf":                  "payslip.pdf",
		`C:\Users\me\Lohn 01/2026.pdf`: "2026.pdf",
		"../../etc/passwd":             "passwd",
		"a\x00b\nc\td.pdf":             "abcd.pdf",
		"  spaced.pdf  ":               "spaced.pdf",
		"":                             "upload",
		"..":                           "upload",
		"dir/":                         "upload",
		"bad\xffutf8.pdf":              "badutf8.pdf",
	} {
		if got := SanitizeFilename(in); got != want {
			t.Errorf("SanitizeFilename(%q) = %q, want %q", in, got, want)
		}
	}
	long := SanitizeFilename(strings.Repeat("ä", 200) + ".pdf") // 404 bytes
	if len(long) > 255 || !utf8.ValidString(long) || !strings.HasPrefix(long, "ää") {
		t.Errorf("long name: %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
}
