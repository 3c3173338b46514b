package store

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/document"
)

// pageInsertParams is page p of upload id as a row: the size NULL when unknown, the
// words encoded by encodePageWords.
func pageInsertParams(id uuid.UUID, p document.Page) db.UploadPageInsertParams {
	return db.UploadPageInsertParams{
		UploadID: id, Page: int32(p.Number), Text: p.Text, Chars: int32(p.Chars), Ocr: p.OCR, OcrConfidence: p.OCRConfidence,
		Width: pageSize(p.Width), Height: pageSize(p.Height), Words: encodePageWords(p.Words),
	}
}

// pageFromRow is a stored page as extraction made it.
func pageFromRow(r db.UploadPage) document.Page {
	p := document.Page{
		Number: int(r.Page), Text: r.Text, Chars: int(r.Chars), OCR: r.Ocr, OCRConfidence: r.OcrConfidence,
		Words: decodePageWords(r.Words),
	}
	if r.Width != nil && r.Height != nil {
		p.Width, p.Height = *r.Width, *r.Height
	}
	return p
}

// encodePageWords stores words compactly: a JSON array of [text, x0, y0, x1, y1, conf,
// block, line] rows, numbers rounded to four decimals (a tenth of a point on an A4
// page). Nil for no words, so the column stays NULL.
func encodePageWords(words []document.Word) []byte {
	if len(words) == 0 {
		return nil
	}
	b := make([]byte, 0, len(words)*48)
	num := func(v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0 // JSON has no such numbers; the extractor never gives them
		}
		b = strconv.AppendFloat(b, math.Round(v*1e4)/1e4, 'f', -1, 64)
	}
	b = append(b, '[')
	for i, w := range words {
		if i > 0 {
			b = append(b, ',')
		}
		text, _ := json.Marshal(w.Text)
		b = append(b, '[')
		b = append(b, text...)
		for _, v := range []float64{w.Box.X0, w.Box.Y0, w.Box.X1, w.Box.Y1, w.Conf} {
			b = append(b, ',')
			num(v)
		}
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(w.Block), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(w.Line), 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// pageSize is a page dimension as stored: NULL when unknown.
func pageSize(v float64) *float64 {
	if v <= 0 {
		return nil
	}
	return &v
}

// decodePageWords reads the words as encodePageWords stored them. A row that does not
// have that shape is skipped; a column that is not such an array (NULL included) gives
// nil, and the page is read from its text alone.
func decodePageWords(raw []byte) []document.Word {
	if len(raw) == 0 {
		return nil
	}
	var rows [][]json.RawMessage
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil
	}
	words := make([]document.Word, 0, len(rows))
	for _, r := range rows {
		if len(r) != 8 {
			continue
		}
		var w document.Word
		var nums [5]float64
		ok := json.Unmarshal(r[0], &w.Text) == nil
		for i := range nums {
			ok = ok && json.Unmarshal(r[1+i], &nums[i]) == nil
		}
		ok = ok && json.Unmarshal(r[6], &w.Block) == nil && json.Unmarshal(r[7], &w.Line) == nil
		if !ok {
			continue
		}
		w.Box = document.Box{X0: nums[0], Y0: nums[1], X1: nums[2], Y1: nums[3]}
		w.Conf = nums[4]
		words = append(words, w)
	}
	if len(words) == 0 {
		return nil
	}
	return words
}
