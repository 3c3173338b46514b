package layout

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// grid lays out text lines as words on a monospaced page: every rune is 0.009 of the
// page wide, every line 0.03 below the last. One space between words keeps them in a
// cell; two or more make a new cell.
func grid(lines ...string) []evidence.Word {
	const cw, pitch = 0.009, 0.03
	var out []evidence.Word
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
			out = append(out, evidence.Word{
				Text: string(rs[c:e]),
				Box:  evidence.Box{X0: 0.02 + float64(c)*cw, Y0: y0, X1: 0.02 + float64(e)*cw, Y1: y0 + 0.02},
				Conf: 0.9, Block: -1, Line: -1,
			})
			c = e
		}
	}
	return out
}

func fold(re string) Matcher { return Regexp(regexp.MustCompile(`(?i)` + re)) }

func first(t *testing.T, p *Page, re string) Candidate {
	t.Helper()
	cs := p.Lookup(fold(re))
	require.NotEmpty(t, cs, re)
	return cs[0]
}

// A German ID card's front: trilingual labels with the value under them, two labels on
// one row (a header row), the card number to the right of the first label.
func TestIDCardLabelsBelow(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Name / Surname / Nom                          T22000129",
		"MUSTERMANN",
		"Geburtsname / Name at birth / Nom de naissance",
		"GABLER",
		"Vornamen / Given names / Prénoms",
		"ERIKA",
		"Geburtstag / Date of birth / Date de naissance   Staatsangehörigkeit / Nationality",
		"12.08.1964                                       DEUTSCH",
		"Gültig bis / Date of expiry / Date d'expiration",
		"01.12.2031",
	))
	c := first(t, p, `surname`)
	require.Equal(t, "MUSTERMANN", c.Text, "never a translation of the label")
	require.Equal(t, Below, c.How)
	require.Equal(t, "Name / Surname / Nom", c.Label.Text())
	require.Equal(t, "GABLER", first(t, p, `geburtsname`).Text)
	require.Equal(t, "ERIKA", first(t, p, `given names`).Text)
	dob := first(t, p, `date of birth`)
	require.Equal(t, "12.08.1964", dob.Text)
	require.Equal(t, HeaderRow, dob.How)
	require.Equal(t, "DEUTSCH", first(t, p, `nationality`).Text)
	require.Equal(t, "01.12.2031", first(t, p, `date of expiry`).Text)
}

// A DATEV payslip's personnel row: headings in one row, values in the row below.
func TestHeaderRowPairsColumnByColumn(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Pers.-Nr.  Name              Geburtsdatum  Eintritt    StKl  Konf",
		"00123      Max Mustermann    01.01.1980    01.04.2015  1     rk",
	))
	for re, want := range map[string]string{`eintritt`: "01.04.2015", `geburtsdatum`: "01.01.1980", `name`: "Max Mustermann", `stkl`: "1"} {
		c := first(t, p, re)
		require.Equal(t, want, c.Text, re)
		require.Equal(t, HeaderRow, c.How, re)
	}
	// The right neighbour of a heading is the next heading, never its value.
	for _, c := range p.Lookup(fold(`geburtsdatum`)) {
		require.NotEqual(t, "Eintritt", c.Text)
	}
}

// A summary table labels its rows at the left, under no heading: the row's label is not
// the first column's value.
func TestHeaderRowSkipsRowLabel(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"          GROSS PAY        TOTAL DEDUCTIONS        NET PAY",
		"CURRENT   4,788.00         1,261.73                3,526.27",
	))
	require.Equal(t, "4,788.00", first(t, p, `gross pay`).Text)
	require.Equal(t, "3,526.27", first(t, p, `net pay`).Text)
}

// A form: values to the right of their labels, in the label's cell or at a tab stop.
func TestSameLineValues(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Name:        Müller           Vorname:   Max",
		"Geburtsdatum: 01.01.1980",
		"Bruttobezüge                               3.500,00",
	))
	c := first(t, p, `name:`)
	require.Equal(t, "Müller", c.Text)
	require.Equal(t, SameLine, c.How)
	require.Equal(t, "Max", first(t, p, `vorname`).Text)
	require.Equal(t, "01.01.1980", first(t, p, `geburtsdatum`).Text)
	require.Equal(t, "3.500,00", first(t, p, `bruttobez`).Text)
	// A label whose right neighbour is another label has no value on its line.
	q := New(grid("Name          Vorname:", "              Max"))
	for _, c := range q.Lookup(fold(`^name`)) {
		require.NotEqual(t, "Vorname:", c.Text)
	}
}

