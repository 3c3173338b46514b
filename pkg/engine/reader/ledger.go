package reader

import (
	"slices"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// statement is one bank statement's ledger as read over its pages.
type statement struct {
	opening, closing *anchor
	carry            *anchor // the last carried-over total, the closing one when none is printed
	closingLabel     *anchor // a closing balance's label whose figure OCR moved away
	bookings         []booking
	period           time.Time
	unknownSigns     int // bookings whose side nothing on the page shows
	// running: no closing balance is printed, and closing is the last booking's
	// running balance, every booking's amount the change of the running balance.
	running bool
}

// booking is one booking with its side decided.
type booking struct {
	a     anchor
	cents int64 // positive for credits
	known bool
}

// runningChain reports a statement whose every booking prints the running balance
// after it, each the one before plus the booking, from the opening balance on.
func runningChain(s *statement) bool {
	prev := s.opening.amount.Cents
	for _, b := range s.bookings {
		if b.a.bal == nil || b.a.bal.Cents-prev != b.cents {
			return false
		}
		prev = b.a.bal.Cents
	}
	return true
}

// carryWords are balance labels that carry a total from one page to the next rather
// than open or close a statement: "Balance carried forward" at a page's foot and
// "Balance brought forward" at the next page's head.
var carryWords = labelPattern("carried forward|brought forward|übertrag|ubertrag|b/f|c/f")

// statements splits a file's anchors into statements and decides every booking's
// side. A statement ends with its closing balance; a closing balance that bookings
// follow on a later page of the same period was a page's carried-over balance. A new
// statement begins at an opening balance after a closing one, or where the page's
// period changes.
func statements(as []anchor) []*statement {
	var out []*statement
	cur := &statement{}
	var prev *int64 // the running balance
	flush := func() {
		if cur.closing == nil && cur.closingLabel != nil && len(cur.bookings) > 0 {
			// The closing balance is the last running balance: its label's figure
			// went into OCR's balance column with the bookings' balances.
			if last := cur.bookings[len(cur.bookings)-1].a; last.bal != nil && last.from != nil {
				c := *cur.closingLabel
				c.amount, c.from = last.bal, last.from
				cur.closing = &c
			}
		}
		if n := len(cur.bookings); cur.closing == nil && cur.closingLabel == nil && cur.carry == nil && cur.opening != nil && n > 0 && cur.unknownSigns == 0 {
			// No closing balance printed: the running balance after the last booking is
			// the account's, where every booking's amount is its balance's change.
			if last := cur.bookings[n-1].a; last.from == nil && runningChain(cur) {
				c := last
				c.kind, c.amount, c.label = anchorClosing, last.bal, ""
				cur.closing, cur.running = &c, true
			}
		}
		if cur.opening != nil || cur.closing != nil || len(cur.bookings) > 0 {
			out = append(out, cur)
		}
		cur, prev = &statement{}, nil
	}
	for i := range as {
		a := as[i]
		if !a.period.IsZero() && !cur.period.IsZero() && !a.period.Equal(cur.period) {
			flush()
		}
		if cur.period.IsZero() {
			cur.period = a.period
		}
		switch a.kind {
		case anchorOpening:
			if a.amount == nil {
				continue
			}
			switch {
			case cur.opening == nil && cur.closing == nil && len(cur.bookings) == 0:
				cur.opening = &as[i]
			case cur.closing != nil && !carryWords.MatchString(a.label):
				flush()
				cur.opening, cur.period = &as[i], a.period
			case cur.opening == nil && cur.closing == nil && prev == nil && !carryWords.MatchString(a.label):
				// A summary printed after the bookings ("Dein alter Kontostand" under
				// N26's table), no running balance before it: the statement's opening.
				cur.opening = &as[i]
				continue
			default:
				// A balance brought forward within the statement: the running
				// balance goes on from it.
				cur.closing = nil
			}
			v := a.amount.Cents
			prev = &v
		case anchorClosing:
			if a.amount != nil {
				cur.closing = &as[i]
			} else {
				cur.closingLabel = &as[i]
			}
		case anchorCarry:
			cur.carry = &as[i]
		case anchorBooking:
			if cur.closing != nil && carryWords.MatchString(cur.closing.label) {
				cur.closing = nil // what looked like the closing balance was a page's carry
			}
			b := booking{a: a}
			switch {
			case a.bal != nil && prev != nil && (a.amount == nil || !a.signed && a.side == 0):
				b.cents, b.known = a.bal.Cents-*prev, true
				if a.amount != nil && abs(b.cents) != abs(a.amount.Cents) {
					b.cents, b.known = a.amount.Cents, false
				}
			case a.amount != nil && a.side != 0:
				b.cents, b.known = abs(a.amount.Cents)*int64(a.side), true
			case a.amount != nil:
				// A signed amount, or one of a signed column: unsigned is a credit.
				b.cents, b.known = a.amount.Cents, a.signed
			}
			if a.amount == nil && a.bal == nil {
				continue
			}
			if !b.known {
				cur.unknownSigns++
			}
			if a.bal != nil {
				v := a.bal.Cents
				prev = &v
			} else if prev != nil {
				v := *prev + b.cents
				prev = &v
			}
			cur.bookings = append(cur.bookings, b)
		}
	}
	flush()
	// Unsigned amounts in a column that signs its debits are credits: once one booking
	// of a statement carries a sign, the others' missing sign is a plus.
	for _, s := range out {
		signed := false
		for _, b := range s.bookings {
			if b.a.signed && b.cents < 0 {
				signed = true
			}
		}
		if !signed {
			continue
		}
		for i := range s.bookings {
			if b := &s.bookings[i]; !b.known && b.a.amount != nil && b.a.bal == nil {
				b.known = true
				s.unknownSigns--
			}
		}
	}
	return out
}

// ledger adds up a statement: opening + credits − debits = closing to the cent.
func (s *statement) ledger(currency string) evidence.Ledger {
	l := evidence.Ledger{Currency: currency, Bookings: len(s.bookings)}
	if s.opening != nil {
		l.OpeningCents, l.HasOpening = s.opening.amount.Cents, true
	}
	closing := s.closing
	if closing == nil && s.carry != nil && s.carry.amount != nil {
		closing = s.carry
	}
	if closing != nil {
		l.ClosingCents, l.HasClosing = closing.amount.Cents, true
	}
	for _, b := range s.bookings {
		if b.cents > 0 {
			l.CreditsCents += b.cents
		} else {
			l.DebitsCents -= b.cents
		}
		if d := b.a.date; !d.IsZero() {
			if l.From.IsZero() || d.Before(l.From) {
				l.From = d
			}
			if d.After(l.To) {
				l.To = d
			}
		}
	}
	// A carried balance ends a page, not the statement: what adds up to it proves no
	// more than the pages read, so only a closing balance reconciles.
	// Nor does a running balance taken for the closing one: the bookings after it may
	// stand on a page not uploaded.
	l.Reconciled = l.HasOpening && s.closing != nil && !s.running && len(s.bookings) > 0 && s.unknownSigns == 0 &&
		l.OpeningCents+l.CreditsCents-l.DebitsCents == l.ClosingCents
	return l
}

// Confidence of a credit read off a statement: high when the statement adds up, low
// when it does not (a booking lost or a sign misread), between when it cannot be
// checked (a balance missing).
const (
	creditReconciled   = 0.95
	creditUncheckable  = 0.8
	creditUnreconciled = 0.55
)

// emitStatements records each statement's ledger, its credits and the newest closing
// balance as the account balance.
// The anchors were read from src: the document's text, or its laid-out text (see
// laidOut), whose citations are made to quote the document's own text.
func (r *reading) emitStatements(ss []*statement, loc locale, src *text) {
	cite := func(a anchor) evidence.Citation {
		c := src.citeLine(a.l)
		switch {
		case a.from != nil:
			c = src.withRegions(src.doc.Cite(a.l.page, src.citeSpan(a.l, *a.from)))
		case a.below != nil:
			c = src.cite(a.l, *a.below)
		}
		if src.doc != r.t.doc {
			c = verbatim(r.t.doc, c, a)
		}
		return c
	}
	var newest *statement
	var newestEnd time.Time
	for _, s := range ss {
		currency := loc.currency
		for _, a := range []*anchor{s.closing, s.opening} {
			if a != nil && a.marked && a.amount != nil {
				currency = a.amount.Currency
			}
		}
		l := s.ledger(currency)
		period := s.period
		if period.IsZero() && !l.To.IsZero() {
			period = monthOf(l.To)
		}
		var at *anchor
		for _, a := range []*anchor{s.closing, s.carry, s.opening} {
			if a != nil && a.amount != nil {
				at = a
				break
			}
		}
		if at == nil && len(s.bookings) > 0 {
			at = &s.bookings[len(s.bookings)-1].a
		}
		if at != nil {
			r.add(evidence.FactLedger, l, cite(*at), 0.9, period)
		}
		conf := creditUncheckable
		switch {
		case l.Reconciled, s.running:
			// A running chain proves every booking's amount and side, not that none is
			// missing after the last: sure credits, no reconciled ledger.
			conf = creditReconciled
		case l.HasOpening && l.HasClosing:
			conf = creditUnreconciled
		}
		for _, b := range s.bookings {
			if b.cents <= 0 || currency == "" && !b.a.marked {
				continue
			}
			cur := currency
			if b.a.marked && b.a.amount != nil {
				cur = b.a.amount.Currency
			}
			c := conf
			if !b.known {
				c = min(c, creditUnreconciled)
			}
			tx := evidence.Transaction{Date: b.a.date, AmountCents: b.cents, Currency: cur, Text: b.a.text}
			r.add(evidence.FactBankCredit, tx, cite(b.a), c, monthOf(b.a.date))
		}
		end := l.To
		if !s.period.IsZero() {
			end = s.period
		}
		if (s.closing != nil || s.carry != nil && s.carry.amount != nil) && (newest == nil || !end.Before(newestEnd)) {
			newest, newestEnd = s, end
		}
	}
	if newest == nil {
		return
	}
	a := newest.closing
	if a == nil {
		a = newest.carry
	}
	v := *a.amount
	if !a.marked {
		if loc.currency == "" {
			return // a balance in no stated currency is no money value
		}
		v.Currency = loc.currency
	}
	period := newest.period
	if period.IsZero() && !newestEnd.IsZero() {
		period = monthOf(newestEnd)
	}
	if r.summaryContradicts(newest, v) {
		return
	}
	conf := 0.9
	if l := newest.ledger(v.Currency); l.HasOpening && !l.Reconciled {
		conf = 0.8
	}
	r.add("account_balance", v, cite(*a), conf, period)
}

// Labels of a statement summary's totals: everything paid in and paid out over the
// period.
const (
	totalInSpec  = "paid in|total credits|total deposits|deposits and other credits|money in|summe haben|summe gutschriften|total des credits|total credit"
	totalOutSpec = "paid out|total debits|total withdrawals|withdrawals and other debits|money out|summe soll|summe lastschriften|total des debits|total debit"
)

// summaryContradicts reports whether the statement's printed summary says its closing
// balance is not what it is: opening balance, total paid in and total paid out printed,
// and opening + in − out is not the closing balance. Such a document's balance is no
// value to report (one of its figures is wrong, and nothing says which).
func (r *reading) summaryContradicts(s *statement, closing parse.Money) bool {
	t := r.t
	if s.opening == nil || s.opening.amount == nil {
		return false
	}
	in, _, okIn := lineValue(t, firstHit(t.find(totalInSpec)), readMoney)
	out, _, okOut := lineValue(t, firstHit(t.find(totalOutSpec)), readMoney)
	if !okIn || !okOut {
		return false
	}
	// A balance's sign may not be printed (an overdraft in a debit column): either
	// sign of the closing figure may be the one meant.
	want := s.opening.amount.Cents + abs(in.Cents) - abs(out.Cents)
	return abs(want-closing.Cents) > 1 && abs(want+closing.Cents) > 1
}

// verbatim makes the citation of an anchor read off a laid-out OCR page quote the
// page's own text, where OCR may have put the row's cells apart: the row when OCR kept
// it together, else the cell holding the amount, else the row's last cell (a balance),
// else its longest cell the page's text holds. The regions stay the row's words.
func verbatim(doc *evidence.Document, c evidence.Citation, a anchor) evidence.Citation {
	if doc.Verify(c) {
		return c
	}
	cells := cellsOf(a.l.text)
	var order []string
	for _, k := range cells {
		if a.col >= k.start && a.col < k.start+len(k.text) {
			order = append(order, k.text)
		}
	}
	if len(cells) > 0 {
		order = append(order, cells[len(cells)-1].text)
	}
	byLength := make([]string, 0, len(cells))
	for _, k := range cells {
		byLength = append(byLength, k.text)
	}
	slices.SortStableFunc(byLength, func(x, y string) int { return len(y) - len(x) })
	for _, cell := range append(order, byLength...) {
		quoted := c
		quoted.Excerpt = evidence.Normalize(cell)
		if doc.Verify(quoted) {
			return quoted
		}
	}
	return c
}
