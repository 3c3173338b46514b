package document

import (
	"encoding/json"
	"testing"
)

// A page's JSON is the extractor service's wire form (ingest and the console on one
// version, the extractor on another, during a rolling upgrade): renaming a field here
// must fail this test rather than silently drop the field on the other side.
func TestPageJSONIsTheExtractorsWire(t *testing.T) {
	t.Parallel()
	conf := 0.5
	p := Page{
		Number: 2, Text: "Net pay 1,234.00", Chars: 14, OCR: true, OCRConfidence: &conf, Width: 595, Height: 842,
		Words: []Word{{Text: "Net", Box: Box{X0: 0.1, Y0: 0.2, X1: 0.15, Y1: 0.22}, Conf: 0.9, Block: 1, Line: 3}},
	}
	const want = `{"Number":2,"Text":"Net pay 1,234.00","Chars":14,"OCR":true,"OCRConfidence":0.5,"Width":595,"Height":842,` +
		`"Words":[{"Text":"Net","Box":{"X0":0.1,"Y0":0.2,"X1":0.15,"Y1":0.22},"Conf":0.9,"Block":1,"Line":3}]}`
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("page JSON\n got %s\nwant %s", got, want)
	}
	var back Page
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != want {
		t.Fatalf("round trip\n got %s\nwant %s", again, want)
	}
}
