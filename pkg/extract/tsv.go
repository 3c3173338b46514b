package extract

import (
	"strconv"
	"strings"

	"github.com/doceval/doceval/pkg/document"
)

// tsvPage is what one tesseract TSV run says about an image: the text laid out line by
// line, the words with their boxes relative to the image, and the mean confidence.
type tsvPage struct {
	text          string
	words         []document.Word
	width, height int // pixels, from the level-1 (page) row
	conf          float64
	// score weighs what was read confidently: the characters of words read with a
	// confidence of at least 0.5, each counted with its confidence. Two readings of
	// one page (rotated, at another resolution) are compared by it.
	score float64
}

// maxTSVWords bounds the words kept from one page (a page of noise can yield tens of
// thousands of "words"; a dense statement page has about two thousand).
const maxTSVWords = 20000

// parseTSV reads tesseract's TSV (level, page_num, block_num, par_num, line_num,
// word_num, left, top, width, height, conf, text). Words (level 5) are joined by spaces
// within a line and lines by newlines; boxes are normalized by the page (level 1) size.
// Block is tesseract's block, Line a running number of the (block, paragraph, line)
// triples on the page, so that words sharing both stand on one line.
func parseTSV(tsv string) tsvPage {
	var p tsvPage
	var b strings.Builder
	var sum float64
	confWords := 0
	lastLine := ""
	lineNo := -1
	type raw struct {
		w              document.Word
		l, t, wid, hei float64
	}
	var raws []raw
	for i, row := range strings.Split(tsv, "\n") {
		cols := strings.Split(row, "\t")
		if i == 0 || len(cols) < 12 {
			continue
		}
		if cols[0] == "1" && p.width == 0 {
			p.width, _ = strconv.Atoi(cols[8])
			p.height, _ = strconv.Atoi(cols[9])
			continue
		}
		if cols[0] != "5" {
			continue
		}
		word := strings.TrimSpace(cols[11])
		if word == "" {
			continue
		}
		line := cols[2] + "." + cols[3] + "." + cols[4]
		switch {
		case lastLine == "":
			lineNo++
		case line != lastLine:
			b.WriteByte('\n')
			lineNo++
		default:
			b.WriteByte(' ')
		}
		lastLine = line
		b.WriteString(word)
		conf := -1.0
		if c, err := strconv.ParseFloat(cols[10], 64); err == nil && c >= 0 {
			conf = min(c/100, 1)
			sum += conf
			confWords++
			if conf >= 0.5 {
				p.score += conf * float64(len([]rune(word)))
			}
		}
		if len(raws) >= maxTSVWords {
			continue
		}
		block, err := strconv.Atoi(cols[2])
		if err != nil {
			block = -1
		}
		l, errL := strconv.ParseFloat(cols[6], 64)
		t, errT := strconv.ParseFloat(cols[7], 64)
		wid, errW := strconv.ParseFloat(cols[8], 64)
		hei, errH := strconv.ParseFloat(cols[9], 64)
		if errL != nil || errT != nil || errW != nil || errH != nil {
			continue
		}
		raws = append(raws, raw{w: document.Word{Text: word, Conf: max(conf, 0), Block: block, Line: lineNo}, l: l, t: t, wid: wid, hei: hei})
	}
	p.text = b.String()
	if confWords > 0 {
		p.conf = sum / float64(confWords)
	}
	if p.width > 0 && p.height > 0 {
		W, H := float64(p.width), float64(p.height)
		p.words = make([]document.Word, 0, len(raws))
		for _, r := range raws {
			r.w.Box = box(r.l/W, r.t/H, (r.l+r.wid)/W, (r.t+r.hei)/H)
			p.words = append(p.words, r.w)
		}
	}
	return p
}

// box makes a Box with its corners in order and every coordinate in [0, 1].
func box(x0, y0, x1, y1 float64) document.Box {
	c := func(v float64) float64 {
		if !(v >= 0) { // NaN too
			return 0
		}
		return min(v, 1)
	}
	x0, y0, x1, y1 = c(x0), c(y0), c(x1), c(y1)
	return document.Box{X0: min(x0, x1), Y0: min(y0, y1), X1: max(x0, x1), Y1: max(y0, y1)}
}
