package reader

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/layout"
)

// withWords gives every page of doc words laid out as its text lines stand: a
// monospaced page, every rune 0.009 wide, every line 0.03 below the last (closer on a
// page of more than 30 lines, so that all fit), as a text PDF printed from a form looks
// to pdftotext. Two spaces between words are a cell gap.
func withWords(doc *evidence.Document) *evidence.Document {
	const cw = 0.009
	for p := range doc.Pages {
		var ws []evidence.Word
		lines := strings.Split(doc.Pages[p].Text, "\n")
		pitch := min(0.03, 0.92/float64(len(lines)))
		for r, l := range lines {
			y0 := 0.05 + float64(r)*pitch
			rs := []rune(l)
			for c := 0; c < len(rs); {
				if unicode.IsSpace(rs[c]) {
					c++
					continue
				}
				e := c
				for e < len(rs) && !unicode.IsSpace(rs[e]) {
					e++
				}
				ws = append(ws, evidence.Word{Text: string(rs[c:e]), Conf: 1, Block: -1, Line: r,
					Box: evidence.Box{X0: 0.02 + float64(c)*cw, Y0: y0, X1: 0.02 + float64(e)*cw, Y1: y0 + pitch*2/3}})
				c = e
			}
		}
		doc.Pages[p].Words = ws
	}
	return doc
}

// requireCited: every fact's citation verifies and, the page having words, has regions
// inside the page.
func requireCited(t *testing.T, doc *evidence.Document, fs []evidence.Fact) {
	t.Helper()
	for _, f := range fs {
		require.True(t, doc.Verify(f.Citation), "%s: %q", f.Key, f.Citation.Excerpt)
		require.NotEmpty(t, f.Citation.Regions, "%s: %q", f.Key, f.Citation.Excerpt)
		for _, r := range f.Citation.Regions {
			require.True(t, r.X >= 0 && r.Y >= 0 && r.X+r.Width <= 1 && r.Y+r.Height <= 1, "%s: %+v", f.Key, r)
		}
	}
}

const idCardFront = `PERSONALAUSWEIS   IDENTITY CARD   CARTE D'IDENTITÉ          T22000129
Name / Surname / Nom
MUSTERMANN
Geburtsname / Name at birth / Nom de naissance
GABLER
Vornamen / Given names / Prénoms
ERIKA
Geburtstag / Date of birth / Date de naissance     Staatsangehörigkeit / Nationality / Nationalité
12.08.1964                                         DEUTSCH
Geburtsort / Place of birth / Lieu de naissance
BERLIN
Gültig bis / Date of expiry / Date d'expiration
01.12.2031`

// The German ID card's trilingual labels with the value under them: the surname is
// the line under "Name / Surname / Nom", never "Nom".
func TestGeometryIDCardLabelsBelow(t *testing.T) {
	t.Parallel()
	for _, geometry := range []bool{true, false} {
		doc := document("id_card", idCardFront)
		if geometry {
			withWords(doc)
		}
		fs := Facts(doc, []string{"id_card"})
		f := factsByKey(fs)
		require.Equal(t, []any{"Erika Mustermann"}, f["applicant_full_name"], "geometry %v", geometry)
		require.Equal(t, []any{time.Date(1964, 8, 12, 0, 0, 0, 0, time.UTC)}, f["applicant_date_of_birth"])
		require.Equal(t, []any{time.Date(2031, 12, 1, 0, 0, 0, 0, time.UTC)}, f["id_document_expiry_date"])
		if geometry {
			requireCited(t, doc, fs)
		}
	}
}

