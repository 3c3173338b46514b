package extract

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/document"
)

// Limits of the DOCX reader: a zip bomb is refused before it can fill memory or disk.
const (
	maxZipEntries     = 10000
	maxDocumentXML    = 64 << 20 // uncompressed bytes of the main part
	maxCompressionRat = 200      // uncompressed / compressed of the main part
	maxXMLDepth       = 256      // Word documents nest a few dozen levels
)

const officeDocumentRel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"

// docx reads a Word document's main part, found through _rels/.rels, and splits it into
// pages at explicit and last-rendered page breaks.
func docx(ctx context.Context, filePath string) (*Result, error) {
	zr, err := zip.OpenReader(filePath)
	if err != nil {
		return nil, fail(CodeCorrupt, "the DOCX is not a readable zip archive")
	}
	defer zr.Close()
	if len(zr.File) > maxZipEntries {
		return nil, fail(CodeCorrupt, "the DOCX has too many entries")
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[strings.TrimPrefix(f.Name, "/")] = f
	}
	main, err := mainPart(files)
	if err != nil {
		return nil, err
	}
	f := files[main]
	if f.UncompressedSize64 > maxDocumentXML || f.CompressedSize64 > 0 && f.UncompressedSize64/f.CompressedSize64 > maxCompressionRat {
		return nil, fail(CodeCorrupt, "the DOCX's document part is implausibly large (a zip bomb?)")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fail(CodeCorrupt, "the DOCX's document part cannot be opened")
	}
	defer rc.Close()
	// The declared size may lie: stop reading past the limit whatever the header says.
	pages, err := wordText(ctx, &capped{r: rc, left: maxDocumentXML})
	if err != nil {
		return nil, err
	}
	res := &Result{PageCount: len(pages), Metadata: map[string]string{}}
	for i, p := range pages {
		page := newPage(i+1, p.text)
		page.Width, page.Height = a4Width, a4Height
		page.Words = wordsInText(page.Text, p.words())
		res.Pages = append(res.Pages, page)
	}
	return res, nil
}

var errTooBig = errors.New("too big")

type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// mainPart finds the officeDocument target of the package relationships.
func mainPart(files map[string]*zip.File) (string, error) {
	rels, ok := files["_rels/.rels"]
	if !ok {
		return "", fail(CodeCorrupt, "the DOCX has no package relationships")
	}
	rc, err := rels.Open()
	if err != nil {
		return "", fail(CodeCorrupt, "the DOCX relationships cannot be read")
	}
	defer rc.Close()
	var doc struct {
		Rels []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.NewDecoder(&capped{r: rc, left: 1 << 20}).Decode(&doc); err != nil {
		return "", fail(CodeCorrupt, "the DOCX relationships are malformed")
	}
	for _, r := range doc.Rels {
		if r.Type == officeDocumentRel {
			target := strings.TrimPrefix(path.Clean("/"+r.Target), "/")
			if _, ok := files[target]; ok {
				if !strings.HasPrefix(target, "word/") {
					return "", fail(CodeMismatch, "the Office document is not a Word document")
				}
				return target, nil
			}
		}
	}
	return "", fail(CodeCorrupt, "the DOCX has no main document part")
}

// wordText walks WordprocessingML: w:t text, w:tab, w:br and paragraph ends as
// newlines, page breaks (w:br type=page, w:lastRenderedPageBreak) as page boundaries.
// Alongside the text it lays the page out as a geometric reader expects a printed
// page: one line per paragraph, one line per table row with the cells side by side.
func wordText(ctx context.Context, r io.Reader) ([]docxPage, error) {
	const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dec := xml.NewDecoder(r)
	var pages []docxPage
	var cur strings.Builder
	var lay docxLayout
	newPage := func() {
		lay.flushSegment()
		pages = append(pages, docxPage{text: cur.String(), lines: lay.lines})
		cur.Reset()
		lay.lines = nil
	}
	inText := false
	depth := 0
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if depth > maxXMLDepth {
			return nil, fail(CodeCorrupt, "the DOCX's document part is nested implausibly deep")
		}
		tok, err := dec.Token()
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errTooBig) {
			return nil, fail(CodeCorrupt, "the DOCX's document part is implausibly large (a zip bomb?)")
		}
		if err != nil {
			return nil, fail(CodeCorrupt, "the DOCX's document part is malformed")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != w {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				cur.WriteByte('\t')
				lay.seg.WriteByte('\t')
			case "br", "cr":
				page := false
				for _, a := range t.Attr {
					page = page || a.Name.Local == "type" && a.Value == "page"
				}
				if page {
					newPage()
				} else {
					cur.WriteByte('\n')
					lay.lineBreak()
				}
			case "lastRenderedPageBreak":
				if strings.TrimSpace(cur.String()) != "" {
					newPage()
				}
			case "tbl":
				lay.startTable()
			case "gridCol":
				lay.gridCol(t)
			case "tr":
				lay.startRow()
			case "tc":
				lay.startCell()
			case "gridSpan":
				lay.gridSpan(t)
			}
		case xml.EndElement:
			if t.Name.Space == w {
				switch t.Name.Local {
				case "t":
					inText = false
				case "p":
					cur.WriteByte('\n')
					lay.endParagraph()
				case "tc":
					lay.endCell()
				case "tr":
					lay.endRow()
				case "tbl":
					lay.endTable()
				}
			}
		case xml.CharData:
			if inText {
				cur.Write(t)
				if lay.seg.Len() < maxWordBytes*64 {
					lay.seg.Write(t)
				}
			}
		}
	}
	newPage()
	return pages, nil
}

// docxPage is one page of a Word document: its text and its pseudo-layout.
type docxPage struct {
	text  string
	lines []docxLine
}

