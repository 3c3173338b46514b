package reader

import (
	"testing"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// A statement's holder is read from the address window when no label names it; a
// heading, a company or a line before a booking is no holder.
func TestAddresseeName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"ING\nLukas Becker                 Kontoauszug September 2026\nLandsberger Str. 12          Datum 30.09.2026\n80339 München", "Lukas Becker"},
		{"Northshire Bank plc\nMiss Priya Sharma            Sort code 60-16-13\n14 Holbeck Lane, Leeds LS11 9AB", "Priya Sharma"},
		{"First Example Bank, N.A.\nJONAS SCHUSTER\n77 OAK AVENUE\nSPRINGFIELD IL 62704", "Jonas Schuster"},
		{"Sparkasse KölnBonn\nBuchung Valuta Vorgang Soll Haben\nKontostand am 30.09.2026 1.234,56", ""},
		{"Musterbau GmbH\nIndustriestraße 12\n50667 Köln", ""},
		{"Sparkasse\nAnna Maria Kowalski\n01.10. 01.10. Miete 950,00", ""},
	} {
		doc := &evidence.Document{UploadID: uuid.New(), Pages: []evidence.Page{{Number: 1, Text: tc.text}}}
		got, c, ok := addresseeName(newText(doc))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%q: %q %v, want %q", tc.text, got, ok, tc.want)
		}
		if ok && !doc.Verify(c) {
			t.Errorf("%q: citation %q does not verify", tc.text, c.Excerpt)
		}
	}
}

// Words of a form's labels make no name.
func TestReadNameRefusesLabelWords(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"Tax Code", "Pay Date", "Account Number", "NI Number"} {
		if got, ok := readName(s); ok {
			t.Errorf("%q read as the name %q", s, got)
		}
	}
	if got, ok := readName("Jörn Schröder"); !ok || got != "Jörn Schröder" {
		t.Errorf("a name refused: %q %v", got, ok)
	}
}
