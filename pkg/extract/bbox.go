package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/document"
)

// bboxPage is one page of pdftotext -bbox-layout: its size in points, its words with
// boxes relative to the page, and its lines in points, from which the page text is
// laid out (see layoutText).
type bboxPage struct {
	width, height float64
	words         []document.Word
	lines         []textLine
}

// textLine is one line of pdftotext's text: its words joined by single spaces and the
// box around them in points from the top-left corner.
type textLine struct {
	text           string
	x0, y0, x1, y1 float64
}

// Bounds of the bbox reader: the XHTML comes from a tool reading an outside file.
const (
	maxBBoxPages = 10000
	maxBBoxWords = 20000 // per page, with boxes; the page text keeps every word
	maxBBoxDepth = 16    // html/body/doc/page/flow/block/line/word
	maxWordBytes = 1024
)

var errBBox = errors.New("malformed pdftotext bbox output")

// parseBBox reads the XHTML of pdftotext -bbox-layout (html > body > doc > page >
// flow > block > line > word, each word with xMin, yMin, xMax, yMax in points from the
// top-left corner) token by token. Block is the flow's number on the page (poppler's
// flows are its reading-order columns) and Line a running number of the lines on the
// page. Pages past maxPages are skipped; words past maxBBoxWords on a page keep no box.
// A malformed document ends the reading with errBBox and the pages read so far.
func parseBBox(r io.Reader, maxPages int) ([]bboxPage, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := xml.NewDecoder(bytes.NewReader(xmlSafe(raw)))
	dec.Strict = false // poppler writes XHTML; HTML entities are tolerated
	dec.Entity = xml.HTMLEntity
	b := bboxBuilder{maxPages: maxPages}
	depth := 0
	inWord := false
	var word bytes.Buffer
	var wx0, wy0, wx1, wy1 float64
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b.end(), errBBox
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxBBoxDepth {
				return b.end(), errBBox
			}
			switch t.Name.Local {
			case "page":
				if !b.page(attrFloat(t, "width"), attrFloat(t, "height")) {
					return b.pages, nil
				}
			case "flow":
				b.flow++
			case "line":
				b.startLine()
			case "word":
				inWord = true
				word.Reset()
				wx0, wy0, wx1, wy1 = attrFloat(t, "xMin"), attrFloat(t, "yMin"), attrFloat(t, "xMax"), attrFloat(t, "yMax")
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "line" {
				b.ln.end(b.cur)
			}
			if t.Name.Local == "word" && inWord {
				inWord = false
				b.word(word.String(), wx0, wy0, wx1, wy1)
			}
		case xml.CharData:
			if inWord && word.Len()+len(t) <= maxWordBytes {
				word.Write(t)
			}
		}
	}
	return b.end(), nil
}

// bboxBuilder makes the pages of the elements of pdftotext's bbox XHTML as they come
// (from parseBBox or fastBBox).
type bboxBuilder struct {
	maxPages   int
	pages      []bboxPage
	cur        *bboxPage
	flow, line int
	ln         lineBuilder
}

// page starts a page of size w × h points; false when it is past maxPages, and the
// reading ends.
func (b *bboxBuilder) page(w, h float64) bool {
	b.ln.end(b.cur)
	if len(b.pages) >= min(b.maxPages, maxBBoxPages) {
		return false
	}
	b.pages = append(b.pages, bboxPage{width: w, height: h})
	b.cur = &b.pages[len(b.pages)-1]
	b.flow, b.line = -1, -1
	return true
}

func (b *bboxBuilder) startLine() {
	b.ln.end(b.cur)
	b.line++
}

// word adds a word with its text (before trimming) and box.
func (b *bboxBuilder) word(text string, x0, y0, x1, y1 float64) {
	text = strings.TrimSpace(text)
	if b.cur == nil || text == "" {
		return
	}
	b.ln.add(text, x0, y0, x1, y1)
	if len(b.cur.words) >= maxBBoxWords || b.cur.width <= 0 || b.cur.height <= 0 {
		return
	}
	b.cur.words = append(b.cur.words, document.Word{
		Text: text, Conf: 1, Block: max(b.flow, 0), Line: max(b.line, 0),
		Box: box(x0/b.cur.width, y0/b.cur.height, x1/b.cur.width, y1/b.cur.height),
	})
}

// end closes the reading: the pages read.
func (b *bboxBuilder) end() []bboxPage {
	b.ln.end(b.cur)
	return b.pages
}

// lineBuilder gathers the words of one line for the page text.
type lineBuilder struct {
	text strings.Builder
	l    textLine
	n    int
	// last is the box of the line's last word.
	last textLine
}

// joinedGap: a word that starts less than this share of its or the previous word's
// height after the previous word ends follows it without a space. Poppler breaks a
// word at such a gap only for a change of font: the "2" of "CO2" set as a subscript,
// the "Ref." of "HWBRef.", which pdftotext -layout prints joined.
const joinedGap = 0.1

