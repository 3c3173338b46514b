package reader

import (
	"regexp"
	"slices"
	"strings"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// sumsHold reports whether a payslip's gross and net pay add up: the difference, the
// deductions, is printed between them (from the gross pay's line to the line under
// the net pay's) as one figure, as the sum of two or three figures (tax and social
// security totals), or as the sum of a run of rows, each row giving its first figure,
// its last, all of them or all but its first (a deductions table with a year-to-date
// column, a header row over its values). checked is false when there is nothing to check: no
// deductions (net pay equal to gross pay) or net pay above gross pay.
func sumsHold(t *text, loc locale, gross, net payFigure) (holds, checked bool) {
	if gross.money.Currency != net.money.Currency || net.money.Cents >= gross.money.Cents {
		return false, false
	}
	diff := gross.money.Cents - net.money.Cents
	from, to := min(gross.line.idx, net.line.idx), max(gross.line.idx, net.line.idx)+1
	if deductionsPrinted(t, loc, gross, net, diff, from, to, true) {
		return true, true
	}
	// OCR may put a table's value column after all its labels: runs of rows anywhere
	// on the page (no free choice of figures, which a whole page would make too easy).
	return deductionsPrinted(t, loc, gross, net, diff, 0, len(t.lines)-1, false), true
}

// deductionsPrinted reports whether the lines from..to print figures that add up to
// diff (see sumsHold); any two or three figures only when free.
func deductionsPrinted(t *text, loc locale, gross, net payFigure, diff int64, from, to int, free bool) bool {
	var all []int64
	var rows [][]int64
	for i := max(0, from); i <= to && i < len(t.lines); i++ {
		var row []int64
		for _, f := range loc.figures(t.lines[i].text) {
			// The net pay's own figure (and a payout equal to it) stands in the row of a
			// header row's values too: it is no deduction.
			if c := abs(f.Money.Cents); c > 0 && c < gross.money.Cents && c != net.money.Cents {
				row = append(row, c)
			}
		}
		if len(row) > 0 {
			rows = append(rows, row)
			all = append(all, row...)
		}
	}
	if free && subsetSums(all[:min(len(all), maxSumFigures)], diff, 3) {
		return true
	}
	for _, pick := range []func([]int64) int64{
		func(r []int64) int64 { return r[0] },
		func(r []int64) int64 { return r[len(r)-1] },
		func(r []int64) int64 { return sum64(r[1:]) },
		sum64,
	} {
		for a := range rows {
			var s int64
			for _, r := range rows[a:] {
				if s += pick(r); s >= diff {
					break
				}
			}
			if s == diff {
				return true
			}
		}
	}
	return false
}

func sum64(vs []int64) int64 {
	var s int64
	for _, v := range vs {
		s += v
	}
	return s
}

// maxSumFigures bounds the figures sumsHold combines three at a time: a long table's
// many figures make a chance sum likely.
const maxSumFigures = 40

// subsetSums reports whether up to k of the values, each used once, add up to want.
func subsetSums(vs []int64, want int64, k int) bool {
	if want == 0 {
		return true
	}
	if k == 0 || want < 0 {
		return false
	}
	for i, v := range vs {
		if v <= want && subsetSums(vs[i+1:], want-v, k-1) {
			return true
		}
	}
	return false
}

// payCandidates is how many labelled figures of each kind payPair weighs.
const payCandidates = 4

// Confidence a payslip's gross and net pay gain when their sums hold (see sumsHold),
// and lose when they can be checked and fail with every candidate.
const (
	sumsHoldBonus = 0.05
	sumsFailMalus = -0.1
)

// payPair chooses the gross and net pay among their candidates (page order): the first
// pair whose sums hold, else the first of each. adjust is the confidence the sums add:
// sumsHoldBonus when they hold, sumsFailMalus when they were checked and fail, 0 when
// there was nothing to check.
func payPair(t *text, loc locale, grosses, nets []payFigure) (gross, net payFigure, adjust float64) {
	if len(grosses) == 0 || len(nets) == 0 {
		if len(grosses) > 0 {
			gross = grosses[0]
		}
		if len(nets) > 0 {
			net = nets[0]
		}
		return gross, net, 0
	}
	checked := false
	for _, g := range grosses {
		for _, n := range nets {
			holds, ok := sumsHold(t, loc, g, n)
			checked = checked || ok
			if holds {
				return g, n, sumsHoldBonus
			}
		}
	}
	if checked {
		return grosses[0], nets[0], sumsFailMalus
	}
	return grosses[0], nets[0], 0
}

// garbledDigits is a run of digits with separators on a gross pay's line that reads as
// no amount with its cents: OCR read a separator as a digit or lost one ("5.122127.").
var garbledDigits = regexp.MustCompile(`\d[\d.,' ]{2,}\d[.,]?`)

// garbledGross repairs a gross pay whose figure OCR garbled on a scanned payslip: a
// figure the page prints elsewhere (a sub-total of the same sum, "Steuer-Brutto
// 5.122,27") whose digits are the garbled run's but for one, above the net pay by what
// the printed deductions make up (see sumsHold), is the gross pay. The arithmetic
// decides, and the value cited is one the page prints.
func garbledGross(t *text, loc locale, net payFigure) (payFigure, bool) {
	if !pageIsOCR(t, net.line.page) {
		return payFigure{}, false
	}
	// A garbled run: digits with separators, no amount with its cents among them.
	garbledRun := func(s string) (string, bool) {
		if slices.ContainsFunc(loc.figures(s), func(f parse.Figure) bool { return hasCents(s[f.Span.Start:f.Span.End]) }) {
			return "", false
		}
		d := digitsOf(garbledDigits.FindString(s))
		return d, len(d) >= 4
	}
	for _, h := range t.findExact(grossSpec) {
		if h.l.page != net.line.page {
			continue
		}
		// On the label's line as OCR read it, else on its row of the page.
		garbled, ok := garbledRun(h.rest)
		if !ok {
			if garbled, _, ok = geoValue(t, h, garbledRun, true); !ok {
				continue
			}
		}
		for _, l := range t.lines {
			if l.page != h.l.page {
				continue
			}
			for _, f := range loc.figures(l.text) {
				printed := l.text[f.Span.Start:f.Span.End]
				if !hasCents(printed) || f.Money.Cents <= net.money.Cents || EditDistance(digitsOf(printed), garbled) > 1 {
					continue
				}
				m, ok := figureMoney(f, loc)
				if !ok || m.Currency != net.money.Currency {
					continue
				}
				cand := payFigure{money: m, cite: t.citeLine(l), line: h.l}
				if holds, _ := sumsHold(t, loc, cand, net); holds {
					return cand, true
				}
			}
		}
	}
	return payFigure{}, false
}

// digitsOf is the digits of s.
func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}
