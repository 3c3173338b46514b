package reader

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

var (
	// Closing balances: "neuer Kontostand" (Sparkasse, Volksbank), "Kontostand neu",
	// "Endsaldo"/"Schlusssaldo" (Deutsche Bank, Commerzbank), "Closing balance"
	// (Barclays, HSBC), "New balance"/"Ending balance" (US banks), "Balance carried
	// forward" (Lloyds; on a page's foot a carry, see statements).
	// Other EU statements: "Nouveau solde"/"Solde final" (FR), "Saldo finale" (IT),
	// "Saldo final" (ES, PT), "Nieuw saldo"/"Eindsaldo" (NL), "Saldo końcowe" (PL);
	// "Balance C/F" (Singapore, Malaysia), "Nieuw openstaand saldo" (Dutch cards).
	closingSpec = "kontostand neu|saldo neu|neuer kontostand|neuer saldo|endsaldo|schlusssaldo|closing balance|balance carried forward|new balance|ending balance|end balance|balance at end|nouveau solde|solde final|saldo finale|saldo final|nieuw saldo|eindsaldo|saldo koncowe|balance c/f|nieuw openstaand saldo"
	// Opening balances: "alter Kontostand", "Anfangssaldo", "Saldovortrag" (DKB,
	// Volksbank), "Opening balance", "Previous balance", "Beginning balance" (US banks),
	// "Balance brought forward" (UK; on a page's head a carry), "Start balance"
	// (Barclays, as the table's first row; "End balance" closes it).
	// Other EU statements: "Ancien solde"/"Solde initial"/"Solde précédent" (FR),
	// "Saldo iniziale" (IT), "Saldo anterior"/"Saldo inicial" (ES, PT), "Vorig saldo"/
	// "Beginsaldo" (NL), "Saldo początkowe" (PL); "Balance B/F" (Singapore, Malaysia),
	// "Vorig openstaand saldo" (Dutch cards).
	openingSpec = "kontostand alt|saldo alt|alter kontostand|alter saldo|anfangssaldo|saldovortrag|opening balance|balance brought forward|previous balance|beginning balance|starting balance|start balance|balance at start|ancien solde|solde initial|solde precedent|saldo iniziale|saldo anterior|saldo inicial|vorig saldo|beginsaldo|saldo poczatkowe|balance b/f|vorig openstaand saldo"
)

// bankStatement reads holder, IBAN, and the ledger of every statement in the file over
// all its pages: balances, bookings with their sides, and whether they add up.
func (r *reading) bankStatement() {
	all := r.t
	loc := documentLocale(all)
	year := statementYear(all, loc)
	if name, c, ok := r.personName(holderLabels, "re:^name\\b"); ok {
		r.add("applicant_full_name", name, c, 0.85, time.Time{})
	} else if name, c, ok := addresseeName(all); ok {
		// Unlabelled, so never enough on its own for a finding (see minReadConfidence).
		r.add("applicant_full_name", name, c, 0.55, time.Time{})
	} else if name, c, ok := titledName(all, false); ok {
		r.add("applicant_full_name", name, c, 0.5, time.Time{})
	}
	as := r.statementAnchors(all, year, loc, true)
	ss, src := statements(as), all
	if len(ss) == 0 || adding(ss, loc) < len(ss) {
		// OCR may have read the booking table column by column, and no ledger was read or
		// one does not add up: read it again from the rows the words stand in, and take
		// that reading when more of its statements add up (the arithmetic decides, not
		// the order of the text).
		if laid := laidOut(all); laid != nil {
			if ls := statements(r.statementAnchors(laid, year, loc, false)); adding(ls, loc) > adding(ss, loc) {
				ss, src = ls, laid
			}
		}
	}
	r.t = all
	r.emitStatements(ss, loc, src)
}