func (b *lineBuilder) add(text string, x0, y0, x1, y1 float64) {
	if !finite(x0, y0, x1, y1) {
		x0, y0, x1, y1 = 0, 0, 0, 0
	}
	x0, x1 = min(x0, x1), max(x0, x1)
	y0, y1 = min(y0, y1), max(y0, y1)
	if b.n == 0 {
		b.l = textLine{x0: x0, y0: y0, x1: x1, y1: y1}
	} else {
		if x0-b.last.x1 >= joinedGap*max(y1-y0, b.last.y1-b.last.y0) {
			b.text.WriteByte(' ')
		}
		b.l = textLine{x0: min(b.l.x0, x0), y0: min(b.l.y0, y0), x1: max(b.l.x1, x1), y1: max(b.l.y1, y1)}
	}
	b.last = textLine{x0: x0, y0: y0, x1: x1, y1: y1}
	b.text.WriteString(text)
	b.n++
}

// end closes the line being gathered, if it has words, into page p.
func (b *lineBuilder) end(p *bboxPage) {
	if b.n > 0 && p != nil {
		b.l.text = b.text.String()
		p.lines = append(p.lines, b.l)
	}
	b.text.Reset()
	b.n = 0
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if v != v || v > 1e9 || v < -1e9 {
			return false
		}
	}
	return true
}

func attrFloat(e xml.StartElement, name string) float64 {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			if v, err := strconv.ParseFloat(a.Value, 64); err == nil {
				return v
			}
		}
	}
	return 0
}

// xmlSafe returns b with what XML forbids (control characters, invalid UTF-8,
// U+FFFE and U+FFFF) turned into spaces: poppler writes a PDF's text as it finds it,
// and one such character would otherwise end the reading of the whole document, and
// with it the page text. Clean input is returned as it is.
func xmlSafe(b []byte) []byte {
	var out []byte // nil until the first character to replace
	for i := 0; i < len(b); {
		if c := b[i]; c >= 0x20 && c < utf8.RuneSelf { // the common case, at a byte's cost
			if out != nil {
				out = append(out, c)
			}
			i++
			continue
		}
		size, bad := xmlUnsafe(b[i:])
		if bad && out == nil {
			out = append(make([]byte, 0, len(b)), b[:i]...)
		}
		switch {
		case bad:
			out = append(out, ' ')
		case out != nil:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

// xmlUnsafe reports the size of the character b starts with, and whether XML forbids it.
func xmlUnsafe(b []byte) (size int, bad bool) {
	r, size := rune(b[0]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRune(b)
	}
	return size, r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF
}

// bboxInfo reads the document information at the head of pdftotext -bbox-layout's
// XHTML (a title element, meta elements with name and content), as pdfinfo showed it:
// each value up to its first line break, dates in local time (see infoDate). An empty
// title is left out: pdftotext writes the element for a PDF without one too.
func bboxInfo(b []byte) map[string]string {
	meta := map[string]string{}
	if end := bytes.Index(b, []byte("</head>")); end >= 0 {
		b = b[:end]
	}
	dec := xml.NewDecoder(bytes.NewReader(xmlSafe(b)))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	put := func(k, v string) {
		v, _, _ = strings.Cut(v, "\n")
		if k == "CreationDate" || k == "ModDate" {
			v = infoDate(v)
		}
		if v = clean(strings.TrimSpace(v)); pdfInfoKeys[k] && (v != "" || k != "Title") {
			meta[k] = v
		}
	}
	var title *strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return meta
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "title":
				title = &strings.Builder{}
			case "meta":
				var name, content string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "name":
						name = a.Value
					case "content":
						content = a.Value
					}
				}
				put(name, content)
			}
		case xml.CharData:
			if title != nil && title.Len()+len(t) <= maxWordBytes {
				title.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "title" && title != nil {
				put("Title", title.String())
				title = nil
			}
		}
	}
}

// infoDate turns a date as pdftotext writes it (2018-02-06T09:27:34-01, or with Z or
// -01:30) into pdfinfo's form in local time (Tue Feb  6 10:27:34 2018 UTC); anything
// else is returned as it is.
func infoDate(s string) string {
	var y, mo, d, h, mi, sec int
	if len(s) < 20 || s[10] != 'T' {
		return s
	}
	if n, err := fmt.Sscanf(s[:19], "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec); n != 6 || err != nil {
		return s
	}
	offset := 0
	switch zone := s[19:]; {
	case zone == "Z":
	case len(zone) == 3 || len(zone) == 6 && zone[3] == ':':
		zh, err := strconv.Atoi(zone[1:3])
		if err != nil {
			return s
		}
		zm := 0
		if len(zone) == 6 {
			if zm, err = strconv.Atoi(zone[4:6]); err != nil {
				return s
			}
		}
		offset = zh*3600 + zm*60
		switch zone[0] {
		case '-':
			offset = -offset
		case '+':
		default:
			return s
		}
	default:
		return s
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.FixedZone("", offset))
	return t.In(time.Local).Format("Mon Jan _2 15:04:05 2006 MST")
}
