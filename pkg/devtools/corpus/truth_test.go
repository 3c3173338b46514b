package corpus

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// printedText is a document's (or a part's) text as printed: font markers dropped,
// columns as spaces, one line per line.
func printedText(pages [][]string) string {
	var b strings.Builder
	for _, p := range pages {
		for _, l := range p {
			b.WriteString(strings.ReplaceAll(markers.Replace(l), "\t", " "))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// flat folds case, umlauts and diacritics and drops punctuation between words, so
// that a name or address printed in capitals, transliterated or over two lines is
// found.
func flat(s string) string {
	s = FoldName(strings.NewReplacer(",", " ", "\n", " ").Replace(s))
	return " " + strings.Join(strings.Fields(s), " ") + " "
}

// printed reports whether the text shows the truth value in some way the generator
// prints values.
func printed(text string, v any) bool {
	switch x := v.(type) {
	case Money:
		c := x.Cents
		if c < 0 {
			c = -c
		}
		for _, lang := range []string{"de", "en"} {
			whole := regexp.MustCompile(`(?m)(^|[^\d.,])` + regexp.QuoteMeta(wholeMoney(c, lang)) + `([^\d.,]|[.,]\D|$)`)
			if strings.Contains(text, money(c, lang)) || (c%100 == 0 && whole.MatchString(text)) {
				return true
			}
		}
	case time.Time:
		forms := []string{x.Format("02.01.2006"), x.Format("01/02/2006"), x.Format("02/01/2006"), x.Format("02 Jan 2006"),
			date(x, "de", 1), date(x, "en", 1), date(x, "en", 2)}
		for _, f := range forms {
			if strings.Contains(strings.ToLower(text), strings.ToLower(f)) {
				return true
			}
		}
	case float64:
		for _, lang := range []string{"de", "en"} {
			for _, n := range []int{0, 1, 2} {
				if strings.Contains(text, decimal(x, n, lang)) && (n > 0 || x == float64(int(x))) {
					return true
				}
			}
		}
	case string:
		if strings.Contains(strings.ReplaceAll(text, " ", ""), x) {
			return true // an IBAN printed in groups
		}
		// Every word, wherever: a name is printed as surname and given names in
		// separate fields, an address over two lines.
		words := strings.Fields(flat(text))
		for _, w := range strings.Fields(flat(x)) {
			if !slices.Contains(words, w) {
				return false
			}
		}
		return true
	}
	return false
}

// Every truth value is printed on the document it is attributed to: the truth is what
// the generator printed, not what a reader is expected to make of it. Every builtin
// data field of the catalog has a truth in some case: a new field needs documents that
// print it.
func TestTruthIsPrinted(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	withTruth := map[string]bool{}
	for _, c := range generate(11, now, 60, false) {
		for k := range c.Fields {
			withTruth[k] = true
		}
		for _, d := range c.Docs {
			if !d.Readable {
				continue
			}
			check := func(what string, pages [][]string, fields map[string]any) {
				text := printedText(pages)
				for k, v := range fields {
					if derivedMonthly(what, k) {
						// Derived from the printed bi-weekly figure and the printed frequency.
						require.Contains(t, printedText(pages), "Bi-Weekly", "%s %s", c.ID, d.Name)
						continue
					}
					require.True(t, printed(text, v), "%s %s (%s) field %s: %v is not printed in\n%s", c.ID, d.Name, what, k, v, text)
				}
			}
			if len(d.Parts) == 0 {
				check(d.Layout, d.Pages, d.Fields)
				continue
			}
			for _, p := range d.Parts {
				var pages [][]string
				for _, n := range p.Pages {
					pages = append(pages, d.Pages[n-1])
				}
				check(p.Layout, pages, p.Fields)
			}
		}
		for k, src := range c.FieldSources {
			require.True(t, slices.ContainsFunc(c.Docs, func(d Doc) bool { return d.Name == src && d.Readable }), "%s field %s from %s", c.ID, k, src)
		}
	}
	for _, k := range FieldKeys() {
		require.True(t, withTruth[k], "no case prints builtin data field %s", k)
	}
}

// The corpus holds every layout family modelled on a real issuer.
func TestLayoutFamilies(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range generate(5, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), 80, false) {
		for _, d := range c.Docs {
			seen[d.LayoutFamily()] = true
			for _, p := range d.Parts {
				seen[p.Layout] = true
			}
		}
	}
	for _, want := range []string{
		"id_card/card2021", "id_card/residence_permit", "passport/D",
		"salary_statement/datev_header", "salary_statement/sap_ytd", "salary_statement/uk_paye", "salary_statement/us_stub",
		"bank_statement/sparkasse_sh", "bank_statement/ing_signed", "bank_statement/uk_statement", "bank_statement/us_statement",
		"property_expose/portal_prose", "property_expose/fact_table", "other/car_loan_offer", "other/letter", "merged",
	} {
		require.True(t, seen[want], "no %s in 80 cases", want)
	}
}

// A merged upload's parts cover its pages in order, and its truth is per part.
func TestMergedUpload(t *testing.T) {
	t.Parallel()
	found := false
	for _, c := range generate(5, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), 80, false) {
		for _, d := range c.Docs {
			if len(d.Parts) == 0 {
				continue
			}
			found = true
			require.Equal(t, FormatTextPDF, d.Format, "without scans a merged upload is a text PDF")
			next := 1
			types := map[string]bool{}
			for _, p := range d.Parts {
				for _, n := range p.Pages {
					require.Equal(t, next, n)
					next++
				}
				types[p.Type] = true
			}
			require.Equal(t, len(d.Pages)+1, next)
			require.True(t, types["salary_statement"] && types["bank_statement"] && (types["id_card"] || types["passport"]), fmt.Sprint(types))
			require.Contains(t, c.Scenarios, scenMergedUpload)
		}
	}
	require.True(t, found)
}

// A field no document prints has no truth: here the American account's IBAN. (A
// bi-weekly pay stub's monthly income is derived from its printed frequency.)
func TestNoTruthWhereNothingIsPrinted(t *testing.T) {
	t.Parallel()
	us := 0
	for _, c := range generate(5, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), 80, false) {
		stubs := false
		for _, d := range c.Docs {
			stubs = stubs || d.Layout == "salary_statement/us_stub"
			if d.Layout == "other/car_loan_offer" || d.Layout == "other/letter" {
				require.Empty(t, d.Fields)
			}
		}
		if !stubs {
			continue
		}
		us++
		if src := c.FieldSources["iban"]; src != "" {
			i := slices.IndexFunc(c.Docs, func(d Doc) bool { return d.Name == src })
			require.NotEqual(t, "bank_statement", c.Docs[i].Types[0])
		}
		require.True(t, c.AcceptsCheck("salary_statements_complete", Open), "%s", c.ID)
	}
	require.Positive(t, us)
}