// statementAnchors reads the balances and bookings of every page of t in order (see
// pageAnchors), booking text that goes on over a page joined to its booking; withIBAN
// also reads each page's IBAN.
func (r *reading) statementAnchors(t *text, year int, loc locale, withIBAN bool) []anchor {
	var as []anchor
	var cols []column
	for _, n := range t.pageNumbers() {
		r.t = t.onPage(n)
		period := r.statementPeriod(loc)
		y := year
		if !period.IsZero() {
			y = period.Year()
		}
		if withIBAN {
			r.iban(0.9, period)
		}
		var page []anchor
		page, cols = pageAnchors(r.t, y, loc, cols)
		for i := range page {
			page[i].period = period
		}
		if len(as) > 0 && as[len(as)-1].kind == anchorBooking {
			last := &as[len(as)-1]
			last.text = joinText(last.text, textOverPage(r.t, *last, page))
		}
		as = append(as, page...)
	}
	r.t = t
	return as
}

// adding counts the statements whose bookings are proven: the ledger adds up from the
// opening to the closing balance, or every booking's running balance follows from the
// one before.
func adding(ss []*statement, loc locale) int {
	n := 0
	for _, s := range ss {
		if s.running || s.ledger(loc.currency).Reconciled {
			n++
		}
	}
	return n
}

// laidOut is the document with the text of each OCR page that has words replaced by the
// page laid out from its words' boxes (layout.Page.LayoutText): a row's date, text and
// amounts on one line, each under its column's heading, read as a born-digital page is.
// nil when no page was read by OCR.
func laidOut(t *text) *text {
	doc := *t.doc
	doc.Pages = slices.Clone(t.doc.Pages)
	laid := false
	for i, p := range doc.Pages {
		if !p.OCR {
			continue
		}
		if g := t.geometry(p.Number); g != nil {
			p.Text, p.OCR = g.LayoutText(), false
			doc.Pages[i] = p
			laid = true
		}
	}
	if !laid {
		return nil
	}
	lt := newText(&doc)
	lt.geo = t.geo // the same words: the same geometry, built once
	return lt
}

// holderLabels name a statement's account holder: "Kontoinhaber", "Account holder",
// "In name of" (Swiss and Singapore banks), "Titulaire du compte", "Intestatario",
// "Titular de la cuenta", "Rekeninghouder".
const holderLabels = "kontoinhaber|account holder|inhaber|in name of|titulaire du compte|intestatario|titular de la cuenta|rekeninghouder"

var periodEndRe = regexp.MustCompile(`(?:-|–|bis|to|until)\s*(.+)$`)

// statementPeriod is the month of the period the page names, else of its closing
// balance's date; zero when it names neither.
func (r *reading) statementPeriod(loc locale) time.Time {
	t := r.t
	for _, h := range t.find("auszugszeitraum|zeitraum|statement period|period|auszug vom|kontoauszug nr") {
		if m := periodEndRe.FindStringSubmatch(h.rest); m != nil {
			if d, ok := loc.date(m[1]); ok {
				return monthOf(d)
			}
		}
		if d, ok := loc.date(h.rest); ok {
			return monthOf(d)
		}
	}
	for _, h := range t.find(closingSpec) {
		if d, ok := loc.date(h.rest); ok {
			return monthOf(d)
		}
	}
	return time.Time{}
}

// statementYear is the year of the statement's first full date: short booking dates
// ("03.03.") take it.
func statementYear(t *text, locs ...locale) int {
	loc := locale{}
	if len(locs) > 0 {
		loc = locs[0]
	}
	for _, l := range t.lines {
		if d, ok := loc.date(l.text); ok {
			return d.Year()
		}
	}
	return now().Year()
}

func monthOf(d time.Time) time.Time { return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC) }

