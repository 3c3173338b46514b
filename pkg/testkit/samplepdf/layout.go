package samplepdf

import (
	"fmt"
	"strings"
)

// Line prefixes that TextLayout understands (they never occur in document text). One
// may follow another: Large+Bold is a bold heading.
const (
	Bold  = "\x02" // Helvetica-Bold
	Mono  = "\x03" // Courier (with Bold: Courier-Bold), as machine-readable zones print
	Large = "\x04" // 1.5 × the font size, with room above
	Small = "\x05" // 0.8 × the font size
)

// Layout is the page geometry of TextLayout. Zero fields take defaults.
type Layout struct {
	FontSize float64 // points (default 10)
	Leading  float64 // distance of baselines (default 1.3 × FontSize)
	Left     float64 // left margin in points (default 56)
	Top      float64 // baseline of the first line (default 780)
	// Tabs are the column positions, in points from the left margin, of the cells of a
	// line split at "\t" (the first cell starts at the margin). A negative position
	// right-aligns the cell at its absolute value, as amounts are printed.
	Tabs []float64
	// Width and Height of the page in points (default A4, 595 × 842).
	Width, Height float64
}

func (l Layout) withDefaults() Layout {
	if l.FontSize <= 0 {
		l.FontSize = 10
	}
	if l.Leading <= 0 {
		l.Leading = 1.3 * l.FontSize
	}
	if l.Width <= 0 || l.Height <= 0 {
		l.Width, l.Height = 595, 842
	}
	if l.Left <= 0 {
		l.Left = 56
	}
	if l.Top <= 0 {
		l.Top = l.Height - 62
	}
	return l
}

// TextLayout returns a PDF with one page per entry: each line at the layout's font size
// and leading, its tab-separated cells at the layout's columns, prefixes (Bold, Mono,
// Large, Small) setting the font. Text is encoded in Windows-1252 with a few extra
// glyphs (Ş, ş, Ğ, ğ, İ); a line that does not fit the page runs off its bottom.
func TextLayout(pages [][]string, layout Layout) []byte {
	l := layout.withDefaults()
	enc := fontEncoding()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>", "",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding 7 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding 7 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding 7 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding 7 0 R >>",
		enc,
	}
	const first = 8
	kids := make([]string, len(pages))
	for i, lines := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", first+2*i)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R /F4 6 0 R >> >> /Contents %d 0 R >>", l.Width, l.Height, first+2*i+1),
			stream("", pageContent(lines, l)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return Assemble(objs)
}

func pageContent(lines []string, l Layout) string {
	var b strings.Builder
	b.WriteString("BT\n")
	y := l.Top
	for i, line := range lines {
		font, size, mono := "/F1", l.FontSize, false
		for {
			switch {
			case strings.HasPrefix(line, Bold):
				font = "/F2"
				if mono {
					font = "/F4"
				}
			case strings.HasPrefix(line, Mono):
				font, mono = "/F3", true
				if strings.Contains(line, Bold) {
					font = "/F4"
				}
			case strings.HasPrefix(line, Large):
				size = 1.5 * l.FontSize
			case strings.HasPrefix(line, Small):
				size = 0.8 * l.FontSize
			default:
				goto done
			}
			line = line[1:]
		}
	done:
		if i > 0 {
			y -= l.Leading * size / l.FontSize
			if size > l.FontSize {
				y -= l.Leading / 2
			}
		}
		for c, cell := range strings.Split(line, "\t") {
			if cell == "" {
				continue
			}
			x := l.Left
			if c > 0 && c-1 < len(l.Tabs) {
				tab := l.Tabs[c-1]
				if tab < 0 {
					x = l.Left - tab - textWidth(cell, size, mono, font == "/F2")
				} else {
					x = l.Left + tab
				}
			}
			fmt.Fprintf(&b, "%s %g Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj\n", font, size, x, y, escape(winAnsi(cell, true)))
		}
	}
	b.WriteString("ET")
	return b.String()
}
