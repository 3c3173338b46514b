package extract

import "testing"

func TestPageLanguage(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"CARTE NATIONALE D'IDENTITÉ\nNom: DUPONT\nPrénom(s): MARIE\nNée le: 01.02.1970 à LYON": "fra",
		"CARTA DI IDENTITÀ\nCOGNOME ROSSI\nNOME ELENA\nLUOGO E DATA DI NASCITA\nSCADENZA":      "ita",
		"DOCUMENTO NACIONAL DE IDENTIDAD\nAPELLIDOS GARCÍA\nNOMBRE ANA\nFECHA DE NACIMIENTO":   "spa",
		"DOWÓD OSOBISTY\nNAZWISKO KOWALSKA\nIMIONA ANNA\nDATA URODZENIA":                       "pol",
		"Gehaltsabrechnung Oktober 2026\nGesamt-Brutto 3.200,00\nNetto-Verdienst 2.100,00":     "",
		"Bank statement\nOpening balance 1,234.56\nClosing balance 2,345.67 Direct debit":      "",
	} {
		if got := pageLanguage(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// A page in another language is read again only when its first reading is not already
// sure: a clean page keeps its one pass.
func TestRereadLanguage(t *testing.T) {
	t.Parallel()
	french := "CARTE NATIONALE D'IDENTITÉ\nNom: DUPONT\nPrénom(s): MARIE\nNée le: 01.02.1970 à LYON"
	if got := rereadLanguage(tsvPage{text: french, conf: 0.8}); got != "fra" {
		t.Errorf("a doubtful French reading: %q, want fra", got)
	}
	if got := rereadLanguage(tsvPage{text: french, conf: 0.95}); got != "" {
		t.Errorf("a sure French reading: %q, want none", got)
	}
}