func TestFindNeedsWordStart(t *testing.T) {
	t.Parallel()
	p := New(grid("Vorname:  Max"))
	require.Empty(t, p.Find(fold(`name`)))
}

// A value under a lone label continues over the next close lines (an address).
func TestBelowContinues(t *testing.T) {
	t.Parallel()
	p := New(grid("Anschrift / Address / Adresse", "D-51147 KÖLN", "HEIDESTRASSE 17"))
	cs := p.Lookup(fold(`address`))
	require.Len(t, cs, 1, "Values offers one line")
	cs = p.Under(p.Find(fold(`address`))[0], 3)
	require.Len(t, cs, 2, "the lines under it, the label-less end of the page")
	require.Equal(t, "D-51147 KÖLN", cs[0].Text)
	require.Equal(t, "D-51147 KÖLN HEIDESTRASSE 17", cs[1].Text)
	require.Equal(t, 2, cs[1].Lines)
}

func TestSkewedLinesStayTogether(t *testing.T) {
	t.Parallel()
	ws := grid(
		"Kontoinhaber  Max Mustermann  IBAN  DE89370400440532013000",
		"Kontoauszug  Nr. 3  vom 31.03.2024  Seite 1 von 2  Blatt 7",
	)
	// Rotate by about one degree: every word moves down with its x.
	for i := range ws {
		dy := 0.017 * ws[i].Box.X0
		ws[i].Box.Y0 += dy
		ws[i].Box.Y1 += dy
	}
	p := New(ws)
	require.Len(t, p.Lines, 2)
	require.Equal(t, "Kontoinhaber Max Mustermann IBAN DE89370400440532013000", p.Text(p.Lines[0].Words))
	require.Len(t, p.Lines[0].Segments, 4)
}

func TestBlocks(t *testing.T) {
	t.Parallel()
	ws := grid("Erika Mustermann", "Heidestraße 17", "51147 Köln")
	more := grid("", "", "", "", "", "", "Sehr geehrte Frau Mustermann,")
	p := New(append(ws, more...))
	require.Len(t, p.Blocks, 2)
	require.Equal(t, []int{0, 1, 2}, p.Blocks[0].Lines)
}

func TestTableByHeader(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Buchung     Verwendungszweck              Betrag",
		"02.03.      Miete März                   -950,00",
		"15.03.      Gehalt ACME GmbH            3.200,00",
		"",
		"",
		"",
		"Bitte prüfen Sie Ihren Kontoauszug sorgfältig auf Richtigkeit.",
	))
	tab := p.TableAt(0)
	require.Len(t, tab.Columns, 3)
	require.Len(t, tab.Rows, 2, "the gap ends the table")
	require.Equal(t, "Gehalt ACME GmbH", p.Cell(tab, 1, 1))
	require.Equal(t, "3.200,00", p.Cell(tab, 1, 2))
	require.Equal(t, "02.03.", p.Cell(tab, 0, 0))
	require.Empty(t, p.Cell(tab, 5, 0))
}

func TestPairsGeneric(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Name / Surname / Nom",
		"MUSTERMANN",
		"Arbeitgeber:   ACME GmbH",
	))
	got := map[string]string{}
	for _, pr := range p.Pairs() {
		got[pr.Label.Text()] = pr.Value.Text
	}
	require.Equal(t, map[string]string{"Name / Surname / Nom": "MUSTERMANN", "Arbeitgeber:": "ACME GmbH"}, got)
}

func document(lines ...string) (*evidence.Document, *Page) {
	ws := grid(lines...)
	doc := &evidence.Document{UploadID: uuid.New(), Pages: []evidence.Page{{Number: 1, Text: strings.Join(lines, "\n"), Words: ws}}}
	return doc, New(ws)
}

