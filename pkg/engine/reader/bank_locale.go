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
	// currency is the ISO 4217 code the document's markers name, else the euro when
	// the document is evidently German or has a euro-area IBAN; "" when nothing on
	// the document says which currency its figures are in.
	currency string
}

// germanVocabulary are words only a German-language payslip or statement prints; such a
// document without any currency marker is in euros (a Swiss one prints "CHF").
var germanVocabulary = regexp.MustCompile(`(?i)lohnsteuer|kontoauszug|buchungstag|nettoverdienst|bruttolohn|gesamtbrutto|auszahlungsbetrag|kontostand|sozialversicherung|verwendungszweck|gehaltsabrechnung|lohnabrechnung|entgeltabrechnung`)

// euroIBAN is an IBAN of a country that pays in euros.
var euroIBAN = regexp.MustCompile(`\b(?:DE|AT|FR|NL|BE|LU|IT|ES|PT|IE|FI)\d{2}(?:\s?[0-9A-Z]{4}){3}`)

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
	if cur, ok := parse.MainCurrency(all); ok {
		loc.currency = cur
	} else if euroIBAN.MatchString(strings.ToUpper(all)) || germanVocabulary.MatchString(all) {
		loc.currency = "EUR"
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

// month reads the first month of s in the document's order.
func (loc locale) month(s string) (time.Time, bool) {
	m, _, ok := parse.MonthIn(s, loc.order)
	return m, ok
}

// money reads the first amount of s (one with a currency marker first) in the
// document's currency: a figure without a marker on a document that names no currency
// is no money. A debit marker after it ("S", "DR") or parentheses make it negative.
func (loc locale) money(s string) (parse.Money, bool) {
	fs := parse.Figures(s)
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
