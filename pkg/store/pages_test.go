package store

import (
	"reflect"
	"testing"

	"github.com/doceval/doceval/pkg/document"
)

// The words column of rows already stored reads back as the words extraction made, and
// writing those words gives the same column again: the stored form does not drift.
func TestStoredPageWordsStayReadable(t *testing.T) {
	t.Parallel()
	const stored = `[["Netto",0.1176,0.0537,0.1946,0.0724,1,0,1],["3.250,00",0,0.0537,1,0.0724,0.91,0,1],["EUR",0.6536,0.0537,0.7353,0.0724,0.8,-1,-1]]`
	want := []document.Word{
		{Text: "Netto", Box: document.Box{X0: 0.1176, Y0: 0.0537, X1: 0.1946, Y1: 0.0724}, Conf: 1, Block: 0, Line: 1},
		{Text: "3.250,00", Box: document.Box{X0: 0, Y0: 0.0537, X1: 1, Y1: 0.0724}, Conf: 0.91, Block: 0, Line: 1},
		{Text: "EUR", Box: document.Box{X0: 0.6536, Y0: 0.0537, X1: 0.7353, Y1: 0.0724}, Conf: 0.8, Block: -1, Line: -1},
	}
	got := decodePageWords([]byte(stored))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	if again := encodePageWords(got); string(again) != stored {
		t.Errorf("encoded again as %s, want %s", again, stored)
	}
	// Rows of another shape are skipped; a column of another shape reads as no words.
	if got := decodePageWords([]byte(`[["x",1],["Netto",0.1176,0.0537,0.1946,0.0724,1,0,1]]`)); !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("with a bad row: %+v", got)
	}
	for _, col := range []string{"", "null", `{"words":[]}`, `[["x",1]]`} {
		if got := decodePageWords([]byte(col)); got != nil {
			t.Errorf("%q: %+v, want nil", col, got)
		}
	}
}