// addresseeName reads the account holder from the address window of a statement's
// first page, where most banks print it without a label: within the first lines, a
// line that starts with a person's name (a salutation allowed) followed by a line that
// starts with a street or postcode (a digit in its first cell). Company names, bank
// names and headings are no holder.
func addresseeName(t *text) (string, evidence.Citation, bool) {
	for i, l := range t.lines {
		if i >= addressWindowLines || l.page != t.lines[0].page {
			break
		}
		first := leadingCell(l.text)
		if legalForm.MatchString(first) || bankName.MatchString(first) || headingWord.MatchString(first) {
			continue
		}
		name, ok := readName(strings.TrimPrefix(first, "Miss "))
		if !ok {
			continue
		}
		// The street stands under the name, in its column: a cell far to the right is
		// another block ("Sheet number 14" beside the bank's name).
		if n, ok := t.next(l); ok && streetLine.MatchString(leadingCell(n.text)) && !dateOrAmount.MatchString(leadingCell(n.text)) &&
			abs64i(indent(n.text)-indent(l.text)) <= 3 {
			return name, t.citeLine(l), true
		}
	}
	return "", evidence.Citation{}, false
}

const addressWindowLines = 12

// indent is how many runes of blank a line starts with.
func indent(s string) int {
	return utf8.RuneCountInString(s) - utf8.RuneCountInString(strings.TrimLeft(s, " \t"))
}

// titledLine is a line that is a salutation and a name and nothing else: "Mr Robot
// Roboto", "Frau Erika Mustermann", "Mme Claire Martin".
var titledLine = regexp.MustCompile(`^(?:Mr|Mrs|Ms|Miss|Mx|Dr|Herrn?|Frau|Monsieur|Madame|Mademoiselle|Mme|Mlle|M\.|Signora|Signor|Sig\.|Sig\.ra|Señora|Señor|Sr\.|Sra\.|Dhr\.|Mevr\.|Pani|Pan)\.?\s+(\p{Lu}[\p{L}'\-]+(?:\s+\p{Lu}[\p{L}'\-]+){1,3})$`)

// titledName reads a name from a document's head: a line (its first cell) that is a
// salutation and a name, within the first lines. overStreet asks for the street on the
// next line, an addressee block ("Monsieur Julien MARTIN" over "8 avenue Jean Jaurès");
// without it a statement's holder is read where OCR put another column's text under
// the name, less surely.
func titledName(t *text, overStreet bool) (string, evidence.Citation, bool) {
	for i, l := range t.lines {
		if i >= addressWindowLines || l.page != t.lines[0].page {
			break
		}
		m := titledLine.FindStringSubmatch(leadingCell(l.text))
		if m == nil {
			continue
		}
		name, ok := readName(m[1])
		if !ok || headingWord.MatchString(m[1]) {
			continue
		}
		if !overStreet {
			return name, t.citeLine(l), true
		}
		if n, ok := t.next(l); ok && streetLine.MatchString(leadingCell(n.text)) && !dateOrAmount.MatchString(leadingCell(n.text)) {
			return name, t.cite(l, n), true
		}
	}
	return "", evidence.Citation{}, false
}

// streetLine starts an address's second line: a postcode and town ("50937 Köln"), a
// house number first ("77 Oak Avenue", "14 Holbeck Lane") or last ("Zülpicher Str. 12").
var streetLine = regexp.MustCompile(`^(?:\d{4,5}\s+\p{L}|\d{1,5}[a-zA-Z]?\s+\p{L}|[\p{L}][\p{L}.\- ]*\s\d{1,4}[a-zA-Z]?(?:$|[\s,]))`)

// dateOrAmount is a date or an amount on a line: a booking or a balance, no address.
var dateOrAmount = regexp.MustCompile(`\d{1,2}[./]\d{1,2}[./]|\d[.,]\d{2}\b`)

// headingWord marks a line of a statement's head that is no name.
var headingWord = regexp.MustCompile(`(?i)\b(?:statement|account|kontoauszug|konto|iban|bic|seite|page|blatt|datum|date|period|zeitraum|summary|balance|saldo|kontostand|buchung|valuta|vorgang|soll|haben|description|withdrawals|deposits)\b`)

// leadingCell is a layout line's text before its first run of two or more spaces.
func leadingCell(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "  "); i >= 0 {
		s = s[:i]
	}
	return s
}