func TestCiteQuotesLinesAndBoxesWords(t *testing.T) {
	t.Parallel()
	doc, p := document(
		"PERSONALAUSWEIS",
		"Name / Surname / Nom",
		"MUSTERMANN",
		"Vornamen / Given names / Prénoms",
		"ERIKA",
	)
	c := first(t, p, `surname`)
	cit, ok := p.Cite(doc, 1, c.Label.Words, c.Words)
	require.True(t, ok)
	require.True(t, doc.Verify(cit))
	require.Equal(t, "Name / Surname / Nom MUSTERMANN", cit.Excerpt)
	require.Len(t, cit.Regions, 2, "one region per line")
	require.InDelta(t, c.Label.seg.Box.Y0, cit.Regions[0].Y, 1e-9)
	require.InDelta(t, c.Box.X0, cit.Regions[1].X, 1e-9)

	// Label and value far apart in the text: the value alone.
	doc2, p2 := document("Name / Surname / Nom", "a", "b", "c", "d", "MUSTERMANN")
	l := p2.Find(fold(`surname`))[0]
	cit, ok = p2.Cite(doc2, 1, l.Words, p2.Lines[5].Words)
	require.True(t, ok)
	require.Equal(t, "MUSTERMANN", cit.Excerpt)
	require.True(t, doc2.Verify(cit))

	_, ok = p2.Cite(doc2, 1, l.Words, nil)
	require.False(t, ok)
}

func TestLocateAndRegionsFor(t *testing.T) {
	t.Parallel()
	doc, _ := document("Kontoauszug Nr. 3", "Alter Saldo  1.234,56 EUR", "Neuer Saldo  2.000,00 EUR")
	page := &doc.Pages[0]
	idx := Locate(page.Words, "1.234,56 EUR Neuer Saldo")
	require.Equal(t, []int{5, 6, 7, 8}, idx)
	rs := RegionsFor(page, "Alter Saldo 1.234,56 EUR\nNeuer Saldo")
	require.Len(t, rs, 2)
	require.Equal(t, 1, rs[0].Page)
	// Not a word start: no match.
	require.Nil(t, Locate(page.Words, "lter Saldo"))
	// Tokens with a word skipped.
	require.Equal(t, []int{3, 5}, Locate(page.Words, "Alter 1.234,56"))
	require.Nil(t, RegionsFor(&evidence.Page{}, "x"))
}

func FuzzNew(f *testing.F) {
	f.Add(int64(1), 30)
	f.Add(int64(7), 3)
	f.Fuzz(func(t *testing.T, seed int64, n int) {
		n = max(0, min(n, 300))
		rng := rand.New(rand.NewPCG(uint64(seed), 0))
		texts := []string{"Name", "/", "Surname", ":", "01.01.1980", "3.500,00", "Eintritt", "", "Nom", "ß"}
		var ws []evidence.Word
		for range n {
			coord := func() float64 { return rng.Float64()*1.4 - 0.2 }
			ws = append(ws, evidence.Word{Text: texts[rng.IntN(len(texts))], Box: evidence.Box{X0: coord(), Y0: coord(), X1: coord(), Y1: coord()}, Conf: rng.Float64(),
				Block: rng.IntN(3) - 1, Line: rng.IntN(4) - 1})
		}
		p := New(ws)
		// Straightened with any page size (a slope measured on the extractor's lines).
		sized := FromPage(&evidence.Page{Words: ws, Width: rng.Float64() * 3000, Height: rng.Float64() * 3000})
		require.LessOrEqual(t, len(strings.Split(sized.LayoutText(), "\n")), 2*len(sized.Lines)+1)
		for _, r := range sized.RegionsFor(1, "Name") {
			require.True(t, r.X >= 0 && r.Y >= 0 && r.X+r.Width <= 1+1e-9 && r.Y+r.Height <= 1+1e-9, "%+v", r)
		}
		in := func(b evidence.Box) {
			for _, v := range []float64{b.X0, b.Y0, b.X1, b.Y1} {
				require.True(t, v >= 0 && v <= 1, "box %v out of the page", b)
			}
			require.LessOrEqual(t, b.X0, b.X1)
			require.LessOrEqual(t, b.Y0, b.Y1)
		}
		for _, l := range p.Lines {
			in(l.Box)
			for _, s := range l.Segments {
				in(s.Box)
			}
		}
		for _, pr := range p.Pairs() {
			in(pr.Value.Box)
		}
		for _, c := range p.Lookup(fold(`name|surname|eintritt`)) {
			in(c.Box)
		}
		for li := range p.Lines {
			p.TableAt(li)
		}
		for _, r := range Regions(1, ws) {
			in(evidence.Box{X0: r.X, Y0: r.Y, X1: r.X + r.Width, Y1: r.Y + r.Height})
		}
		Locate(ws, "Name / Surname")
		p.LocateNth("Name / Surname", 1)
		// Citations of what the page pairs verify against a text made of its words.
		var text []string
		for _, w := range ws {
			text = append(text, w.Text)
		}
		doc := &evidence.Document{UploadID: uuid.New(), Pages: []evidence.Page{{Number: 1, Text: strings.Join(text, "\n"), Words: ws}}}
		for _, c := range p.Lookup(fold(`name|surname|eintritt`)) {
			if cit, ok := p.Cite(doc, 1, c.Label.Words, c.Words); ok {
				require.True(t, doc.Verify(cit), "%q", cit.Excerpt)
				for _, r := range cit.Regions {
					in(evidence.Box{X0: r.X, Y0: r.Y, X1: r.X + r.Width, Y1: r.Y + r.Height})
				}
			}
		}
	})
}

