package extract

import (
	"strconv"
	"strings"
	"testing"
)

// bboxPageXML is a pdftotext -bbox-layout document of one page with the given lines,
// each a list of words with boxes in points.
func bboxPageXML(lines ...[]bboxTestWord) string {
	var b strings.Builder
	b.WriteString(`<html><body><doc><page width="600" height="800">`)
	for _, l := range lines {
		b.WriteString(`<flow><block><line>`)
		for _, w := range l {
			b.WriteString(`<word xMin="` + ftoa(w.x0) + `" yMin="` + ftoa(w.y0) + `" xMax="` + ftoa(w.x1) + `" yMax="` + ftoa(w.y1) + `">` + w.text + `</word>`)
		}
		b.WriteString(`</line></block></flow>`)
	}
	b.WriteString(`</page></doc></body></html>`)
	return b.String()
}

type bboxTestWord struct {
	text           string
	x0, y0, x1, y1 float64
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// word sets a word of n characters 5 points each from x on the line whose top is y
// (10 points high).
func word(text string, x, y float64) bboxTestWord {
	return bboxTestWord{text, x, y, x + 5*float64(len([]rune(text))), y + 10}
}

func layoutOf(t *testing.T, lines ...[]bboxTestWord) string {
	t.Helper()
	pages, err := parseBBox(strings.NewReader(bboxPageXML(lines...)), 1)
	if err != nil || len(pages) != 1 {
		t.Fatalf("pages %v, %v", pages, err)
	}
	return layoutText(pages[0].lines)
}

func TestLayoutText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		lines [][]bboxTestWord
		want  string
	}{{
		name: "a label and its value at a tab stop share a row, columns apart, words in order",
		lines: [][]bboxTestWord{
			{word("Period", 300, 100), word("Ending:", 335, 100)},
			{word("Earnings", 50, 100), word("Statement", 95, 100)},
			{word("04/05/2015", 420, 101)},
		},
		want: "Earnings Statement" + strings.Repeat(" ", 32) + "Period Ending:" + strings.Repeat(" ", 10) + "04/05/2015",
	}, {
		name: "lines close together keep their columns apart by two spaces at least",
		lines: [][]bboxTestWord{
			{word("Netto", 50, 100)},
			{word("3.250,00", 76, 100)},
		},
		want: "Netto  3.250,00",
	}, {
		name: "rows run top to bottom, a blank line for each line height of gap, the left margin dropped",
		lines: [][]bboxTestWord{
			{word("unten", 50, 160)},
			{word("oben", 50, 100)},
			{word("Mitte", 75, 112)},
		},
		want: "oben\n     Mitte\n\n\n\nunten",
	}, {
		name: "table rows set tighter than their boxes stay apart",
		lines: [][]bboxTestWord{
			{{"Description", 50, 149, 105, 161}}, {{"Regular", 50, 157, 85, 169}},
			{{"Rate", 200, 149, 220, 161}}, {{"20.35", 200, 157, 225, 169}},
		},
		want: "Description" + strings.Repeat(" ", 19) + "Rate\nRegular" + strings.Repeat(" ", 23) + "20.35",
	}, {
		name: "a subscript follows its word without a space",
		lines: [][]bboxTestWord{
			{word("CO", 50, 100), {"2", 60, 104, 63, 110}, word("Emission", 66, 100)},
		},
		want: "CO2 Emission",
	}, {
		name: "text printed over other text goes to a row of its own",
		lines: [][]bboxTestWord{
			{word("Original", 50, 100)},
			{word("Kopie", 55, 100.5)},
		},
		want: "Original\n Kopie",
	}, {
		name: "a line far out on a page of tiny characters starts no further than maxColumn",
		lines: [][]bboxTestWord{
			{{"a", 0, 0, 1e-9, 1}},
			{{"b", 1e9, 0, 1e9 + 1e-9, 1}},
		},
		want: "a" + strings.Repeat(" ", maxColumn-1) + "b",
	}, {
		name:  "no lines, no text",
		lines: nil,
		want:  "",
	}} {
		t.Run(c.name, func(t *testing.T) {
			if got := layoutOf(t, c.lines...); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// A hostile page of one-letter lines far to the right makes no more text than its
// padding budget allows.
func TestLayoutTextPaddingBounded(t *testing.T) {
	t.Parallel()
	var lines []textLine
	lines = append(lines, textLine{text: "a", x0: 0, y0: 0, x1: 1, y1: 1})
	for i := range 5000 {
		lines = append(lines, textLine{text: "b", x0: 1e6, y0: float64(i + 1), x1: 1e6 + 1, y1: float64(i + 2)})
	}
	text := layoutText(lines)
	if n := len(text); n > maxColumn+(padPerChar+2)*len(lines) {
		t.Errorf("%d bytes of text for %d one-letter lines", n, len(lines))
	}
	if strings.Count(text, "b") != 5000 {
		t.Error("lines lost")
	}
}
