package extract

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Column gaps of the laid-out page text: lines side by side on a row stand at least
// minColumnGap spaces apart, so that a reader splitting a row at two or more spaces
// finds the columns (a label and the value at its tab stop, the cells of a table row).
const minColumnGap = 2

// maxColumn bounds the column a line starts from: a page of a few hundred characters'
// width, or text of absurd coordinates, never makes a row of millions of spaces.
const maxColumn = 1000

// padPerChar: a page's padding is at most this many spaces per byte of its lines'
// text, and maxColumn more (see layoutText); a real page has far less.
const padPerChar = 8

// maxBlankLines bounds the blank lines a vertical gap between rows becomes.
const maxBlankLines = 4

// layoutText lays out a page's lines (pdftotext's, in points) as text that keeps the
// page's physical layout, like pdftotext -layout: lines standing side by side share a
// row, left to right, each from the column its position gives (in character widths
// from the page's leftmost line) and never closer than minColumnGap spaces to the one
// before; within a line, words keep poppler's order, one space apart. Rows run top to
// bottom, with a blank line for each line height of empty space between them. The
// words' boxes and this text come from one pdftotext run.
func layoutText(lines []textLine) string {
	if len(lines) == 0 {
		return ""
	}
	unit := pitch(lines)
	left := math.Inf(1)
	for _, l := range lines {
		left = min(left, l.x0)
	}
	column := func(x float64) int {
		if unit <= 0 {
			return 0
		}
		return int(min(math.Round((x-left)/unit), maxColumn))
	}
	// budget bounds the padding of the page: a hostile page of short lines far to the
	// right would otherwise turn each few bytes of pdftotext's output into a thousand
	// spaces. Past it, lines start at the left or minColumnGap after the one before.
	budget := maxColumn
	for _, l := range lines {
		budget += padPerChar * len(l.text)
	}
	var b strings.Builder
	rows := layoutRows(lines, unit/2)
	for i, r := range rows {
		if i > 0 {
			// A blank line for each further line height between the baselines.
			b.WriteByte('\n')
			if prev := rows[i-1]; prev.height > 0 {
				blank := min(max(math.Floor((r.base-prev.base)/prev.height)-1, 0), maxBlankLines)
				b.WriteString(strings.Repeat("\n", int(blank)))
			}
		}
		at := 0
		for k, li := range r.lines {
			l := lines[li]
			pad := max(min(column(l.x0)-at, budget), 0)
			if k > 0 {
				pad = max(pad, minColumnGap)
			}
			budget -= pad
			b.WriteString(strings.Repeat(" ", pad))
			b.WriteString(l.text)
			at += pad + utf8.RuneCountInString(l.text)
		}
	}
	return b.String()
}

// pitch returns the median width of a character on the page, in points (0 when no
// line has a width).
func pitch(lines []textLine) float64 {
	var widths []float64
	for _, l := range lines {
		if n := utf8.RuneCountInString(l.text); n > 0 && l.x1 > l.x0 {
			widths = append(widths, (l.x1-l.x0)/float64(n))
		}
	}
	return median(widths)
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// row is one row of the laid-out text: the lines on it, left to right, and the
// baseline and height of its first line.
type row struct {
	lines        []int
	base, height float64
}

// Rows follow baselines, which pdftotext's boxes do not give: a line's baseline is
// taken to lie descentShare of its height above its bottom (a font's descent is about
// a fifth of its height). Lines whose baselines lie within rowDelta of the first
// line's height of each other share a row.
const (
	descentShare = 0.2
	rowDelta     = 0.5
)

// maxLayers bounds the layers of one row a line is fitted into (see layoutRows).
const maxLayers = 8

func baseline(l textLine) float64 { return l.y1 - descentShare*(l.y1-l.y0) }

// layoutRows groups lines into rows, top to bottom: lines taken by their baselines,
// each joining the row of the line before while its baseline is within rowDelta
// (times that row's first line's height) of the row's first baseline. Lines of a row
// that overlap horizontally by more than tol (text printed twice, a line struck
// through another) go to a row of their own below it.
func layoutRows(lines []textLine, tol float64) []row {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(baseline(lines[a]), baseline(lines[b])), cmp.Compare(lines[a].x0, lines[b].x0))
	})
	var rows []row
	for i := 0; i < len(order); {
		first := lines[order[i]]
		base, h := baseline(first), first.y1-first.y0
		j := i + 1
		for j < len(order) && baseline(lines[order[j]])-base <= rowDelta*h {
			j++
		}
		group := slices.Clone(order[i:j])
		slices.SortStableFunc(group, func(a, b int) int { return cmp.Compare(lines[a].x0, lines[b].x0) })
		// Each line goes to the first of the row's layers where it overlaps nothing,
		// looking at the last maxLayers only: a page of thousands of lines stacked on
		// one another costs linear time.
		var layers [][]int
		for _, li := range group {
			placed := false
			for k := max(len(layers)-maxLayers, 0); k < len(layers); k++ {
				layer := layers[k]
				if lines[layer[len(layer)-1]].x1-tol <= lines[li].x0 {
					layers[k] = append(layer, li)
					placed = true
					break
				}
			}
			if !placed {
				layers = append(layers, []int{li})
			}
		}
		for _, layer := range layers {
			rows = append(rows, row{lines: layer, base: base, height: h})
		}
		i = j
	}
	return rows
}
