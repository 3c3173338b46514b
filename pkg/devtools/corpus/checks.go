package corpus

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/doceval/doceval/pkg/catalog/builtin"
)

// Check verdicts.
const (
	Fulfilled     = "fulfilled"
	Open          = "open"
	Critical      = "critical"
	NotApplicable = "not_applicable"
)

// templateChecks are the checks a builtin template evaluates (pkg/catalog/builtin).
func templateChecks(template string) []string {
	for _, t := range builtin.MustLoad().Templates {
		if t.Key == template {
			return t.CheckItems
		}
	}
	return nil
}

// expectedChecks applies the check rules to the truth of the case.
func expectedChecks(c Case) map[string]string {
	var readable []Doc
	for _, d := range c.Docs {
		if d.Readable {
			readable = append(readable, d)
		}
	}
	is := func(d Doc, types ...string) bool {
		for _, t := range d.Types {
			if slices.Contains(types, t) {
				return true
			}
		}
		return false
	}
	out := map[string]string{}
	rules := map[string]func() string{
		"documents_readable": func() string {
			if len(readable) == len(c.Docs) {
				return Fulfilled
			}
			return Open
		},
		"required_documents_present": func() string {
			for _, typ := range RequiredTypes[c.Template] {
				want := []string{typ}
				if typ == "id_card" {
					want = append(want, "passport")
				}
				if !slices.ContainsFunc(readable, func(d Doc) bool { return is(d, want...) }) {
					return Open
				}
			}
			return Fulfilled
		},
		"id_document_valid": func() string {
			verdict := Open
			for _, d := range readable {
				if !is(d, "id_card", "passport") {
					continue
				}
				if t := d.Fields["id_document_expiry_date"]; t != nil && t.(timeT).Before(c.Now) {
					return Critical
				}
				if len(d.MRZ) > 0 && !d.MRZValid {
					if !IsScan(d.Format) {
						return Critical
					}
					continue // read from a scan, a wrong digit may be OCR's: open, a person looks
				}
				verdict = Fulfilled
			}
			return verdict
		},
		"name_consistency": func() string {
			var names []string
			for _, d := range readable {
				if is(d, "id_card", "passport", "salary_statement", "bank_statement") {
					names = append(names, d.Names...)
				}
			}
			if len(names) < 2 {
				return Open
			}
			for _, n := range names[1:] {
				if !SameName(n, names[0]) {
					return Critical
				}
			}
			return Fulfilled
		},
		"income_documents_recent": func() string {
			newest, ok := newestPayPeriod(readable)
			if ok && monthIndex(c.Now)-monthIndex(newest) <= 2 {
				return Fulfilled
			}
			return Open
		},
		"salary_statements_complete": func() string {
			newest, ok := newestPayPeriod(readable)
			if !ok {
				return Open
			}
			have := map[int]bool{}
			for _, d := range readable {
				for _, p := range d.PayPeriods {
					have[monthIndex(p)] = true
				}
			}
			n := monthIndex(newest)
			if have[n-1] && have[n-2] {
				return Fulfilled
			}
			return Open
		},
		"salary_credited_on_bank_statement": func() string {
			var nets []int64
			var credits []int64
			banks, scanned := 0, 0
			for _, d := range readable {
				nets = append(nets, d.NetPays...)
				nets = append(nets, d.Payouts...)
				if is(d, "bank_statement") {
					banks++
					if IsScan(d.Format) {
						scanned++
					}
					for _, t := range d.Credits {
						credits = append(credits, t.Cents)
					}
				}
			}
			if banks == 0 || len(nets) == 0 {
				return Open
			}
			for _, n := range nets {
				for _, cr := range credits {
					if abs(cr-n)*100 <= n {
						return Fulfilled
					}
				}
			}
			if scanned == banks {
				return Open // not found on scans only: OCR may have lost the line
			}
			return Critical
		},
		"property_data_consistency": func() string {
			var prices, areas []float64
			any := false
			for _, d := range readable {
				if !is(d, "property_expose", "purchase_contract", "land_register_extract", "living_area_calculation") {
					continue
				}
				any = true
				if m, ok := d.Fields["purchase_price"].(Money); ok && is(d, "property_expose", "purchase_contract") {
					prices = append(prices, float64(m.Cents))
				}
				if a, ok := d.Fields["living_area"].(float64); ok {
					areas = append(areas, a)
				}
			}
			switch {
			case !any:
				return NotApplicable
			case len(prices) < 2 && len(areas) < 2:
				return Open
			case spreadAbove(prices, 0.05) || spreadAbove(areas, 0.05):
				return Critical
			}
			return Fulfilled
		},
		"loan_to_value_within_limit": func() string {
			ltv, ok := c.Fields["loan_to_value"].(float64)
			if !ok {
				loan, ok1 := c.Fields["loan_amount"].(Money)
				price, ok2 := c.Fields["purchase_price"].(Money)
				if !ok1 || !ok2 || price.Cents == 0 {
					return Open
				}
				ltv = float64(loan.Cents) / float64(price.Cents) * 100
			}
			switch {
			case ltv > 100:
				return Critical
			case ltv > 80:
				return Open
			}
			return Fulfilled
		},
		"additional_risk_notes": func() string {
			verdict := Fulfilled
			for _, d := range readable {
				for _, risk := range d.Risks {
					switch risk {
					case factGarnishment, factReturnedDebit:
						return Critical
					case factProbation:
						if end, ok := d.RiskEnds[risk]; !ok || !end.Before(c.Now) {
							verdict = Open
						}
					case factFixedTerm:
						verdict = Open
					}
				}
				if d.ClosingCents != nil && *d.ClosingCents < 0 {
					verdict = Open
				}
			}
			return verdict
		},
	}
	for _, key := range templateChecks(c.Template) {
		out[key] = rules[key]()
	}
	return out
}

