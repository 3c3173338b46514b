package samplepdf

import (
	"golang.org/x/text/unicode/norm"
)

// helveticaWidths are the advance widths of Helvetica for ASCII 32..126 in 1/1000 em
// (the standard font metrics), enough to right-align amounts.
var helveticaWidths = [95]int{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
}

// textWidth estimates the printed width of s in points: Courier is 600/1000 em per
// character; Helvetica uses the table, accented letters the width of their base
// letter, bold about 5 % wider.
func textWidth(s string, size float64, mono, bold bool) float64 {
	total := 0
	for _, r := range s {
		if mono {
			total += 600
			continue
		}
		if r == 'ß' {
			total += 611
			continue
		}
		if r == '€' {
			total += 556
			continue
		}
		if r >= 128 {
			if d := norm.NFD.String(string(r)); d != "" {
				r = []rune(d)[0]
			}
		}
		if r >= 32 && r <= 126 {
			total += helveticaWidths[r-32]
		} else {
			total += 556
		}
	}
	w := float64(total) * size / 1000
	if bold && !mono {
		w *= 1.05
	}
	return w
}
