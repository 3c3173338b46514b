package reader

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// readMoney reads the first amount of s, with the bank statements' "S" (Soll, debit)
// and "H" (Haben, credit) markers after it.
func readMoney(s string) (parse.Money, bool) {
	m, sp, ok := parse.Amount(s)
	if !ok {
		return m, false
	}
	if m.Currency == "" {
		m.Currency = "EUR"
	}
	if debitMark(s[sp.End:]) && m.Cents > 0 {
		m.Cents = -m.Cents
	}
	return m, true
}

var debitMarkRe = regexp.MustCompile(`^\s*(?:S|Soll)\b`)

func debitMark(after string) bool { return debitMarkRe.MatchString(after) }

// amounts reads every amount in s, left to right, with their spans; a debit marker
// after one ("S", "Soll", "DR") or parentheses make it negative.
func amounts(s string) ([]parse.Money, []parse.Span) {
	var ms []parse.Money
	var spans []parse.Span
	for _, f := range parse.Figures(s) {
		ms = append(ms, f.Money)
		spans = append(spans, f.Span)
	}
	return ms, spans
}

func readDate(s string) (time.Time, bool) {
	d, _, ok := parse.Date(s)
	return d, ok
}

// ocrSquareMeters are OCR's readings of "m²": m?, m:, me, M2, m*.
var ocrSquareMeters = regexp.MustCompile(`(\d)\s*(?:m[?:e*º°]|M2|rn2|rn²)(\s|$|[.,;)])`)

func fixAreaUnit(s string) string { return ocrSquareMeters.ReplaceAllString(s, "$1 m²$2") }

func readArea(s string) (float64, bool) {
	a, _, ok := parse.Area(fixAreaUnit(s))
	return a, ok && a > 5 && a < 5000
}

func readPercent(s string) (float64, bool) {
	p, _, ok := parse.Percent(s)
	return p, ok
}

func readYears(s string) (float64, bool) {
	y, _, ok := parse.Years(s)
	return y, ok && y > 0 && y <= 40
}

var yearRe = regexp.MustCompile(`\b(1[6-9]\d\d|20\d\d)\b`)

// readYear reads a four-digit calendar year, as "1998".
func readYear(s string) (string, bool) {
	m := yearRe.FindString(s)
	return m, m != ""
}

var ibanRe = regexp.MustCompile(`\b([A-Z]{2}[0-9O]{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?)\b`)

// readIBAN finds an IBAN whose check digits are right, spaces removed. OCR's O for 0
// is repaired in German IBANs, which are all digits after the country.
func readIBAN(s string) (string, bool) {
	for _, m := range ibanRe.FindAllString(strings.ToUpper(s), -1) {
		iban := strings.ReplaceAll(m, " ", "")
		if strings.HasPrefix(iban, "DE") {
			iban = "DE" + strings.NewReplacer("O", "0", "I", "1", "L", "1", "S", "5", "B", "8").Replace(iban[2:])
			if len(iban) > 22 {
				iban = iban[:22]
			}
		}
		if validIBAN(iban) {
			return iban, true
		}
	}
	return "", false
}

// ibanLabelled is an IBAN after its label: "IBAN: GB11RBOS 1610 0011 1111 11".
var ibanLabelled = regexp.MustCompile(`(?i)\biban\b[\s.:]*([A-Z]{2}\d{2}(?:\s?[A-Z0-9]{2,4}){2,8})`)

// ibanLengths are the lengths of IBANs by country.
var ibanLengths = map[string]int{
	"AT": 20, "BE": 16, "CH": 21, "CZ": 24, "DE": 22, "DK": 18, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "IE": 22,
	"IT": 27, "LI": 21, "LU": 20, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "SE": 24,
}

// printedIBAN reads an IBAN after its label as printed, whatever its check digits say,
// when it is as long as its country's IBANs are.
func printedIBAN(s string) (string, bool) {
	m := ibanLabelled.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	iban := strings.ToUpper(strings.ReplaceAll(m[1], " ", ""))
	if n, ok := ibanLengths[iban[:2]]; !ok || len(iban) != n {
		return "", false
	}
	return iban, true
}

func validIBAN(iban string) bool {
	if len(iban) < 15 || len(iban) > 34 {
		return false
	}
	moved := iban[4:] + iban[:4]
	rem := 0
	for _, c := range moved {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			v := int(c-'A') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
	}
	return rem == 1
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// parseArea reads the first area of s and returns where it ended.
func parseArea(s string) (float64, int, bool) {
	a, sp, ok := parse.Area(s) // s is already unit-fixed
	if !ok {
		return 0, 0, false
	}
	return a, sp.End, true
}
