package layout

import (
	"math"
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// turn is how a page's text runs in the coordinates its words came with. A photo or
// scan taken sideways, read by an OCR engine that reads rotated text as it is, gives
// words whose boxes stand on end; the geometry (label above value, header rows) only
// means something with the text upright, so New turns the boxes upright and the
// regions it returns are turned back into the page's own coordinates.
type turn int

const (
	upright turn = iota
	// downward: the text runs top to bottom, its first line at the right (the page
	// was turned a quarter clockwise).
	downward
	// upward: the text runs bottom to top, its first line at the left.
	upward
)

// detectTurn decides from the words' shapes and order: most words of four or more
// letters stand on end (taller than wide by half again), and the words of one line
// follow each other down the page (downward) or up it (upward).
func detectTurn(words []evidence.Word) turn {
	long, standing := 0, 0
	for _, w := range words {
		if len([]rune(w.Text)) < 4 {
			continue
		}
		long++
		if b := w.Box; b.Y1-b.Y0 > 1.5*(b.X1-b.X0) {
			standing++
		}
	}
	if long < 3 || 10*standing < 6*long {
		return upright
	}
	down, up := 0, 0
	for i := 1; i < len(words); i++ {
		a, b := words[i-1], words[i]
		if a.Line != b.Line || a.Block != b.Block || a.Line < 0 {
			continue
		}
		if b.Box.Y0 > a.Box.Y0 {
			down++
		} else if b.Box.Y0 < a.Box.Y0 {
			up++
		}
	}
	switch {
	case down > up:
		return downward
	case up > down:
		return upward
	}
	return upright
}

// upright maps a box from the page's coordinates into the upright frame.
func (t turn) upright(b evidence.Box) evidence.Box {
	switch t {
	case downward: // x' = y, y' = 1 − x
		return evidence.Box{X0: b.Y0, X1: b.Y1, Y0: 1 - b.X1, Y1: 1 - b.X0}
	case upward: // x' = 1 − y, y' = x
		return evidence.Box{X0: 1 - b.Y1, X1: 1 - b.Y0, Y0: b.X0, Y1: b.X1}
	}
	return b
}

// original maps a box from the upright frame back into the page's coordinates.
func (t turn) original(b evidence.Box) evidence.Box {
	switch t {
	case downward:
		return evidence.Box{X0: 1 - b.Y1, X1: 1 - b.Y0, Y0: b.X0, Y1: b.X1}
	case upward:
		return evidence.Box{X0: b.Y0, X1: b.Y1, Y0: 1 - b.X1, Y1: 1 - b.X0}
	}
	return b
}

// frame maps boxes between the page's coordinates and the frame the geometry is built
// in: upright (see turn), then straight. A photographed or scanned page stands a little
// askew, its lines falling (or rising) across it: over the width of a form the value at
// the right edge then stands a line lower than its label at the left, and lines and
// columns are read wrong. New and FromPage measure the slope of the lines and take it out.
type frame struct {
	turn turn
	// slope is how far a line drops per unit of page width in the upright frame (page
	// fractions; negative when it rises); 0 on a straight page.
	slope float64
	// aspect2 is (height/width)² of the upright page, 1 when the page's size is unknown:
	// a turn that drops a line by slope turns a column the other way by slope·aspect².
	aspect2 float64
}

// upright maps a box from the page's coordinates into the upright, straight frame: the
// box around its corners turned about the page's centre.
func (f frame) upright(b evidence.Box) evidence.Box {
	b = f.turn.upright(b)
	if f.slope == 0 {
		return b
	}
	s, a2 := f.slope, f.aspect2
	return aroundCorners(b, func(x, y float64) (float64, float64) {
		return x + s*a2*y, y - s*x
	})
}

// original maps a box from the upright, straight frame back into the page's coordinates.
func (f frame) original(b evidence.Box) evidence.Box {
	if f.slope != 0 {
		s, a2 := f.slope, f.aspect2
		det := 1 + s*s*a2
		b = aroundCorners(b, func(x, y float64) (float64, float64) {
			return (x - s*a2*y) / det, (y + s*x) / det
		})
	}
	return f.turn.original(b)
}

// aroundCorners is the box around b's corners mapped by m, about the page's centre,
// kept inside the page.
func aroundCorners(b evidence.Box, m func(x, y float64) (float64, float64)) evidence.Box {
	out := evidence.Box{X0: math.Inf(1), Y0: math.Inf(1), X1: math.Inf(-1), Y1: math.Inf(-1)}
	for _, c := range [4][2]float64{{b.X0, b.Y0}, {b.X1, b.Y0}, {b.X0, b.Y1}, {b.X1, b.Y1}} {
		x, y := m(c[0]-0.5, c[1]-0.5)
		out.X0, out.X1 = min(out.X0, x+0.5), max(out.X1, x+0.5)
		out.Y0, out.Y1 = min(out.Y0, y+0.5), max(out.Y1, y+0.5)
	}
	return clampBox(out)
}

// Skew is measured on the extractor's own lines (words sharing Block and Line) whose
// words run across at least minSkewRun of the page: the slope of a line through their
// centres. The median over at least minSkewLines such lines is the page's slope, taken
// out when it is at least minSkew (under a quarter of a degree nothing reads wrong) and
// at most maxSkew (beyond that the extractor's lines are no lines).
const (
	minSkewRun   = 0.08
	minSkewLines = 3
	minSkew      = 0.004
	maxSkew      = 0.15
)

// detectSlope is the median slope of the extractor's lines among upright words; 0 when
// too few lines run far enough or the slope is too small to matter.
func detectSlope(words []evidence.Word) float64 {
	lines := map[[2]int][]evidence.Box{}
	var order [][2]int
	for _, w := range words {
		if w.Line < 0 || strings.TrimSpace(w.Text) == "" {
			continue
		}
		k := [2]int{w.Block, w.Line}
		if _, ok := lines[k]; !ok {
			order = append(order, k)
		}
		lines[k] = append(lines[k], w.Box)
	}
	var slopes []float64
	for _, k := range order {
		if s, ok := lineSlope(lines[k]); ok {
			slopes = append(slopes, s)
		}
	}
	if len(slopes) < minSkewLines {
		return 0
	}
	s := median(slopes)
	if math.Abs(s) < minSkew || math.Abs(s) > maxSkew {
		return 0
	}
	return s
}

// lineSlope fits a straight line through the centres of a line's words (least squares);
// ok is false when they run across less than minSkewRun.
func lineSlope(bs []evidence.Box) (float64, bool) {
	if len(bs) < 2 {
		return 0, false
	}
	lo, hi, mx, my := math.Inf(1), math.Inf(-1), 0.0, 0.0
	for _, b := range bs {
		x := centreX(b)
		lo, hi = min(lo, x), max(hi, x)
		mx += x
		my += centreY(b)
	}
	if hi-lo < minSkewRun {
		return 0, false
	}
	n := float64(len(bs))
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for _, b := range bs {
		dx := centreX(b) - mx
		sxy += dx * (centreY(b) - my)
		sxx += dx * dx
	}
	return sxy / sxx, true
}
