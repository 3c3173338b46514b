package parse

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type quantityCase struct {
	in    string
	want  float64
	match string // s[span]; "" when nothing is found
}

func noQuantity(in string) quantityCase { return quantityCase{in: in} }

var areaCases = []quantityCase{
	{"85,5 m²", 85.5, "85,5 m²"},
	{"85.5 m2", 85.5, "85.5 m2"},
	{"85 m^2", 85, "85 m^2"},
	{"85,50 qm", 85.5, "85,50 qm"},
	{"85 sqm", 85, "85 sqm"},
	{"85 sq m", 85, "85 sq m"},
	{"85 sq. m", 85, "85 sq. m"},
	{"85 sq ft 12 m²", 12, "12 m²"},
	{"85 Quadratmeter", 85, "85 Quadratmeter"},
	{"85 Quadratmetern", 85, "85 Quadratmetern"},
	{"85 square meters", 85, "85 square meters"},
	{"85 square metres", 85, "85 square metres"},
	{"ca. 120 m²", 120, "120 m²"},
	{"ca.120 m²", 120, "120 m²"},
	{"1.250 m²", 1250, "1.250 m²"},
	{"1.250,5 m²", 1250.5, "1.250,5 m²"},
	{"120,00 m²", 120, "120,00 m²"},
	{"85m²", 85, "85m²"},
	{"85 QM", 85, "85 QM"},
	{"85 ㎡", 85, "85 ㎡"},
	{"Wohnfläche: 85,5 m² (ca.)", 85.5, "85,5 m²"},
	{"Grundstück 600 m², Wohnfläche 120 m²", 600, "600 m²"},
	{"Baujahr 1990, 3 Zimmer, 85 m²", 85, "85 m²"},
	{"Volumen 10 m³, Fläche 20 m²", 20, "20 m²"},

	noQuantity(""),
	noQuantity("10 m³"),
	noQuantity("10 m3"),
	noQuantity("10 m"),
	noQuantity("10 m23"),
	noQuantity("10 m^3"),
	noQuantity("10 sq ft"),
	noQuantity("85 %"),
	noQuantity("-85 m²"),
	noQuantity("DE85 m²"),
	noQuantity("15.03.2026 m²"),
	noQuantity("1 250 m²"),
	noQuantity("1e400 m²"),
	noQuantity(strings.Repeat("9", 400) + " m²"),
}

var percentCases = []quantityCase{
	{"80 %", 80, "80 %"},
	{"80%", 80, "80%"},
	{"80,5%", 80.5, "80,5%"},
	{"80.5 percent", 80.5, "80.5 percent"},
	{"80,5 Prozent", 80.5, "80,5 Prozent"},
	{"80,5 v. H.", 80.5, "80,5 v. H."},
	{"80,5 v.H.", 80.5, "80,5 v.H."},
	{"80,5 vH", 80.5, "80,5 vH"},
	{"80,5 vom Hundert", 80.5, "80,5 vom Hundert"},
	{"80.5 pct", 80.5, "80.5 pct"},
	{"80.5 pct.", 80.5, "80.5 pct."},
	{"80.5 per cent", 80.5, "80.5 per cent"},
	{"80 ％", 80, "80 ％"},
	{"Sollzins 3,125 % p.a.", 3.125, "3,125 %"},
	{"2.125 %", 2.125, "2.125 %"},
	{"1.234,5 %", 1234.5, "1.234,5 %"},
	{"-0,5 %", -0.5, "-0,5 %"},
	{"Zins − 0,25 %", -0.25, "− 0,25 %"},
	{"Beleihung 80 - 90 %", 90, "90 %"},
	{"Darlehen 100.000 EUR, Zins 3,5 %", 3.5, "3,5 %"},

	noQuantity(""),
	noQuantity("80"),
	noQuantity("80 ‰"),
	noQuantity("80 Prozentpunkte"),
	noQuantity("Prozent 80"),
	noQuantity("v. H. 80"),
	noQuantity(".5 %"),
	noQuantity("15.03.2026 %"),
}

var yearsCases = []quantityCase{
	{"10 Jahre", 10, "10 Jahre"},
	{"10 Jahren", 10, "10 Jahren"},
	{"1 Jahr", 1, "1 Jahr"},
	{"10 years", 10, "10 years"},
	{"1 year", 1, "1 year"},
	{"10 yrs", 10, "10 yrs"},
	{"10 yrs.", 10, "10 yrs."},
	{"10-year", 10, "10-year"},
	{"15-year fixed", 15, "15-year"},
	{"10 J.", 10, "10 J."},
	{"10-jährige Zinsbindung", 10, "10-jährige"},
	{"10jährige", 10, "10jährige"},
	{"10-jaehrige", 10, "10-jaehrige"},
	{"10-Jahres-Festschreibung", 10, "10-Jahres"},
	{"2,5 Jahre", 2.5, "2,5 Jahre"},
	{"Sollzinsbindung: 10 Jahre", 10, "10 Jahre"},
	{"Laufzeit 3 Jahre 6 Monate", 3, "3 Jahre"},
	{"zehn Jahre", 10, "zehn Jahre"},
	{"Zehn Jahre", 10, "Zehn Jahre"},
	{"fünfzehn Jahre", 15, "fünfzehn Jahre"},
	{"ten years", 10, "ten years"},
	{"ten-year", 10, "ten-year"},
	{"ein Jahr", 1, "ein Jahr"},
	{"Baujahr 2010, Restlaufzeit 12 Jahre", 12, "12 Jahre"},

	noQuantity(""),
	noQuantity("10"),
	noQuantity("10 J"),
	noQuantity("Jahre 10"),
	noQuantity("Baujahr 2010"),
	noQuantity("im Jahre 2010"),
	noQuantity("-10 Jahre"),
	noQuantity("10 Monate"),
	noQuantity("zehnJahre"),
	noQuantity("Q3 years"),
}

func testQuantity(t *testing.T, parse func(string) (float64, Span, bool), cases []quantityCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			v, sp, ok := parse(c.in)
			if c.match == "" {
				require.False(t, ok, "read %v from %q", v, c.in[sp.Start:sp.End])
				return
			}
			require.True(t, ok)
			require.Equal(t, c.want, v)
			require.Equal(t, c.match, c.in[sp.Start:sp.End])
		})
	}
}

func TestArea(t *testing.T) {
	t.Parallel()
	testQuantity(t, Area, areaCases)
}

func TestPercent(t *testing.T) {
	t.Parallel()
	testQuantity(t, Percent, percentCases)
}

func TestYears(t *testing.T) {
	t.Parallel()
	testQuantity(t, Years, yearsCases)
}
