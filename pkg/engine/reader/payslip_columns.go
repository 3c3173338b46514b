package reader

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

var (
	// yearToDate heads or labels a cumulated figure, never the month's: DATEV
	// "kumuliert"/"Jahreswerte", SAP "kumuliert", Lexware "Jahressumme", Sage "TD"
	// (to date), ADP "Year to Date"/"YTD".
	yearToDate = regexp.MustCompile(`\b(?:year to date|ytd|y-t-d|to date|td|kumuliert|kumul|jahreswerte?|jahressumme|jahresbetrag|jahr|bis dato|aufgelaufen)\b`)
	// currentPeriod heads the month's column: "Betrag", "aktueller Monat", "laufender
	// Monat" (SAP), "this period"/"current" (ADP), "Amount" (Sage).
	currentPeriod = regexp.MustCompile(`\b(?:this period|current period|current|aktueller monat|laufender monat|monat|betrag|amount|eur)\b`)
)

// payColumns are a payslip's figure columns when it prints a year-to-date one beside
// the month's: the rune columns of the two headings. ok is false when the page has no
// year-to-date column.
type payColumns struct {
	current, ytd column
	ok           bool
	positioned   bool // the text keeps the page's columns, so positions can be compared
}

// payslipColumns finds the heading line that names a year-to-date column.
func payslipColumns(t *text) payColumns {
	for _, l := range t.lines {
		if len(parse.Figures(l.text)) > 0 {
			continue
		}
		y := yearToDate.FindStringIndex(l.f.s)
		if y == nil {
			continue
		}
		pc := payColumns{ok: true}
		pc.ytd = runeColumn(l.f.s, y)
		if c := currentPeriod.FindAllStringIndex(l.f.s, -1); len(c) > 0 {
			pc.current = runeColumn(l.f.s, c[len(c)-1])
			for _, loc := range c {
				if loc[0] < y[0] {
					pc.current = runeColumn(l.f.s, loc)
				}
			}
			pc.positioned = !pageIsOCR(t, l.page) && pc.current.from != pc.ytd.from
		}
		return pc
	}
	return payColumns{}
}

func runeColumn(s string, loc []int) column {
	from := utf8.RuneCountInString(s[:loc[0]])
	return column{from: from, to: from + utf8.RuneCountInString(s[loc[0]:loc[1]])}
}

// monthFigure picks the month's figure of a payslip row: the one under the month's
// heading when the page's columns can be compared, else the first (the month's column
// comes before the year-to-date one on every payslip). A figure under the year-to-date
// heading is never the month's.
func (pc payColumns) monthFigure(lineText string, restOff int, fs []parse.Figure) (parse.Figure, bool) {
	if len(fs) == 0 {
		return parse.Figure{}, false
	}
	if !pc.positioned {
		return fs[0], true
	}
	cols := []column{{kind: 0, from: pc.current.from, to: pc.current.to}, {kind: 1, from: pc.ytd.from, to: pc.ytd.to}}
	for _, f := range fs {
		from, to := runeSpan(lineText, parse.Span{Start: restOff + f.Span.Start, End: restOff + f.Span.End})
		if kind, ok := columnAt(cols, from, to); !ok || kind == 0 {
			return f, true
		}
	}
	return parse.Figure{}, false
}

// cell is a run of a line's text between gaps of two or more spaces.
type cell struct {
	text     string
	from, to int // rune columns
	start    int // byte offset in the line
}

func cellsOf(s string) []cell {
	var out []cell
	blank := func(i int) bool { return i < len(s) && (s[i] == ' ' || s[i] == '\t') }
	col, i := 0, 0
	for i < len(s) {
		for blank(i) {
			i++
			col++
		}
		if i >= len(s) {
			break
		}
		start, from := i, col
		for i < len(s) && s[i] != '\t' && !(s[i] == ' ' && blank(i+1)) {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			col++
		}
		out = append(out, cell{text: s[start:i], from: from, to: col, start: start})
	}
	return out
}

// headerValue reads the value of a label that heads a column of a header row: the
// label's line holds further labels and no value, the line under it the values, cell
// under cell ("Pers.-Nr.  Geburtsdatum  Eintritt" over "00123  12.05.1985
// 01.04.2019"). The value is the cell that overlaps the label's columns most, else the
// one starting nearest. ok is false when the line is no header row or no cell reads.
func headerValue[T any](t *text, l line, labelFrom, labelTo int, read func(string) (T, bool)) (T, evidence.Citation, bool) {
	var zero T
	labels := cellsOf(l.text)
	if len(labels) < 2 || pageIsOCR(t, l.page) {
		return zero, evidence.Citation{}, false
	}
	n, ok := t.next(l)
	if !ok {
		return zero, evidence.Citation{}, false
	}
	values := cellsOf(n.text)
	if len(values) == 0 {
		return zero, evidence.Citation{}, false
	}
	best, bestOverlap, bestDist := -1, 0, 1<<30
	for i, c := range values {
		overlap := min(c.to, labelTo) - max(c.from, labelFrom)
		dist := abs64i(c.from - labelFrom)
		if overlap > bestOverlap || overlap == bestOverlap && overlap <= 0 && dist < bestDist {
			best, bestOverlap, bestDist = i, overlap, dist
		}
	}
	// A lone value under a header row stands under its own heading ("Eintritt  Austritt"
	// over "010111" alone).
	if best < 0 || bestOverlap <= 0 && (bestDist > 6 || len(values) == 1) {
		return zero, evidence.Citation{}, false
	}
	v, ok := read(values[best].text)
	if !ok {
		return zero, evidence.Citation{}, false
	}
	return v, t.cite(l, n), true
}

// isHeaderRow reports a line of several labels and no value: no date, no figure.
func isHeaderRow(l line) bool {
	if len(cellsOf(l.text)) < 2 || len(parse.Figures(l.text)) > 0 {
		return false
	}
	_, ok := readDate(l.text)
	return !ok && !strings.ContainsAny(strings.Join(strings.Fields(l.text), ""), "0123456789")
}
