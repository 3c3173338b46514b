package extract

import (
	"bufio"
	"fmt"
	imgpkg "image"
	"image/draw"
	"io"
	"os"
	"path/filepath"

	xdraw "golang.org/x/image/draw"
)

// pageImage is an image file handed to tesseract, decoded (to gray) only when the
// front end needs its pixels: to turn it or to cut out its machine-readable zone.
type pageImage struct {
	path string
	gray *imgpkg.Gray
}

func (p *pageImage) load() (*imgpkg.Gray, error) {
	if p.gray != nil {
		return p.gray, nil
	}
	f, err := os.Open(p.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	if head, _ := r.Peek(2); string(head) == "P5" {
		p.gray, err = readPGM(r)
		return p.gray, err
	}
	m, _, err := imgpkg.Decode(r)
	if err != nil {
		return nil, err
	}
	p.gray = toGray(m)
	return p.gray, nil
}

// readPGM reads back a PGM as writePGM writes it (the front end's own files).
func readPGM(r *bufio.Reader) (*imgpkg.Gray, error) {
	var w, h, maxVal int
	if _, err := fmt.Fscanf(r, "P5\n%d %d\n%d\n", &w, &h, &maxVal); err != nil || maxVal != 255 || w <= 0 || h <= 0 || w*h > maxImagePixels {
		return nil, fmt.Errorf("not a PGM written by the OCR front end")
	}
	g := imgpkg.NewGray(imgpkg.Rect(0, 0, w, h))
	if _, err := io.ReadFull(r, g.Pix); err != nil {
		return nil, err
	}
	return g, nil
}

// turned returns the image turned by deg degrees clockwise (90, 180 or 270), written
// to dir as name.pgm.
func (p *pageImage) turned(dir, name string, deg int) (*pageImage, error) {
	g, err := p.load()
	if err != nil {
		return nil, err
	}
	o := map[int]int{90: 6, 180: 3, 270: 8}[deg]
	out := &pageImage{path: filepath.Join(dir, name+".pgm"), gray: orient(g, o)}
	if err := writePGM(out.path, out.gray); err != nil {
		return nil, err
	}
	return out, nil
}

func toGray(m imgpkg.Image) *imgpkg.Gray {
	if g, ok := m.(*imgpkg.Gray); ok {
		return g
	}
	b := m.Bounds()
	g := imgpkg.NewGray(imgpkg.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Bounds(), m, b.Min, draw.Src)
	return g
}

// orient applies an EXIF orientation (1–8) to g: the stored pixels become the image as
// it is meant to be seen. 6 turns 90° clockwise, 3 by 180°, 8 by 270°; 2, 4, 5 and 7
// mirror as well.
func orient(g *imgpkg.Gray, o int) *imgpkg.Gray {
	if o < 2 || o > 8 {
		return g
	}
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := imgpkg.NewGray(imgpkg.Rect(0, 0, dw, dh))
	for y := range dh {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+dw]
		for x := range dw {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			row[x] = g.Pix[g.PixOffset(b.Min.X+sx, b.Min.Y+sy)]
		}
	}
	return dst
}

// cropRows returns the rows [y0, y1) of g.
func cropRows(g *imgpkg.Gray, y0, y1 int) *imgpkg.Gray {
	b := g.Bounds()
	return g.SubImage(imgpkg.Rect(b.Min.X, max(y0, b.Min.Y), b.Max.X, min(y1, b.Max.Y))).(*imgpkg.Gray)
}

// writePGM writes g as a binary PGM: tesseract reads it, and writing it costs no
// compression (a turned 300 dpi page is about nine megapixels).
func writePGM(path string, g *imgpkg.Gray) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	b := g.Bounds()
	fmt.Fprintf(w, "P5\n%d %d\n255\n", b.Dx(), b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := g.PixOffset(b.Min.X, y)
		w.Write(g.Pix[off : off+b.Dx()])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// scaled returns g enlarged by factor (> 1) with Catmull-Rom interpolation: tesseract
// reads small print far better at a larger x-height, and a smooth enlargement keeps the
// strokes' edges that its binarization needs.
func scaled(g *imgpkg.Gray, factor float64) *imgpkg.Gray {
	b := g.Bounds()
	dst := imgpkg.NewGray(imgpkg.Rect(0, 0, int(float64(b.Dx())*factor+0.5), int(float64(b.Dy())*factor+0.5)))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), g, b, draw.Src, nil)
	return dst
}

// A band of a page holds print when its darkest minInk pixels stand at least
// inkContrast gray levels below its paper (the 99th percentile of its grays). A blank
// scan's noise stays within about 20 levels of the paper; print, even a faded photo of
// a card, lies 40 and more below it. minInk is a few characters of the smallest zone
// tesseract can read (about 40 pixels of ink each).
const (
	inkContrast = 40
	minInk      = 300
	// inkMargin: the pixels of paper left around the ink when a band is cut to it.
	inkMargin = 24
)

// inkBounds returns the part of g that holds its print, with a margin of inkMargin
// pixels, and false when g holds none (see inkContrast).
func inkBounds(g *imgpkg.Gray) (imgpkg.Rectangle, bool) {
	b := g.Bounds()
	var hist [256]int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := g.PixOffset(b.Min.X, y)
		for _, v := range g.Pix[off : off+b.Dx()] {
			hist[v]++
		}
	}
	// dark: the gray of the minInk-th darkest pixel; paper: the 99th percentile.
	dark, paper, n := -1, 0, 0
	for v, c := range hist {
		n += c
		if dark < 0 && n >= minInk {
			dark = v
		}
		if n*100 >= 99*b.Dx()*b.Dy() {
			paper = v
			break
		}
	}
	if dark < 0 || paper-dark < inkContrast {
		return imgpkg.Rectangle{}, false
	}
	ink := imgpkg.Rectangle{Min: b.Max, Max: b.Min}
	limit := uint8(paper - inkContrast)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := g.PixOffset(b.Min.X, y)
		for x, v := range g.Pix[off : off+b.Dx()] {
			if v <= limit {
				ink.Min.X, ink.Max.X = min(ink.Min.X, b.Min.X+x), max(ink.Max.X, b.Min.X+x+1)
				ink.Min.Y, ink.Max.Y = min(ink.Min.Y, y), max(ink.Max.Y, y+1)
			}
		}
	}
	return ink.Inset(-inkMargin).Intersect(b), true
}
