package reader

import (
	"regexp"
	"time"

	"github.com/doceval/doceval/pkg/engine/parse"
)

var (
	closingSpec = "kontostand neu|saldo neu|neuer kontostand|neuer saldo|endsaldo|schlusssaldo|closing balance|balance carried forward|new balance"
	openingSpec = "kontostand alt|saldo alt|alter kontostand|alter saldo|anfangssaldo|opening balance|balance brought forward|previous balance"
)

// bankStatement reads holder, IBAN, the closing balance and the transactions, page by
// page (a file may hold the statements of several months).
func (r *reading) bankStatement() {
	all := r.t
	year := statementYear(all)
	if name, c, ok := r.personName("kontoinhaber|account holder|inhaber", "re:^name\\b"); ok {
		r.add("applicant_full_name", name, c, 0.85, time.Time{})
	}
	for _, n := range all.pageNumbers() {
		r.t = all.onPage(n)
		r.statementPage(year)
	}
	r.t = all
}

var periodEndRe = regexp.MustCompile(`(?:-|–|bis|to|until)\s*(.+)$`)

// statementPage reads one page: its period, balances and bookings.
func (r *reading) statementPage(year int) {
	t := r.t
	var period time.Time
	for _, h := range t.find("auszugszeitraum|zeitraum|statement period|period|auszug vom|kontoauszug nr") {
		if m := periodEndRe.FindStringSubmatch(h.rest); m != nil {
			if d, ok := readDate(m[1]); ok {
				period = monthOf(d)
				break
			}
		}
		if d, ok := readDate(h.rest); ok {
			period = monthOf(d)
			break
		}
	}
	if p, ok := r.periodFromBalance(closingSpec); ok && period.IsZero() {
		period = p
	}
	if !period.IsZero() {
		year = period.Year()
	}
	r.iban(0.9, period)
	r.ledger(year, period)
}

func (r *reading) periodFromBalance(spec string) (time.Time, bool) {
	for _, h := range r.t.find(spec) {
		if d, ok := readDate(h.rest); ok {
			return monthOf(d), true
		}
	}
	return time.Time{}, false
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
func statementYear(t *text) int {
	for _, l := range t.lines {
		if d, ok := readDate(l.text); ok {
			return d.Year()
		}
	}
	return now().Year()
}

func monthOf(d time.Time) time.Time { return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC) }
