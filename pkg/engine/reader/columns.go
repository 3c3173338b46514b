package reader

import (
	"regexp"
	"strings"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// amountOnly matches a line that is nothing but an amount (with sign, marker or
// currency): what OCR leaves of a statement's amount column, which it reads as a block
// of its own after the booking texts.
var amountOnly = regexp.MustCompile(`^\s*[-+]?\s*(?:EUR|€)?\s*[-+]?(?:\d{1,3}(?:[.,\s]\d{3})*|\d+)[.,]\d{2}\s*(?:[-+]|S|H|EUR|Euro|€)?\s*$`)

// columnRuns returns the runs of consecutive amount-only lines of the page, in order.
func columnRuns(t *text) [][]line {
	var runs [][]line
	var cur []line
	for _, l := range t.lines {
		if amountOnly.MatchString(l.text) {
			cur = append(cur, l)
			continue
		}
		if len(cur) > 0 {
			runs = append(runs, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	return runs
}

// reassemble pairs anchors (booking and balance lines) that lost their amounts with a
// run of amount-only lines of the same length. balances reports that the run is the
// running-balance column (the statement prints one), whose changes are the amounts.
func reassemble(t *text, anchors int, balanceColumn bool) ([]parse.Money, []line, bool) {
	runs := columnRuns(t)
	// With a balance column the balance run is the last one of the right length (it is
	// the rightmost column); otherwise the amount run.
	for i := len(runs) - 1; i >= 0; i-- {
		run := runs[i]
		if len(run) != anchors {
			continue
		}
		ms, ok := runMoney(run)
		return ms, run, ok
	}
	return nil, nil, false
}

// concatenatedRuns is reassemble for a column OCR parted in runs (a balance standing
// apart from the amounts, with no geometry to place them by): all runs, in order, when
// they are as many as the anchors.
func concatenatedRuns(t *text, anchors int) ([]parse.Money, []line, bool) {
	runs := columnRuns(t)
	var all []line
	for _, run := range runs {
		all = append(all, run...)
	}
	if len(runs) < 2 || len(all) != anchors {
		return nil, nil, false
	}
	ms, ok := runMoney(all)
	return ms, all, ok
}

// runMoney reads the amount of every line of a run.
func runMoney(run []line) ([]parse.Money, bool) {
	ms := make([]parse.Money, len(run))
	for j, l := range run {
		m, ok := readMoney(l.text)
		if !ok {
			return nil, false
		}
		ms[j] = m
	}
	return ms, true
}

// citeSpan quotes the page from the earlier of two lines to the later.
func (t *text) citeSpan(a, b line) string {
	if b.start < a.start {
		a, b = b, a
	}
	return strings.TrimSpace(t.pages[a.page][a.start:b.end])
}

// valueLike matches a line that is only a value: an amount, a date, a number with a
// unit. OCR puts a table's value column as such lines after its label column.
var valueLike = regexp.MustCompile(`^\s*[-+]?\s*(?:EUR|€)?\s*[-+]?[\d][\d.,/ ]*\s*(?:[-+]|S|H|EUR|€|%|m²|m2|m[?:e*]|M2|sqm|qm|sq m|Jahre|years|cm)?\s*$`)

var headingWords = labelPattern("re:^(?:deductions|abzüge|abzuge|payments|bezüge|bezuge|earnings|gesetzliche abzüge|gesetzliche abzuge)$")

var labelWords = labelPattern("name|nummer|number|datum|date|seit|since|vorname|surname")

// tableHeader matches a column heading line, which has no value of its own.
var tableHeader = regexp.MustCompile(`(?i)^(?:(?:betrag|amount|lohnart|bezeichnung|payments|eur|jahr|monat|kumuliert|year to date|description|raum|room|fläche|area)(?:\s+|$))+(?:eur|€|\(eur\))?$`)

// pairColumns finds, on OCR pages, a run of value lines and the run of label lines
// before it, and pairs them row by row when their counts agree (headings without a
// value left out). It maps a label line to its value line.
func (t *text) pairColumns() map[[2]int]line {
	pairs := map[[2]int]line{}
	isLabel := func(l line) bool {
		s := strings.TrimSpace(l.text)
		if s == "" || strings.ContainsAny(s, "0123456789") || len(strings.Fields(s)) > 7 {
			return false
		}
		// A person's name ("Böhm, Andreas", "JÜRGEN MÜLLER") is a value, not a label.
		if _, ok := readName(s); ok && (strings.Contains(s, ",") || strings.ToUpper(s) == s) && !labelWords.MatchString(l.f.s) {
			return false
		}
		return true
	}
	i := 0
	for i < len(t.lines) {
		if !valueLike.MatchString(t.lines[i].text) {
			i++
			continue
		}
		j := i
		for j < len(t.lines) && t.lines[j].page == t.lines[i].page && valueLike.MatchString(t.lines[j].text) {
			j++
		}
		values := t.lines[i:j]
		if len(values) >= 2 {
			// Walk back over a few other lines (a note, an account line) to a label run
			// long enough for the values.
			var labels []line
			for end := i - 1; end >= 0 && end >= i-6 && t.lines[end].page == t.lines[i].page; end-- {
				if !isLabel(t.lines[end]) {
					continue
				}
				k := end
				for k >= 0 && t.lines[k].page == t.lines[i].page && isLabel(t.lines[k]) {
					k--
				}
				// A name printed last in the label column's place is the first value.
				for end > k+1 && looksLikeName(t.lines[end]) {
					end--
				}
				var rows []line
				for _, l := range t.lines[k+1 : end+1] {
					s := strings.TrimSpace(l.text)
					if !strings.HasSuffix(s, ":") && !headingWords.MatchString(foldString(s)) && !tableHeader.MatchString(s) {
						rows = append(rows, l)
					}
				}
				if len(rows) >= len(values) {
					labels = rows[len(rows)-len(values):] // the rows nearest the values
					break
				}
				end = k + 1
			}
			if len(labels) == len(values) {
				for n, l := range labels {
					pairs[[2]int{l.page, l.start}] = values[n]
				}
			}
		}
		i = j
	}
	return pairs
}

// looksLikeName: two to four capitalized words that read as a person's name and hold no
// label word.
func looksLikeName(l line) bool {
	words := strings.Fields(l.text)
	if len(words) < 2 || len(words) > 4 || labelWords.MatchString(l.f.s) {
		return false
	}
	for _, w := range words {
		if !startsUpper(w) {
			return false
		}
	}
	_, ok := readName(l.text)
	return ok
}