// docxLine is a paragraph (one cell spanning the text width) or a table row.
type docxLine struct {
	block int
	cells []docxCell
}

type docxCell struct {
	x0, x1 float64 // fractions of the text width
	text   string
}

// docxLayout follows the tables of the outermost level; a nested table's text belongs
// to the outer cell it stands in.
type docxLayout struct {
	lines  []docxLine
	seg    strings.Builder // the paragraph (or cell) text being read
	blocks int
	tables int // nesting depth
	grid   []float64
	cells  []docxCell
	spans  []int
	span   int
	inCell bool
}

func (l *docxLayout) flushSegment() {
	if l.tables > 0 {
		return // a cell's text ends with the cell
	}
	if strings.TrimSpace(l.seg.String()) != "" {
		l.lines = append(l.lines, docxLine{block: l.blocks, cells: []docxCell{{x0: 0, x1: 1, text: l.seg.String()}}})
		l.blocks++
	}
	l.seg.Reset()
}

func (l *docxLayout) lineBreak() {
	if l.tables > 0 {
		l.seg.WriteByte(' ')
		return
	}
	l.flushSegment()
}

func (l *docxLayout) endParagraph() {
	if l.tables > 0 {
		l.seg.WriteByte(' ')
		return
	}
	l.flushSegment()
}

func (l *docxLayout) startTable() {
	l.tables++
	if l.tables == 1 {
		l.flushSegment()
		l.grid = nil
	}
}

func (l *docxLayout) endTable() {
	if l.tables == 1 {
		l.blocks++
	}
	l.tables = max(l.tables-1, 0)
}

func (l *docxLayout) gridCol(e xml.StartElement) {
	if l.tables == 1 && len(l.grid) < 64 {
		w, _ := strconv.ParseFloat(attr(e, "w"), 64)
		l.grid = append(l.grid, max(w, 0))
	}
}

func (l *docxLayout) startRow() {
	if l.tables == 1 {
		l.cells, l.spans = nil, nil
	}
}

func (l *docxLayout) startCell() {
	if l.tables == 1 {
		l.seg.Reset()
		l.span = 1
		l.inCell = true
	}
}

func (l *docxLayout) gridSpan(e xml.StartElement) {
	if l.tables == 1 && l.inCell {
		if n, err := strconv.Atoi(attr(e, "val")); err == nil && n >= 1 && n <= 64 {
			l.span = n
		}
	}
}

func (l *docxLayout) endCell() {
	if l.tables != 1 || !l.inCell {
		return
	}
	if len(l.cells) < 64 {
		l.cells = append(l.cells, docxCell{text: l.seg.String()})
		l.spans = append(l.spans, l.span)
	}
	l.seg.Reset()
	l.inCell = false
}

// endRow places the row's cells side by side: by the table grid's column widths when
// the grid covers the row, otherwise in equal shares in cell order.
func (l *docxLayout) endRow() {
	if l.tables != 1 || len(l.cells) == 0 {
		return
	}
	cols := 0
	for _, s := range l.spans {
		cols += s
	}
	total := 0.0
	for _, g := range l.grid {
		total += g
	}
	useGrid := len(l.grid) >= cols && total > 0
	at := 0
	x := 0.0
	for i := range l.cells {
		var width float64
		if useGrid {
			for _, g := range l.grid[at : at+l.spans[i]] {
				width += g
			}
			width /= total
		} else {
			width = float64(l.spans[i]) / float64(cols)
		}
		l.cells[i].x0, l.cells[i].x1 = x, min(x+width, 1)
		x += width
		at += l.spans[i]
	}
	l.lines = append(l.lines, docxLine{block: l.blocks, cells: l.cells})
	l.cells, l.spans = nil, nil
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// The pseudo-page: A4 in points with 72-point margins, lines at most docxLeading apart
// (closer when a page holds more lines than fit), characters docxAdvance wide unless a
// cell is too narrow for its text, tabs stopping every docxTabStop.
const (
	a4Width, a4Height = 595.28, 841.89
	docxMargin        = 72.0
	docxLeading       = 14.0
	docxAdvance       = 5.5
	docxTabStop       = 36.0
)

// words places the page's words: one line per docxLine, each cell's words from the
// cell's left edge on.
func (p docxPage) words() []document.Word {
	if len(p.lines) == 0 {
		return nil
	}
	textW := a4Width - 2*docxMargin
	leading := min(docxLeading, (a4Height-2*docxMargin)/float64(len(p.lines)))
	var out []document.Word
	for li, line := range p.lines {
		top := docxMargin + float64(li)*leading
		for _, c := range line.cells {
			x0 := docxMargin + c.x0*textW
			cellW := (c.x1 - c.x0) * textW
			adv := docxAdvance
			if n := utf8.RuneCountInString(c.text); n > 0 && float64(n)*adv > cellW {
				adv = cellW / float64(n)
			}
			col := 0.0 // points from the cell's left edge
			start := -1.0
			var word strings.Builder
			emit := func() {
				if word.Len() > 0 {
					out = append(out, document.Word{
						Text: word.String(), Conf: 1, Block: line.block, Line: li,
						Box: box((x0+start)/a4Width, top/a4Height, (x0+col)/a4Width, (top+leading*0.8)/a4Height),
					})
					word.Reset()
				}
			}
			for _, r := range c.text {
				switch r {
				case ' ', '\n':
					emit()
					col += adv
				case '\t':
					emit()
					col = (float64(int(col/docxTabStop)) + 1) * docxTabStop
				default:
					if word.Len() == 0 {
						start = col
					}
					word.WriteRune(r)
					col += adv
				}
				col = min(col, cellW)
			}
			emit()
		}
	}
	return out
}