// spreadAbove reports whether two of the values differ by more than tol relative to
// the smaller one.
func spreadAbove(vs []float64, tol float64) bool {
	for i := range vs {
		for j := range vs {
			if vs[i] > vs[j]*(1+tol) {
				return true
			}
		}
	}
	return false
}

func newestPayPeriod(docs []Doc) (t timeT, ok bool) {
	for _, d := range docs {
		for _, p := range d.PayPeriods {
			if !ok || p.After(t) {
				t, ok = p, true
			}
		}
	}
	return t, ok
}

// SameName reports whether two names in natural order denote the same person: case,
// umlaut transliteration (ä/ae, ß/ss), other diacritics, and missing middle names do
// not matter; the first given name and the surname must agree.
func SameName(a, b string) bool {
	fa, fb := strings.Fields(FoldName(a)), strings.Fields(FoldName(b))
	if len(fa) < 2 || len(fb) < 2 {
		return false
	}
	return fa[0] == fb[0] && fa[len(fa)-1] == fb[len(fb)-1]
}

// FoldName lowercases a name, transliterates umlauts and ß, and drops other diacritics.
func FoldName(s string) string {
	s = strings.ToLower(transliterate(s))
	s, _, _ = transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	return strings.Join(strings.Fields(s), " ")
}

// alsoAccepted are the verdicts besides the truth's that a correct engine may give
// because the printed documents do not let it decide: a phone photo at an angle may
// defeat OCR (the verdicts as if it were unreadable, and open, are right too), and
// bi-weekly pay stubs state pay dates, not the pay months the income checks count.
// A critical verdict is never accepted this way.
func alsoAccepted(c Case) map[string][]string {
	out := map[string][]string{}
	add := func(key, verdict string) {
		if verdict != c.Checks[key] && verdict != Critical && !slices.Contains(out[key], verdict) {
			out[key] = append(out[key], verdict)
		}
	}
	blind := c
	blind.Docs = slices.Clone(c.Docs)
	photos := false
	for i, d := range blind.Docs {
		if d.Photo && d.Readable {
			blind.Docs[i].Readable, photos = false, true
		}
	}
	if photos {
		blind.Fields, _ = pickFields(blind.Docs)
		for key, verdict := range expectedChecks(blind) {
			if verdict != c.Checks[key] {
				add(key, verdict)
				add(key, Open)
			}
		}
		add("documents_readable", Open) // partly read is a fair verdict on a photo
	}
	for _, d := range c.Docs {
		if d.Layout == "salary_statement/us_stub" || slices.ContainsFunc(d.Parts, func(p Part) bool { return p.Layout == "salary_statement/us_stub" }) {
			add("salary_statements_complete", Open)
			add("income_documents_recent", Open)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
