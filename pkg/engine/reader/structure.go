package reader

import (
	"regexp"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// Structure before words: shapes a document type has whatever language it is in and
// however OCR garbled its titles. scorePage adds them to the cues' scores.

// ledgerWeight is what a ledger's shape adds to a bank statement's score, and
// ledgerAddsWeight what balances that add up add on top: together less than a title,
// so that a document whose words say otherwise (a loan's repayment plan) stays what its
// words say.
const (
	ledgerWeight     = 3
	ledgerAddsWeight = 2
	// ledgerRowsMin is how many dated rows make a ledger.
	ledgerRowsMin = 5
)

// ledgerShape reads the lines as a ledger: rows that start with a booking day and end
// with an amount printed with its cents, the days in order (ascending or descending).
// rows counts them when most are in order; adding counts rows whose last figure (a
// running balance) follows from the row before's by one of the row's other figures.
func ledgerShape(lines []line) (rows, adding int) {
	type row struct {
		day     time.Time
		figures []int64
	}
	var rs []row
	for _, l := range lines {
		day, rest, ok := leadingDay(l.text)
		if !ok {
			continue
		}
		var cents []int64
		for _, f := range parse.Figures(rest) {
			if hasCents(rest[f.Span.Start:f.Span.End]) {
				cents = append(cents, f.Money.Cents)
			}
		}
		if len(cents) > 0 {
			rs = append(rs, row{day, cents})
		}
	}
	if len(rs) < ledgerRowsMin {
		return 0, 0
	}
	up, down := 0, 0
	for i := 1; i < len(rs); i++ {
		if !rs[i].day.Before(rs[i-1].day) {
			up++
		}
		if !rs[i].day.After(rs[i-1].day) {
			down++
		}
	}
	if 5*max(up, down) < 4*(len(rs)-1) {
		return 0, 0
	}
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1].figures, rs[i].figures
		if len(cur) < 2 {
			continue
		}
		diff := abs(cur[len(cur)-1] - prev[len(prev)-1])
		for _, a := range cur[:len(cur)-1] {
			if diff != 0 && abs(a) == diff {
				adding++
				break
			}
		}
	}
	return len(rs), adding
}

// hasCents reports whether a printed amount shows its cents ("1,234.56", "80,00 €",
// "(12.50)", "250.00 CR"): the markers after its last digit aside.
func hasCents(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	n := len(s)
	return n >= 3 && (s[n-3] == '.' || s[n-3] == ',') && isDigit(s[n-1]) && isDigit(s[n-2])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// leadingDay reads a booking day at the start of a line ("22 Oct 2013", "03.04.",
// "04/03", "Oct 22") and returns the rest of the line.
func leadingDay(s string) (time.Time, string, bool) {
	s = strings.TrimSpace(s)
	words := strings.Fields(s)
	for n := min(3, len(words)); n >= 1; n-- {
		head := strings.Join(words[:n], " ")
		if !isDigit(head[0]) && n == 1 {
			continue
		}
		if d, ok := bookingDayIn(head, 2000, parse.DayFirst); ok {
			at := 0
			for _, w := range words[:n] {
				at = strings.Index(s[at:], w) + at + len(w)
			}
			return d, s[at:], true
		}
	}
	return time.Time{}, "", false
}

// energyFigure is a figure per square metre and year in kWh, as energy certificates
// print their demand in any language: "kWh/m²a", "kWh/(m²·a)", "kWh/m².an", "kWh/m²
// año", "kWh/m²anno", "kWh/m²/Jahr".
var energyFigure = regexp.MustCompile(`kwh\s*/\s*\(?\s*m[²2]\s*[·.*x/]?\s*\(?(?:a|an|ano|anno|jahr|year|yr|rok|ar)\b`)

// energyWeight is what energy figures add to an energy certificate's score.
const energyWeight = 3

// structureLines are the lines to read a document's structure from: an OCR page's laid
// out from its words' boxes (see layout.Page.LayoutText), so that a ledger's row holds
// its date, text and figures where OCR read the table's columns as blocks of their own;
// any other page's as they are.
func structureLines(t *text) []line {
	var out []line
	for _, n := range t.pageNumbers() {
		var own []line
		for _, l := range t.lines {
			if l.page == n {
				own = append(own, l)
			}
		}
		// Only a whole page is laid out again: a view of some of its lines (a title
		// line weighed alone) is read as it is.
		printed := 0
		for _, s := range strings.Split(t.pages[n], "\n") {
			if strings.TrimSpace(s) != "" {
				printed++
			}
		}
		whole := len(own) == printed
		g := t.geometry(n)
		if g == nil || !pageIsOCR(t, n) || !whole {
			out = append(out, own...)
			continue
		}
		for _, s := range strings.Split(g.LayoutText(), "\n") {
			if strings.TrimSpace(s) != "" {
				out = append(out, line{page: n, idx: -1, text: s, f: fold(s), bare: bareOf(s)})
			}
		}
	}
	return out
}

// structureScores adds the structural evidence of the lines to the page's scores.
func structureScores(lines []line, ps *pageScore) {
	scores := ps.scores
	if rows, adding := ledgerShape(lines); rows > 0 {
		scores["bank_statement"] += ledgerWeight
		if adding >= 3 {
			scores["bank_statement"] += ledgerAddsWeight
			ps.ledgerAdds = true
		}
	}
	for _, l := range lines {
		if energyFigure.MatchString(l.f.s) {
			scores["energy_certificate"] += energyWeight
			break
		}
	}
}
