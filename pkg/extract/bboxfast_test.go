package extract

import (
	"bytes"
	"os/exec"
	"reflect"
	"testing"
)

// popplerBBox is pdftotext -bbox-layout's output for pdf.
func popplerBBox(t testing.TB, pdf []byte) []byte {
	t.Helper()
	out, err := exec.Command("pdftotext", "-bbox-layout", "-enc", "UTF-8", writeTemp(t, "f.pdf", pdf), "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The fast reader reads poppler's output, the same pages as the XML reader, with every
// page limit.
func TestFastBBoxReadsPopplersOutput(t *testing.T) {
	needTools(t)
	for _, pdf := range [][]byte{makePDF(payslip), benchPDF(3), makePDF([][]string{{"M&M's <b> \"x\" 'y' Grüße €", "a\tb"}})} {
		out := popplerBBox(t, pdf)
		for _, max := range []int{1, 2, 500} {
			fast, ok := fastBBox(out, max)
			slow, err := parseBBox(bytes.NewReader(out), max)
			if !ok || err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("max %d: fast %v (%v), XML %v (%v)\n%s", max, fast, ok, slow, err, out)
			}
		}
	}
}

// Whatever the bytes, the fast reader reads the pages the XML reader reads, or leaves
// them to it.
func FuzzFastBBox(f *testing.F) {
	f.Add([]byte(bboxSample), 10)
	if err := CheckTools(); err == nil {
		out := popplerBBox(f, makePDF([][]string{{"M&M's <b> Grüße", "Netto 3.250,00 EUR"}, {"zwei"}}))
		f.Add(out, 1)
		f.Add(out, 5)
		f.Add(bytes.Replace(out, []byte("Netto"), []byte("Ne\rtto"), 1), 5)
		f.Add(bytes.Replace(out, []byte("Netto"), []byte("Ne&nbsp;tto"), 1), 5)
		f.Add(bytes.Replace(out, []byte("Netto"), []byte("Ne\x01tto"), 1), 5)
		f.Add(bytes.Replace(out, []byte("</line>"), []byte("</block>"), 1), 5)
		f.Add(bytes.Replace(out, []byte(`xMin="`), []byte(`xMin="nan`), 1), 5)
		f.Add(bytes.Replace(out, []byte("<flow>"), []byte("<flow><flow>"), 1), 5)
	}
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		max = max%20 + 1
		if max < 1 {
			max += 20
		}
		fast, ok := fastBBox(b, max)
		if !ok {
			return
		}
		slow, err := parseBBox(bytes.NewReader(b), max)
		if err != nil || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast %v, XML %v (%v)", fast, slow, err)
		}
	})
}