// Two cells on a line are a label and its value, not two headings, even when the
// next line looks alike.
func TestTwoCellsAreLabelAndValue(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Arbeitgeber      ACME GmbH",
		"Anschrift        Hauptstraße 5",
		"Name             Max Mustermann",
		"Geburtsdatum     01.01.1980",
	))
	require.Equal(t, "ACME GmbH", first(t, p, `arbeitgeber`).Text)
	c := first(t, p, `name`)
	require.Equal(t, "Max Mustermann", c.Text)
	require.Equal(t, SameLine, c.How)
}

func TestLocateNth(t *testing.T) {
	t.Parallel()
	ws := grid("Datum 01.02.2024", "Datum 03.04.2024")
	require.Equal(t, []int{0}, LocateNth(ws, "Datum", 0))
	require.Equal(t, []int{2}, LocateNth(ws, "Datum", 1))
	require.Nil(t, LocateNth(ws, "Datum", 2))
}

// A value whose text stands twice on the page is quoted where its words stand, with
// the label just before it.
func TestCiteRepeatedText(t *testing.T) {
	t.Parallel()
	doc, p := document("Geburtsdatum", "01.01.1980", "Geburtsdatum", "01.01.1980")
	c := p.Lookup(fold(`geburtsdatum`))[1]
	cit, ok := p.Cite(doc, 1, c.Label.Words, c.Words)
	require.True(t, ok)
	require.Equal(t, "Geburtsdatum 01.01.1980", cit.Excerpt)
	require.InDelta(t, 0.11, cit.Regions[0].Y, 1e-9)
	require.Equal(t, 2, nthIndex("a b ab b", "b", 0))
	require.Equal(t, 7, nthIndex("a b ab b", "b", 1), "not inside a word")
	require.Equal(t, -1, nthIndex("a b ab b", "b", 2))
}

// A label with its value under it and another column's text far to its right.
func TestFarRightCellIsAnotherColumn(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Arbeitgeber                                      Personalnummer",
		"ACME GmbH                                        00123",
	))
	require.Equal(t, "ACME GmbH", first(t, p, `arbeitgeber`).Text)
	q := New(grid("Arbeitgeber      ACME GmbH", "Musterweg 1"))
	require.Equal(t, "ACME GmbH", first(t, q, `arbeitgeber`).Text)
}

