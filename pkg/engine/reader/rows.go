package reader

import (
	"math"
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// lineBox is the box of a text line's words on its page, ok false where the page has
// no words or they are not found.
func (t *text) lineBox(l line) (evidence.Box, bool) {
	g, ws := t.lineWords(l)
	if len(ws) == 0 {
		return evidence.Box{}, false
	}
	return g.BoxOf(ws), true
}

// lineBoxes are the boxes of every place a text line's words stand on its page: OCR's
// order of lines is not the page's, so the n-th time a text is read need not be the
// n-th place it stands ("17.10." twice, as booking and as value date).
func (t *text) lineBoxes(l line) []evidence.Box {
	g := t.geometry(l.page)
	if g == nil || l.text == "" {
		return nil
	}
	var out []evidence.Box
	for n := 0; n < 50; n++ {
		ws := g.LocateNth(l.text, n)
		if len(ws) == 0 {
			break
		}
		out = append(out, g.BoxOf(ws))
	}
	return out
}

// rowAligned gives the anchors of an OCR page the amounts OCR read as blocks of their
// own, by the rows of the page: each amount-only line goes to the anchor whose line
// stands at its height (within its own height; a figure at no anchor's height is left
// out), and its side comes from the heading over its block ("Soll EUR" over the debits,
// "Haben EUR" over the credits, a balance column). It reports false, changing nothing,
// unless every booking gets an amount or a balance this way.
func rowAligned(t *text, as []anchor) bool {
	type placed struct {
		m    parse.Money
		l    line
		side int
		k    int // the anchor
	}
	// Each anchor stands where its text does, in the anchors' column (the left edge of
	// the first one's place), each place taken once.
	ys := make([]float64, len(as))
	taken := map[evidence.Box]bool{}
	left := math.NaN()
	for k, a := range as {
		best, ok := evidence.Box{}, false
		for _, b := range t.lineBoxes(a.l) {
			if taken[b] {
				continue
			}
			if !ok || !math.IsNaN(left) && math.Abs(b.X0-left) < math.Abs(best.X0-left) {
				best, ok = b, true
			}
		}
		if !ok {
			return false
		}
		if math.IsNaN(left) && a.kind == anchorBooking {
			left = best.X0
		}
		taken[best] = true
		ys[k] = (best.Y0 + best.Y1) / 2
	}
	var got []placed
	for _, run := range columnRuns(t) {
		side, headBottom := colAmount, math.Inf(1)
		if i := run[0].idx - 1; i >= 0 {
			if k, ok := headingKind(t.lines[i]); ok {
				if b, ok := t.lineBox(t.lines[i]); ok {
					side, headBottom = k, b.Y1
				}
			}
		}
		for _, l := range run {
			m, ok := readMoney(l.text)
			b, okb := t.lineBox(l)
			if !ok || !okb {
				return false
			}
			y, h := (b.Y0+b.Y1)/2, b.Y1-b.Y0
			best, dist := -1, math.Inf(1)
			for k := range as {
				if d := math.Abs(ys[k] - y); d < dist {
					best, dist = k, d
				}
			}
			if best < 0 || dist > h {
				continue // no anchor at its height (a carried total OCR left unlabelled)
			}
			s := side
			if b.Y0 < headBottom {
				s = colAmount // above its block's heading: a figure of another part of the page
			}
			got = append(got, placed{m, l, s, best})
		}
	}
	filled := make([]bool, len(as))
	for _, p := range got {
		filled[p.k] = true
	}
	for k, a := range as {
		if a.kind == anchorBooking && !filled[k] {
			return false
		}
	}
	for _, p := range got {
		a := &as[p.k]
		m, l := p.m, p.l
		switch {
		case p.side == colBalance && a.kind == anchorBooking:
			a.bal = &m
		case a.amount != nil:
			continue // a second figure at the anchor's height
		default:
			if p.side == colDebit {
				m.Cents = -abs(m.Cents)
			}
			a.amount, a.from = &m, &l
			switch {
			case a.kind == anchorBooking && (p.side == colDebit || p.side == colCredit):
				a.side = p.side
			case p.side == colAmount:
				a.signed = signAfter.MatchString(strings.TrimSpace(l.text)) || strings.HasPrefix(strings.TrimSpace(l.text), "-") || strings.HasPrefix(strings.TrimSpace(l.text), "+")
			}
		}
	}
	return true
}

// headingKind reads a line that heads one amount column alone ("Soll EUR", "Haben
// EUR", "Betrag (EUR)"): its kind.
func headingKind(l line) (int, bool) {
	if len(parse.Figures(l.text)) > 0 {
		return 0, false
	}
	for _, h := range columnHeads {
		if h.re.MatchString(l.f.s) && len(l.f.s) <= 24 {
			return h.kind, true
		}
	}
	return 0, false
}
