package reader

import (
	"regexp"
	"strings"
)

// tickBox matches a form's check box, ticked or not: the box glyphs (☐ ☒ ☑ □ ■ ⊠), a
// bracketed mark ("[x]", "[ ]", "(X)", "( )"), and the check marks ✓ ✔ ✗ ✘ that stand
// for a ticked box. Group 1 holds the mark inside brackets.
var tickBox = regexp.MustCompile(`[☐☒☑□■⊠✓✔✗✘]|\[\s*([xX✓✔]?)\s*\]|\(\s*([xX✓✔]?)\s*\)`)

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
		case strings.ContainsAny(box, "☒☑■⊠✓✔✗✘"):
			checked = !strings.HasPrefix(box, "[") && !strings.HasPrefix(box, "(") || strings.ContainsAny(box, "xX✓✔")
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
