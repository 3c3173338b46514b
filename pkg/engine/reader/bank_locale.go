package reader

import (
	"regexp"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// locale is how a document writes its dates and which currency its figures are in,
// decided once per document from what it prints.
type locale struct {
	order parse.DateOrder
	// grouping is how the document groups its amounts' thousands: by ordinary spaces
	// on a document that prints them so (see parse.SpaceGrouped).
	grouping parse.Grouping
	// currency is the ISO 4217 code the document's markers name, else the one its
	// national vocabulary and IBANs agree on (see vocabularyCurrency); "" when nothing
	// on the document says which currency its figures are in.
	currency string
}

// nationalVocabulary are words only one country's payroll or banking prints: a document
// that prints them without any currency marker counts in that country's currency (a
// German payslip names no "EUR" beside its figures, a British one no "£"). A Swiss
// document prints "CHF", so the German words stay the euro's.
var nationalVocabulary = []struct {
	re       *regexp.Regexp
	currency string
}{
	// German payroll (DATEV, Lexware, SAP) and bank statements (Sparkasse, ING, DKB),
	// and German payroll in English, as payroll software prints it for staff who read no
	// German: the solidarity surcharge is a tax of Germany's alone (a church tax is
	// withheld in Denmark, Sweden and Switzerland too, so it says nothing).
	{regexp.MustCompile(`(?i)lohnsteuer|kontoauszug|buchungstag|nettoverdienst|bruttolohn|gesamtbrutto|auszahlungsbetrag|kontostand|sozialversicherung|verwendungszweck|gehaltsabrechnung|lohnabrechnung|entgeltabrechnung|solidarity surcharge`), "EUR"},
	// British payslips (Sage, Xero: "National Insurance", "NI Number"; Irish ones print
	// PAYE too, but PRSI instead of National Insurance) and statements ("Sort code").
	{regexp.MustCompile(`(?i)national insurance|\bni (?:number|no)\b|sort code`), "GBP"},
	// American pay stubs (ADP, Paychex: "Federal Income Tax", "FICA"; Australian ones
	// print Medicare too, so it is no evidence) and statements ("Routing number").
	{regexp.MustCompile(`(?i)federal income tax|\bfica\b|routing number`), "USD"},
}

// ibanCurrency names the currency of the IBANs a document prints, by country; "" when
// it prints none, or IBANs of countries with different currencies.
func ibanCurrency(s string) string {
	cur := ""
	for _, m := range anyIBAN.FindAllStringSubmatch(s, -1) {
		c, ok := ibanCountryCurrency[m[1]]
		if !ok || (cur != "" && c != cur) {
			return ""
		}
		cur = c
	}
	return cur
}

var anyIBAN = regexp.MustCompile(`\b([A-Z]{2})\d{2}(?:\s?[0-9A-Z]{4}){3}`)

var ibanCountryCurrency = map[string]string{
	"DE": "EUR", "AT": "EUR", "FR": "EUR", "NL": "EUR", "BE": "EUR", "LU": "EUR", "IT": "EUR", "ES": "EUR",
	"PT": "EUR", "IE": "EUR", "FI": "EUR", "GR": "EUR", "SK": "EUR", "SI": "EUR", "EE": "EUR", "LV": "EUR",
	"LT": "EUR", "MT": "EUR", "CY": "EUR", "HR": "EUR",
	"GB": "GBP", "CH": "CHF", "LI": "CHF", "PL": "PLN", "CZ": "CZK", "DK": "DKK", "SE": "SEK", "NO": "NOK", "HU": "HUF",
}

// vocabularyCurrency is the currency the document's national vocabulary and IBANs agree
// on; "" when they name none or disagree.
func vocabularyCurrency(all string) string {
	cur := ibanCurrency(strings.ToUpper(all))
	for _, v := range nationalVocabulary {
		if !v.re.MatchString(all) {
			continue
		}
		if cur != "" && cur != v.currency {
			return ""
		}
		cur = v.currency
	}
	return cur
}

// documentLocale reads the document's date order and currency: the order from dates
// only one order can read (a 13 or more in either place), else month first when the
// document counts in US dollars and day first otherwise; the currency from its markers.
func documentLocale(t *text) locale {
	var b strings.Builder
	for _, p := range t.doc.Pages {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	all := b.String()
	loc := locale{}
	if parse.SpaceGrouped(all) {
		loc.grouping = parse.PlainSpaces
	}
	if cur, ok := parse.MainCurrency(all); ok {
		loc.currency = cur
	} else {
		loc.currency = vocabularyCurrency(all)
	}
	if o, ok := parse.DateOrderOf(all); ok {
		loc.order = o
	} else if loc.currency == "USD" {
		loc.order = parse.MonthFirst
	}
	return loc
}

// date reads the first date of s in the document's order.
func (loc locale) date(s string) (time.Time, bool) {
	d, _, ok := parse.DateIn(s, loc.order)
	return d, ok
}

// cellDate reads a cell that holds a date: a date in the document's order, or one
// printed as a run of digits ("210679" under "Geburtsdatum", see parse.CompactDate).
func (loc locale) cellDate(s string) (time.Time, bool) {
	if d, ok := loc.date(s); ok {
		return d, true
	}
	return parse.CompactDate(s, loc.order, now())
}

// month reads the first month of s in the document's order.
func (loc locale) month(s string) (time.Time, bool) {
	m, _, ok := parse.MonthIn(s, loc.order)
	return m, ok
}

// figures reads the amounts of s as the document groups them.
func (loc locale) figures(s string) []parse.Figure { return parse.FiguresIn(s, loc.grouping) }

// money reads the first amount of s (one with a currency marker first) in the
// document's currency: a figure without a marker on a document that names no currency
// is no money. A debit marker after it ("S", "DR") or parentheses make it negative.
func (loc locale) money(s string) (parse.Money, bool) {
	fs := loc.figures(s)
	if len(fs) == 0 {
		return parse.Money{}, false
	}
	f := fs[0]
	for _, g := range fs {
		if g.Currency {
			f = g
			break
		}
	}
	if !f.Currency {
		if loc.currency == "" {
			return parse.Money{}, false
		}
		f.Money.Currency = loc.currency
	}
	return f.Money, true
}

// lastMoney reads the last amount of s (a booking line names its date and text first)
// in the document's currency; none when neither the figure nor the document names one.
func (loc locale) lastMoney(s string) (parse.Money, bool) {
	fs := loc.figures(s)
	if len(fs) == 0 {
		return parse.Money{}, false
	}
	f := fs[len(fs)-1]
	if !f.Currency {
		if loc.currency == "" {
			return parse.Money{}, false
		}
		f.Money.Currency = loc.currency
	}
	return f.Money, true
}
