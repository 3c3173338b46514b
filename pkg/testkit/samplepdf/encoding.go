package samplepdf

import (
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// extraGlyphs are letters of applicants' names that Windows-1252 lacks (Turkish,
// mostly). TextLayout's fonts map them onto codes that Windows-1252 leaves undefined,
// through the font encoding's /Differences, so that they print and pdftotext reads
// them back by glyph name.
var extraGlyphs = []struct {
	r    rune
	code byte
	name string
}{
	{'Ş', 0x81, "Scedilla"}, {'ş', 0x8D, "scedilla"}, {'Ğ', 0x8F, "Gbreve"},
	{'ğ', 0x90, "gbreve"}, {'İ', 0x9D, "Idotaccent"},
}

// fontEncoding is the /Encoding dictionary of TextLayout's fonts.
func fontEncoding() string {
	var b strings.Builder
	b.WriteString("<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [")
	for _, g := range extraGlyphs {
		b.WriteString(" " + strconv.Itoa(int(g.code)) + " /" + g.name)
	}
	b.WriteString(" ] >>")
	return b.String()
}

// winAnsi encodes s in Windows-1252; with extra, the extraGlyphs get their codes.
// Characters that cannot be encoded become '?'.
func winAnsi(s string, extra bool) []byte {
	out := make([]byte, 0, len(s))
	enc := charmap.Windows1252
	for _, r := range s {
		if b, ok := enc.EncodeRune(r); ok {
			out = append(out, b)
			continue
		}
		found := false
		if extra {
			for _, g := range extraGlyphs {
				if g.r == r {
					out, found = append(out, g.code), true
					break
				}
			}
		}
		if !found {
			out = append(out, '?')
		}
	}
	return out
}

// escape makes encoded text a PDF literal string body.
func escape(b []byte) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(string(b))
}

// pdfString is s as the body of a literal string for a WinAnsi font.
func pdfString(s string) string { return escape(winAnsi(s, false)) }
