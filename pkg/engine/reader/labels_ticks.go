package reader

import (
	"regexp"
	"strings"
)

// The glyphs of a form's check boxes, one set for every reader of tick boxes: boxes
// ticked (☒ ☑ ■ ▣ ⊠, and the check marks ✓ ✔ ✗ ✘ that stand for one), boxes left empty
// (☐ □ ▢), and the marks that tick a bracketed box ("[x]", "(✓)").
const (
	tickedGlyphs = "☒☑■▣⊠✓✔✗✘"
	emptyGlyphs  = "☐□▢"
	tickMarks    = "xX✓✔"
	// anyBox is a check box, ticked or not, without groups.
	anyBox = `[` + emptyGlyphs + tickedGlyphs + `]|\[\s*[` + tickMarks + `]?\s*\]|\(\s*[` + tickMarks + `]?\s*\)`
)

var (
	// tickBox matches a check box, ticked or not; group 1 or 2 holds the mark inside
	// brackets.
	tickBox = regexp.MustCompile(`[` + emptyGlyphs + tickedGlyphs + `]|\[\s*([` + tickMarks + `]?)\s*\]|\(\s*([` + tickMarks + `]?)\s*\)`)
	// tickedBox matches a ticked box, uncheckedBox an empty one.
	tickedBox    = regexp.MustCompile(`[` + tickedGlyphs + `]|\[\s*[` + tickMarks + `]\s*\]|\(\s*[` + tickMarks + `]\s*\)`)
	uncheckedBox = regexp.MustCompile(`[` + emptyGlyphs + `]|\[\s*\]|\(\s*\)`)
)

// tickedAnswers reads the options of a line of check boxes ("Beschäftigung: ☒
// unbefristet ☐ befristet"): the text after each box up to the next one, and which of
// them are ticked. boxes is how many boxes the line has; with none, the line is no
// tick-box question and the caller reads it as text.
func tickedAnswers(s string) (ticked []string, boxes int) {
	locs := tickBox.FindAllStringSubmatchIndex(s, -1)
	for k, loc := range locs {
		end := len(s)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		option := strings.Trim(strings.TrimSpace(s[loc[1]:end]), ",;/")
		option = strings.TrimSpace(option)
		box := s[loc[0]:loc[1]]
		checked := false
		switch {
		case strings.ContainsAny(box, tickedGlyphs):
			checked = !strings.HasPrefix(box, "[") && !strings.HasPrefix(box, "(") || strings.ContainsAny(box, tickMarks)
		case loc[2] >= 0 && loc[3] > loc[2], loc[4] >= 0 && loc[5] > loc[4]:
			checked = true
		}
		boxes++
		if checked && option != "" {
			ticked = append(ticked, option)
		}
	}
	return ticked, boxes
}

// tickedOnly reads a value from a line that may be a tick-box question: with boxes, only
// from the one ticked option (none or several ticked: no answer); without, as is.
func tickedOnly[T any](read func(string) (T, bool)) func(string) (T, bool) {
	return func(s string) (T, bool) {
		opts, boxes := tickedAnswers(s)
		if boxes == 0 {
			return read(s)
		}
		if len(opts) != 1 {
			var zero T
			return zero, false
		}
		return read(opts[0])
	}
}