// A DATEV payslip's personnel row: the headings "Geb.-Datum" and "Eintritt" stand in
// one row and their values in the row below; each value belongs to the heading above
// it, not to the next label in the text.
func TestGeometryHeaderRowPayslip(t *testing.T) {
	t.Parallel()
	doc := withWords(document("salary_statement", `ACME GmbH · Industriestraße 4 · 50667 Köln
Abrechnung der Brutto/Netto-Bezüge für Mai 2025
Pers.-Nr.   Name                 Geb.-Datum    Eintritt     StKl   Konf
00123       Max Mustermann       01.01.1980    01.04.2015   1      rk
Gesamtbrutto                                               3.500,00
Netto-Verdienst                                            2.301,45
Auszahlungsbetrag                                          2.301,45`))
	fs := Facts(doc, []string{"salary_statement"})
	f := factsByKey(fs)
	require.Equal(t, []any{time.Date(2015, 4, 1, 0, 0, 0, 0, time.UTC)}, f["employment_start_date"])
	require.Equal(t, []any{time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)}, f["applicant_date_of_birth"])
	requireCited(t, doc, fs)
}

// Citations made from text lines get the regions of their words too.
func TestGeometryLineCitationsCarryRegions(t *testing.T) {
	t.Parallel()
	doc := withWords(document("", `Sparkasse KölnBonn          Kontoauszug 10/2025
Kontoinhaber: Björn Weiß
IBAN: DE89 3704 0044 0532 0130 00
Auszugszeitraum 01.10.2025 - 31.10.2025
Buchung  Wert    Vorgang / Verwendungszweck            Betrag EUR
                 Kontostand alt am 30.09.2025           1.000,00 H
01.10.   01.10.  Dauerauftrag Miete                       950,00 S
28.10.   28.10.  Gutschrift Lohn/Gehalt ACME GMBH       2.712,33 H
                 Kontostand neu am 31.10.2025           2.762,33 H`))
	fs := Facts(doc, []string{"bank_statement"})
	require.NotEmpty(t, fs)
	tx := &text{doc: doc, geo: map[int]*layout.Page{}}
	for _, f := range fs {
		require.True(t, doc.Verify(f.Citation), f.Key)
		require.NotEmpty(t, tx.withRegions(f.Citation).Regions, "%s: %q", f.Key, f.Citation.Excerpt)
	}
}

// A label whose line stands twice on the page is found at the right place: the second
// "Datum" line's value is the second date.
func TestGeometryRepeatedLabelLine(t *testing.T) {
	t.Parallel()
	doc := withWords(document("", "Geburtsdatum\n01.01.1980\nGeburtsdatum\n02.02.1990"))
	tx := newText(doc)
	hits := tx.find("geburtsdatum")
	require.Len(t, hits, 2)
	v, c, ok := valueAfter(tx, hits[1], readDate)
	require.True(t, ok)
	require.Equal(t, time.Date(1990, 2, 2, 0, 0, 0, 0, time.UTC), v)
	require.Len(t, c.Regions, 2)
	require.InDelta(t, 0.11, c.Regions[0].Y, 1e-9)
	require.Equal(t, 2, occurrences("a b a b", "a b"))
	require.Zero(t, occurrences("Geburtsdatum x", "Datum"))
}

// Words in a flow order unlike the text's (a label column, then a value column) still
// pair and cite by position.
func TestGeometryFlowOrderWords(t *testing.T) {
	t.Parallel()
	doc := withWords(document("salary_statement", "PAYSLIP 10/2025\nGross pay        5,618.40\nNet pay          3,574.31"))
	ws := doc.Pages[0].Words
	doc.Pages[0].Words = []evidence.Word{ws[0], ws[1], ws[2], ws[3], ws[5], ws[6], ws[4], ws[7]}
	tx := newText(doc)
	h := firstHit(tx.find("net pay"))
	v, c, ok := valueAfter(tx, h, readMoney)
	require.True(t, ok)
	require.Equal(t, int64(357431), v.Cents)
	require.Equal(t, "Net pay 3,574.31", c.Excerpt)
	require.Len(t, c.Regions, 1)
	require.InDelta(t, 0.11, c.Regions[0].Y, 1e-9)
}
