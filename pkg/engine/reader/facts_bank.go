package reader

import (
	"regexp"
	"time"

	"github.com/doceval/doceval/pkg/engine/parse"
)

var (
	// Closing balances: "neuer Kontostand" (Sparkasse, Volksbank), "Kontostand neu",
	// "Endsaldo"/"Schlusssaldo" (Deutsche Bank, Commerzbank), "Closing balance"
	// (Barclays, HSBC), "New balance"/"Ending balance" (US banks), "Balance carried
	// forward" (Lloyds; on a page's foot a carry, see statements).
	closingSpec = "kontostand neu|saldo neu|neuer kontostand|neuer saldo|endsaldo|schlusssaldo|closing balance|balance carried forward|new balance|ending balance|end balance|balance at end"
	// Opening balances: "alter Kontostand", "Anfangssaldo", "Saldovortrag" (DKB,
	// Volksbank), "Opening balance", "Previous balance", "Beginning balance" (US banks),
	// "Balance brought forward" (UK; on a page's head a carry), "Start balance"
	// (Barclays, as the table's first row; "End balance" closes it).
	openingSpec = "kontostand alt|saldo alt|alter kontostand|alter saldo|anfangssaldo|saldovortrag|opening balance|balance brought forward|previous balance|beginning balance|starting balance|start balance|balance at start"
)

// bankStatement reads holder, IBAN, and the ledger of every statement in the file over
// all its pages: balances, bookings with their sides, and whether they add up.
func (r *reading) bankStatement() {
	all := r.t
	loc := documentLocale(all)
	year := statementYear(all, loc)
	if name, c, ok := r.personName("kontoinhaber|account holder|inhaber", "re:^name\\b"); ok {
		r.add("applicant_full_name", name, c, 0.85, time.Time{})
	}
	var as []anchor
	var cols []column
	for _, n := range all.pageNumbers() {
		r.t = all.onPage(n)
		period := r.statementPeriod(loc)
		y := year
		if !period.IsZero() {
			y = period.Year()
		}
		r.iban(0.9, period)
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
	r.t = all
	r.emitStatements(statements(as), loc)
}

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

// lastMoney reads the last amount of s (a balance line may name a date or an account
// before it).
func lastMoney(s string) (parse.Money, bool) {
	ms, _ := amounts(s)
	if len(ms) == 0 {
		return parse.Money{}, false
	}
	return ms[len(ms)-1], true
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