// pdftotext -bbox-layout gives words in flow order, a label column before its value
// column; the page text has them line by line. Excerpts of the text are found in the
// order of the page's lines.
func TestLocateInLineOrder(t *testing.T) {
	t.Parallel()
	ws := grid("Gross pay        5,618.40", "Net pay          3,574.31")
	flow := []evidence.Word{ws[0], ws[1], ws[3], ws[4], ws[2], ws[5]}
	p := New(flow)
	idx := p.LocateNth("Gross pay 5,618.40", 0)
	require.Equal(t, []int{0, 1, 4}, idx)
	require.Equal(t, []int{2, 3, 5}, p.LocateNth("Net pay 3,574.31", 0))
	require.Len(t, p.RegionsFor(1, "Gross pay 5,618.40 Net pay"), 2)
	require.Nil(t, p.RegionsFor(1, "Tax 12,00"))
}

// OCR joins an ID card's label and value into one cell: the translations end where the
// value in capitals (or with digits) starts.
func TestTranslationsEndAtValue(t *testing.T) {
	t.Parallel()
	p := New(grid(
		"Name/S urname/Nom WEIRMULLER",
		"Gültig bis/Date of expiry/Date d'expiration 23.06.2028",
		"Vornamen / Given names / Prénoms",
		"JÖRDIS",
	))
	c := first(t, p, `urname`)
	require.Equal(t, "WEIRMULLER", c.Text)
	require.Equal(t, SameLine, c.How)
	require.Equal(t, "23.06.2028", first(t, p, `date of expiry`).Text)
	require.Equal(t, "JÖRDIS", first(t, p, `given names`).Text)
}

// A page read sideways (its words standing on end, following each other down the page)
// is turned upright: a value under its label is found, and its regions are given in the
// page's own coordinates, where the words are.
func TestSidewaysPageIsTurnedUpright(t *testing.T) {
	t.Parallel()
	straight := []evidence.Word{
		{Text: "Vornamen", Box: evidence.Box{X0: 0.30, Y0: 0.40, X1: 0.40, Y1: 0.42}, Conf: 1, Block: 1, Line: 1},
		{Text: "/", Box: evidence.Box{X0: 0.41, Y0: 0.40, X1: 0.42, Y1: 0.42}, Conf: 1, Block: 1, Line: 1},
		{Text: "Given", Box: evidence.Box{X0: 0.43, Y0: 0.40, X1: 0.49, Y1: 0.42}, Conf: 1, Block: 1, Line: 1},
		{Text: "names", Box: evidence.Box{X0: 0.50, Y0: 0.40, X1: 0.57, Y1: 0.42}, Conf: 1, Block: 1, Line: 1},
		{Text: "JONAS", Box: evidence.Box{X0: 0.30, Y0: 0.44, X1: 0.37, Y1: 0.46}, Conf: 1, Block: 1, Line: 2},
		{Text: "Geburtstag", Box: evidence.Box{X0: 0.30, Y0: 0.50, X1: 0.42, Y1: 0.52}, Conf: 1, Block: 2, Line: 3},
		{Text: "15.03.1985", Box: evidence.Box{X0: 0.30, Y0: 0.54, X1: 0.42, Y1: 0.56}, Conf: 1, Block: 2, Line: 4},
	}
	for _, tc := range []struct {
		name string
		turn turn
	}{{"quarter clockwise", downward}, {"quarter counter-clockwise", upward}} {
		sideways := make([]evidence.Word, len(straight))
		for i, w := range straight {
			w.Box = tc.turn.original(w.Box)
			sideways[i] = w
		}
		p := New(sideways)
		if p.frame.turn != tc.turn {
			t.Fatalf("%s: turn %d, want %d", tc.name, p.frame.turn, tc.turn)
		}
		cands := p.Lookup(fold(`vornamen`))
		if len(cands) == 0 || p.Text(cands[0].Words) != "JONAS" {
			t.Fatalf("%s: %+v", tc.name, cands)
		}
		regs := regions(1, p.pick(cands[0].Words), p.frame)
		want := sideways[4].Box
		if len(regs) != 1 || math.Abs(regs[0].X-want.X0) > 1e-9 || math.Abs(regs[0].Y-want.Y0) > 1e-9 {
			t.Fatalf("%s: regions %+v, want the sideways box %+v", tc.name, regs, want)
		}
	}
	if New(straight).frame.turn != upright {
		t.Fatal("an upright page was turned")
	}
}

