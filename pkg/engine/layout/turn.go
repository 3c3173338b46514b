package layout

import "github.com/doceval/doceval/pkg/engine/evidence"

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