func TestAcceptsCheck(t *testing.T) {
	t.Parallel()
	c := Case{Checks: map[string]string{"a": Fulfilled, "b": Critical}, ChecksAlso: map[string][]string{"a": {Open}}}
	require.True(t, c.AcceptsCheck("a", Open))
	require.True(t, c.AcceptsCheck("a", Fulfilled))
	require.False(t, c.AcceptsCheck("a", Critical))
	require.False(t, c.Clean())
	c.Checks["b"] = Open
	require.True(t, c.Clean())
}

func FuzzReadPGM(f *testing.F) {
	f.Add([]byte("P5 2 2 255\n\x00\x01\x02\x03"))
	f.Add([]byte("P5\n1 1\n255\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := readPGM(b)
		if err == nil {
			require.Equal(t, g.Bounds().Dx()*g.Bounds().Dy(), len(g.Pix))
		}
	})
}

// A photo may defeat OCR: the verdicts the case would have without it are accepted,
// and open, but never a critical one the truth does not give.
func TestPhotoAllowsOpen(t *testing.T) {
	t.Parallel()
	for _, c := range generate(5, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), 10, false) {
		i := slices.IndexFunc(c.Docs, func(d Doc) bool { return d.Types[0] == "id_card" || d.Types[0] == "passport" })
		if i < 0 || c.Checks["id_document_valid"] != Fulfilled {
			continue
		}
		c.Docs[i].Photo = true
		c.ChecksAlso = alsoAccepted(c)
		require.True(t, c.AcceptsCheck("id_document_valid", Open), c.ID)
		require.True(t, c.AcceptsCheck("documents_readable", Open), c.ID)
		for key, also := range c.ChecksAlso {
			require.NotContains(t, also, Critical, key)
		}
		return
	}
	t.Fatal("no case with a valid ID document")
}

func derivedMonthly(layout, key string) bool {
	return strings.HasSuffix(layout, "us_stub") && (key == "gross_monthly_income" || key == "net_monthly_income")
}
