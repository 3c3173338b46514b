package extract

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/doceval/doceval/pkg/document"
)

const bboxSample = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml">
<head></head><body><doc>
  <page width="612.000000" height="792.000000">
    <flow><block xMin="72" yMin="20.5" xMax="371.6" yMax="57.3">
      <line xMin="72" yMin="20.5" xMax="305" yMax="35.3">
        <word xMin="72.000000" yMin="20.512000" xMax="211.632000" yMax="35.312000">Gehaltsabrechnung</word>
        <word xMin="216.080000" yMin="20.512000" xMax="264.992000" yMax="35.312000">M&amp;M&apos;s</word>
      </line>
      <line><word xMin="72" yMin="42.5" xMax="119.1" yMax="57.3">Netto</word><word xMin="-5" yMin="42.5" xMax="9999" yMax="57.3">3.250,00</word></line>
    </block></flow>
    <flow><block><line><word xMin="400" yMin="42.5" xMax="450" yMax="57.3">EUR</word></line></block></flow>
  </page>
  <page width="612" height="792"></page>
  <page width="0" height="0"><flow><block><line><word xMin="1" yMin="1" xMax="2" yMax="2">lost</word></line></block></flow></page>
</doc></body></html>`

func TestParseBBox(t *testing.T) {
	pages, err := parseBBox(strings.NewReader(bboxSample), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || pages[0].width != 612 || pages[0].height != 792 || len(pages[1].words) != 0 || len(pages[2].words) != 0 {
		t.Fatalf("pages %+v", pages)
	}
	want := []document.Word{
		{Text: "Gehaltsabrechnung", Box: document.Box{X0: 72.0 / 612, Y0: 20.512 / 792, X1: 211.632 / 612, Y1: 35.312 / 792}, Conf: 1, Block: 0, Line: 0},
		{Text: "M&M's", Box: document.Box{X0: 216.08 / 612, Y0: 20.512 / 792, X1: 264.992 / 612, Y1: 35.312 / 792}, Conf: 1, Block: 0, Line: 0},
		{Text: "Netto", Box: document.Box{X0: 72 / 612.0, Y0: 42.5 / 792, X1: 119.1 / 612, Y1: 57.3 / 792}, Conf: 1, Block: 0, Line: 1},
		{Text: "3.250,00", Box: document.Box{X0: 0, Y0: 42.5 / 792, X1: 1, Y1: 57.3 / 792}, Conf: 1, Block: 0, Line: 1}, // clamped to the page
		{Text: "EUR", Box: document.Box{X0: 400 / 612.0, Y0: 42.5 / 792, X1: 450 / 612.0, Y1: 57.3 / 792}, Conf: 1, Block: 1, Line: 2},
	}
	got := pages[0].words
	if len(got) != len(want) {
		t.Fatalf("words %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Text != w.Text || g.Block != w.Block || g.Line != w.Line || g.Conf != w.Conf ||
			math.Abs(g.Box.X0-w.Box.X0)+math.Abs(g.Box.Y0-w.Box.Y0)+math.Abs(g.Box.X1-w.Box.X1)+math.Abs(g.Box.Y1-w.Box.Y1) > 1e-12 {
			t.Errorf("word %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Pages past the document's count are not read.
	if pages, _ := parseBBox(strings.NewReader(bboxSample), 1); len(pages) != 1 {
		t.Errorf("%d pages, want 1", len(pages))
	}
}

// A control character or a broken UTF-8 sequence in a PDF's text, which XML forbids,
// costs its own character, not the pages' text.
func TestParseBBoxForbiddenCharacters(t *testing.T) {
	doc := bboxPageXML([]bboxTestWord{word("Netto\x01", 50, 100), word("3.250,00\xff", 90, 100), word("EUR\uFFFE", 150, 100)})
	pages, err := parseBBox(strings.NewReader(doc), 1)
	if err != nil || len(pages) != 1 {
		t.Fatalf("pages %+v, %v", pages, err)
	}
	if text := layoutText(pages[0].lines); text != "Netto 3.250,00 EUR" {
		t.Errorf("text %q", text)
	}
	if clean := []byte("<x>Grüße\t\n</x>"); &xmlSafe(clean)[0] != &clean[0] {
		t.Error("clean input copied")
	}
}

func TestWordsInText(t *testing.T) {
	words := []document.Word{{Text: "Netto"}, {Text: "3.250,00"}, {Text: "fi"}, {Text: "Netto"}, {Text: "gone"}, {Text: "a\x00b"}}
	got := wordsInText("Netto 3.250,00 EUR\nfi ab", words)
	var texts []string
	for _, w := range got {
		texts = append(texts, w.Text)
	}
	if strings.Join(texts, "|") != "Netto|3.250,00|fi|Netto|ab" {
		t.Errorf("kept %q", texts)
	}
	if wordsInText("x", nil) != nil || wordsInText("x", []document.Word{{Text: "y"}}) != nil {
		t.Error("no words must stay nil")
	}
}

func inUnit(b document.Box) bool {
	return 0 <= b.X0 && b.X0 <= b.X1 && b.X1 <= 1 && 0 <= b.Y0 && b.Y0 <= b.Y1 && b.Y1 <= 1
}

func FuzzBBox(f *testing.F) {
	f.Add([]byte(bboxSample))
	f.Add([]byte(`<page width="1" height="1"><word xMin="NaN" yMin="-Inf" xMax="+Inf" yMax="1e308">x</word></page>`))
	f.Add([]byte(`<page><page><page><word>`))
	f.Add([]byte(bboxPageXML([]bboxTestWord{word("CO", 50, 100), {"2", 60, 104, 63, 110}}, []bboxTestWord{word("Kopie", 55, 100.5)}, []bboxTestWord{{"x\x01y", 1e300, -5, 0, 0}})))
	f.Fuzz(func(t *testing.T, b []byte) {
		pages, _ := parseBBox(bytes.NewReader(b), 50)
		if len(pages) > 50 {
			t.Fatalf("%d pages", len(pages))
		}
		for _, p := range pages {
			if len(p.words) > maxBBoxWords {
				t.Fatalf("%d words", len(p.words))
			}
			// Every word stands in the page text laid out from the same run.
			text := layoutText(p.lines)
			for _, w := range p.words {
				if w.Text == "" || !inUnit(w.Box) || w.Conf != 1 || !strings.Contains(text, w.Text) {
					t.Fatalf("word %+v, page text %q", w, text)
				}
			}
		}
	})
}

func FuzzTSV(f *testing.F) {
	f.Add("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n1\t1\t0\t0\t0\t0\t0\t0\t200\t100\t-1\t\n5\t1\t1\t1\t1\t1\t10\t10\t40\t10\t90\tNetto\n5\t1\t1\t1\t2\t1\t10\t30\t30\t10\t80\tEUR\n")
	f.Add("h\n1\t1\t0\t0\t0\t0\t0\t0\t0\t-3\t-1\t\n5\t1\tx\t1\t1\t1\tNaN\t10\t1e309\t10\t900\tA B\n")
	f.Fuzz(func(t *testing.T, tsv string) {
		r := parseTSV(tsv)
		if r.conf < 0 || r.conf > 1 || r.score < 0 {
			t.Fatalf("conf %v score %v", r.conf, r.score)
		}
		for _, w := range r.words {
			if !inUnit(w.Box) || w.Conf < 0 || w.Conf > 1 || !strings.Contains(r.text, w.Text) {
				t.Fatalf("word %+v of text %q", w, r.text)
			}
		}
		p := scanReading{tsv: r}.page()
		for _, w := range p.Words {
			if !strings.Contains(p.Text, w.Text) {
				t.Fatalf("word %q not in page text %q", w.Text, p.Text)
			}
		}
	})
}

func FuzzEXIF(f *testing.F) {
	f.Add(withEXIFOrientation([]byte{0xFF, 0xD8, 0xFF, 0xD9}, 6, binary.BigEndian))
	f.Add(withEXIFOrientation([]byte{0xFF, 0xD8, 0xFF, 0xD9}, 3, binary.LittleEndian))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 'E', 'x', 'i', 'f', 0, 0, 'I', 'I'})
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := exifOrientation(bytes.NewReader(b)); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