// A watermark OCR put beside a label ("EXEMPLAR" across a card, several times the
// label's height) is not its value: the name under the label is.
func TestOverprintIsNoValue(t *testing.T) {
	t.Parallel()
	ws := grid("Surname", "TRAVELER")
	mark := evidence.Word{Text: "EXEMPLAR", Box: evidence.Box{X0: 0.3, Y0: 0, X1: 0.6, Y1: 0.12}, Conf: 0.3, Block: -1, Line: -1}
	p := New(append(ws, mark))
	require.Equal(t, "TRAVELER", first(t, p, `surname`).Text)
}

// OCR gives a statement's columns as blocks of their own, in any order: the laid-out
// text puts each row's cells back on one line, each at its column, and an empty line
// where the rows stand apart.
func TestLayoutTextPutsRowsBackTogether(t *testing.T) {
	t.Parallel()
	rows := []string{
		"Datum   Text                    Soll       Haben       Saldo",
		"01.03.  Kontostand alt                              1.000,00",
		"02.03.  Miete März            950,00                   50,00",
		"15.03.  Gehalt ACME GmbH                3.200,00    3.250,00",
		"",
		"",
		"Bitte prüfen Sie Ihren Kontoauszug.",
	}
	words := grid(rows...)
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	got := strings.Split(New(words).LayoutText(), "\n")
	want := []string{}
	for _, r := range rows[:4] {
		want = append(want, "  "+r) // the grid's left margin is two characters wide
	}
	want = append(want, "", "  "+rows[6])
	require.Equal(t, want, got)
}

// A page photographed askew: its lines fall across the page, so that a value at the
// right edge stands a line lower than its label at the left. The lines' slope is taken
// out: each label and its value stand on one line again, and a citation's regions are
// where the words stand on the page as given.
func TestAskewPageIsStraightened(t *testing.T) {
	t.Parallel()
	rows := []string{
		"Stadtwerke Lüneburg GmbH         Gehaltsabrechnung Oktober 2026",
		"Lohnart                                               Betrag EUR",
		"Gehalt                                                  7.050,00",
		"Vermögenswirksame Leistungen                               40,00",
		"Gesamt-Brutto                                           7.090,00",
		"Lohnsteuer                                             -1.957,61",
		"Krankenversicherung                                      -606,19",
		"Netto-Verdienst                                         3.470,86",
	}
	straight := grid(rows...)
	const slope, aspect2 = 0.05, 2.0 // about 1.6° on a portrait page
	skew := frame{slope: slope, aspect2: aspect2}
	words := make([]evidence.Word, len(straight))
	for i, w := range straight {
		w.Box = skew.original(w.Box) // straight words put askew
		w.Block, w.Line = 0, int(math.Round((straight[i].Box.Y0-0.05)/0.03))
		words[i] = w
	}
	// Left askew (no extractor lines to measure the slope on), the rows come apart.
	unmeasured := slices.Clone(words)
	for i := range unmeasured {
		unmeasured[i].Line = -1
	}
	require.NotEqual(t, len(rows), len(strings.Split(New(unmeasured).LayoutText(), "\n")))
	p := newPage(words, 1, math.Sqrt(aspect2))
	require.InDelta(t, slope, p.frame.slope, 0.005)
	laid := strings.Split(p.LayoutText(), "\n")
	require.Len(t, laid, len(rows), p.LayoutText())
	for i, r := range rows {
		require.Equal(t, strings.Fields(r), strings.Fields(laid[i]))
	}
	regs := p.RegionsFor(1, "7.090,00")
	require.Len(t, regs, 1)
	var want evidence.Box
	for _, w := range words {
		if w.Text == "7.090,00" {
			want = w.Box
		}
	}
	// The region holds the word's box, and no more than the slope across it adds.
	r := regs[0]
	require.LessOrEqual(t, r.X, want.X0+1e-9)
	require.LessOrEqual(t, r.Y, want.Y0+1e-9)
	require.GreaterOrEqual(t, r.X+r.Width, want.X1-1e-9)
	require.GreaterOrEqual(t, r.Y+r.Height, want.Y1-1e-9)
	require.Less(t, r.Height, 2*(want.Y1-want.Y0))
	require.Less(t, r.Width, 1.2*(want.X1-want.X0))
}
