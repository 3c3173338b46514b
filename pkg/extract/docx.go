package extract

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"
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
		res.Pages = append(res.Pages, newPage(i+1, p))
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
func wordText(ctx context.Context, r io.Reader) ([]string, error) {
	const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dec := xml.NewDecoder(r)
	var pages []string
	var cur strings.Builder
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
			case "br", "cr":
				page := false
				for _, a := range t.Attr {
					page = page || a.Name.Local == "type" && a.Value == "page"
				}
				if page {
					pages = append(pages, cur.String())
					cur.Reset()
				} else {
					cur.WriteByte('\n')
				}
			case "lastRenderedPageBreak":
				if strings.TrimSpace(cur.String()) != "" {
					pages = append(pages, cur.String())
					cur.Reset()
				}
			}
		case xml.EndElement:
			if t.Name.Space == w {
				switch t.Name.Local {
				case "t":
					inText = false
				case "p":
					cur.WriteByte('\n')
				}
			}
		case xml.CharData:
			if inText {
				cur.Write(t)
			}
		}
	}
	pages = append(pages, cur.String())
	return pages, nil
}
