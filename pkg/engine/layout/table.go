package layout

import (
	"strings"
)

// Pair is a label with the value found for it.
type Pair struct {
	Label Label
	Value Candidate
}

// Pairs finds label–value pairs without being told the labels: every cell that ends in
// a colon or is a multilingual label, with its best value, and every cell of a header
// row with the value under it. Cells that are values themselves are not labels.
func (p *Page) Pairs() []Pair {
	var out []Pair
	for li, l := range p.Lines {
		header := p.headerRow(li)
		for _, seg := range l.Segments {
			var lab Label
			switch {
			case header:
				lab = p.label(seg, 0, len(seg.Text))
			case looksLikeLabel(seg.Text):
				lab = p.label(seg, 0, len(seg.Text))
			case hasInlineValue(seg.Text) && !valueLike(seg.Text[:strings.Index(seg.Text, ":")]):
				i := strings.Index(seg.Text, ":")
				lab = p.label(seg, 0, i+1)
			default:
				continue
			}
			if vs := p.Values(lab); len(vs) > 0 {
				out = append(out, Pair{Label: lab, Value: vs[0]})
			}
		}
	}
	return out
}

// Table is a table read by its header row.
type Table struct {
	Header  int     // index into Page.Lines
	Columns []Label // the header's cells, left to right
	// Rows holds, per row under the header, the words of each column (nil where the
	// row has nothing in a column).
	Rows [][][]int
	// RowLines are the Page.Lines index of each row.
	RowLines []int
}

// Cell is the text of a row's cell.
func (p *Page) Cell(t Table, row, col int) string {
	if row < 0 || row >= len(t.Rows) || col < 0 || col >= len(t.Rows[row]) {
		return ""
	}
	return p.Text(t.Rows[row][col])
}

// TableAt reads the table whose header row is line header: each following row's words
// go to the column whose span (halfway to the neighbouring headings) holds their
// centre. The table ends at a vertical gap of more than two line heights, or at a row
// that is one cell spanning most of the table (running text).
func (p *Page) TableAt(header int) Table {
	t := Table{Header: header}
	if header < 0 || header >= len(p.Lines) {
		return t
	}
	hl := p.Lines[header]
	for _, seg := range hl.Segments {
		t.Columns = append(t.Columns, p.label(seg, 0, len(seg.Text)))
	}
	if len(t.Columns) < 2 {
		return t
	}
	bounds := make([][2]float64, len(t.Columns))
	for k, c := range t.Columns {
		bounds[k][0], bounds[k][1] = p.column(c)
	}
	width := hl.Box.X1 - hl.Box.X0
	bottom := hl.Box.Y1
	for li := header + 1; li < len(p.Lines); li++ {
		l := p.Lines[li]
		if l.Box.Y0-bottom > 2*p.lineHeight {
			break
		}
		if len(l.Segments) == 1 && l.Box.X1-l.Box.X0 > 0.6*width && !valueLike(l.Segments[0].Text) {
			break
		}
		row := make([][]int, len(t.Columns))
		for _, i := range l.Words {
			c := centreX(p.Words[i].Box)
			col := -1
			for k, b := range bounds {
				if c >= b[0] && c <= b[1] {
					col = k
					break
				}
			}
			if col >= 0 {
				row[col] = append(row[col], i)
			}
		}
		t.Rows = append(t.Rows, row)
		t.RowLines = append(t.RowLines, li)
		bottom = l.Box.Y1
	}
	return t
}
