package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/doceval/doceval/pkg/document"
)

// bboxPage is one page of pdftotext -bbox-layout: its size in points and its words
// with boxes relative to the page.
type bboxPage struct {
	width, height float64
	words         []document.Word
}

// Bounds of the bbox reader: the XHTML comes from a tool reading an outside file.
const (
	maxBBoxPages = 10000
	maxBBoxWords = 20000 // per page
	maxBBoxDepth = 16    // html/body/doc/page/flow/block/line/word
	maxWordBytes = 1024
)

var errBBox = errors.New("malformed pdftotext bbox output")

// parseBBox reads the XHTML of pdftotext -bbox-layout (html > body > doc > page >
// flow > block > line > word, each word with xMin, yMin, xMax, yMax in points from the
// top-left corner) token by token. Block is the flow's number on the page (poppler's
// flows are its reading-order columns) and Line a running number of the lines on the
// page. Pages past maxPages are skipped; words past maxBBoxWords on a page are dropped.
func parseBBox(r io.Reader, maxPages int) ([]bboxPage, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false // poppler writes XHTML; HTML entities are tolerated
	dec.Entity = xml.HTMLEntity
	var pages []bboxPage
	var cur *bboxPage
	flow, line := -1, -1
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
			return pages, errBBox
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxBBoxDepth {
				return pages, errBBox
			}
			switch t.Name.Local {
			case "page":
				if len(pages) >= min(maxPages, maxBBoxPages) {
					return pages, nil
				}
				pages = append(pages, bboxPage{width: attrFloat(t, "width"), height: attrFloat(t, "height")})
				cur = &pages[len(pages)-1]
				flow, line = -1, -1
			case "flow":
				flow++
			case "line":
				line++
			case "word":
				inWord = true
				word.Reset()
				wx0, wy0, wx1, wy1 = attrFloat(t, "xMin"), attrFloat(t, "yMin"), attrFloat(t, "xMax"), attrFloat(t, "yMax")
			}
		case xml.EndElement:
			depth--
			if t.Name.Local != "word" || !inWord {
				continue
			}
			inWord = false
			text := strings.TrimSpace(word.String())
			if cur == nil || text == "" || len(cur.words) >= maxBBoxWords || cur.width <= 0 || cur.height <= 0 {
				continue
			}
			cur.words = append(cur.words, document.Word{
				Text: text, Conf: 1, Block: max(flow, 0), Line: max(line, 0),
				Box: box(wx0/cur.width, wy0/cur.height, wx1/cur.width, wy1/cur.height),
			})
		case xml.CharData:
			if inWord && word.Len()+len(t) <= maxWordBytes {
				word.Write(t)
			}
		}
	}
	return pages, nil
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
