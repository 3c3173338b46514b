package reader

import (
	"regexp"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// bookingDate matches the date that starts a booking line: "03.03.2025", "03.03.",
// "03/03/2025", "03 Mar", "3. Mär"; a value date may follow.
var bookingDate = regexp.MustCompile(`^\s*(\d{1,2}[./]\d{1,2}[./](?:\d{2,4})?|\d{1,2}\.?\s+[A-Za-zäöüÄÖÜ]{3}\.?(?:\s+\d{4})?)(?:\s+(\d{1,2}[./]\d{1,2}[./](?:\d{2,4})?))?`)

var (
	moneyInCols       = regexp.MustCompile(`(?i)money\s+in|paid\s+in`)
	balanceHeader     = regexp.MustCompile(`(?i)(?:money out|paid out|betrag|amount).*\b(?:balance|saldo)\s*$`)
	loneBalanceHeader = regexp.MustCompile(`(?i)^\s*(?:balance|saldo)\s*$`)
	signAfter         = regexp.MustCompile(`^[\d.,]+\s*(?:[-+]|S\b|H\b)`)
	openingRe         = labelPattern(openingSpec)
	closingRe         = labelPattern(closingSpec)
)

const (
	anchorOpening = iota
	anchorClosing
	anchorBooking
)

// anchor is a statement line that carries an amount: a balance or a booking.
type anchor struct {
	l      line
	kind   int
	date   time.Time
	text   string
	amount *parse.Money // the booking amount or the balance
	bal    *parse.Money // the running balance printed after a booking
	signed bool         // the amount carried a sign or a debit/credit marker
	col    int          // byte column of the amount in its line
	from   *line        // the amount's own line when OCR moved the column away
	bare   bool         // a booking line with nothing but dates: OCR's date column
}

// ledger reads a statement page's balances and bookings and emits the closing balance
// and every incoming booking. Amount columns that OCR moved to the end of the page are
// put back by order; unsigned amounts take their sign from the running balance or
// from their column.
func (r *reading) ledger(year int, period time.Time) {
	t := r.t
	inCol, balanceCol := -1, false
	for _, l := range t.lines {
		if loc := moneyInCols.FindStringIndex(l.text); loc != nil {
			inCol = loc[0]
		}
		if balanceHeader.MatchString(l.text) || loneBalanceHeader.MatchString(l.text) {
			balanceCol = true // OCR puts each column heading on a line of its own
		}
	}
	var as []anchor
	for _, l := range t.lines {
		a := anchor{l: l}
		var rest string
		var restOff int
		switch {
		case closingRe.MatchString(l.f.s):
			a.kind = anchorClosing
			loc := closingRe.FindStringIndex(l.f.s)
			restOff = l.f.orig[loc[1]]
		case openingRe.MatchString(l.f.s):
			a.kind = anchorOpening
			loc := openingRe.FindStringIndex(l.f.s)
			restOff = l.f.orig[loc[1]]
		default:
			m := bookingDate.FindStringSubmatchIndex(l.text)
			if m == nil {
				continue
			}
			d, ok := bookingDay(l.text[m[2]:m[3]], year)
			if !ok {
				continue
			}
			a.kind, a.date, restOff = anchorBooking, d, m[1]
		}
		rest = l.text[restOff:]
		ms, spans := amounts(rest)
		last := len(ms) - 1
		switch {
		case last < 0:
			if a.kind == anchorBooking {
				a.text = normalizeSpace(rest)
				a.bare = a.text == ""
			}
		case a.kind != anchorBooking:
			a.amount = &ms[last]
		case last >= 1 && balanceCol:
			a.amount, a.bal = &ms[last-1], &ms[last]
			a.col = restOff + spans[last-1].Start
			a.text = normalizeSpace(rest[:spans[last-1].Start])
		default:
			a.amount = &ms[last]
			a.col = restOff + spans[last].Start
			a.text = normalizeSpace(rest[:spans[last].Start])
		}
		if a.amount != nil && a.kind == anchorBooking {
			s := l.text[a.col:]
			a.signed = strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") || signAfter.MatchString(s)
		}
		as = append(as, a)
	}
	missing := 0
	for _, a := range as {
		if a.amount == nil {
			missing++
		}
	}
	if missing >= 2 && missing*2 >= len(as) {
		as = columnAnchors(t, as)
		if ms, lines, ok := reassemble(t, len(as), balanceCol); ok {
			for i := range as {
				m, l := ms[i], lines[i]
				as[i].from = &l
				if balanceCol && as[i].kind == anchorBooking {
					as[i].bal, as[i].amount = &m, nil
				} else {
					as[i].amount = &m
					as[i].signed = signAfter.MatchString(strings.TrimSpace(l.text)) || strings.HasPrefix(strings.TrimSpace(l.text), "-")
				}
			}
		}
	}
	cite := func(a anchor) evidence.Citation {
		if a.from != nil {
			return t.doc.Cite(a.l.page, t.citeSpan(a.l, *a.from))
		}
		return t.citeLine(a.l)
	}
	var prev *int64
	for _, a := range as {
		switch a.kind {
		case anchorOpening:
			if a.amount != nil {
				v := a.amount.Cents
				prev = &v
			}
		case anchorClosing:
			if a.amount != nil {
				r.closing = &closingFact{value: *a.amount, cite: cite(a)}
			}
		case anchorBooking:
			var cents int64
			known := false
			switch {
			case a.bal != nil && prev != nil && (a.amount == nil || !a.signed):
				delta := a.bal.Cents - *prev
				cents, known = delta, true
				if a.amount != nil && abs(delta) != abs(a.amount.Cents) {
					cents = a.amount.Cents
					if inCol >= 0 && a.col < inCol-3 {
						cents = -abs(cents)
					}
				}
			case a.amount != nil:
				cents, known = a.amount.Cents, true
				if !a.signed && inCol >= 0 && a.col < inCol-3 {
					cents = -abs(cents)
				}
			}
			if a.bal != nil {
				v := a.bal.Cents
				prev = &v
			} else if prev != nil && known {
				v := *prev + cents
				prev = &v
			}
			if !known || cents <= 0 {
				continue
			}
			currency := "EUR"
			if a.amount != nil && a.amount.Currency != "" {
				currency = a.amount.Currency
			}
			tx := evidence.Transaction{Date: a.date, AmountCents: cents, Currency: currency, Text: a.text}
			r.add(evidence.FactBankCredit, tx, cite(a), 0.85, monthOf(a.date))
		}
	}
	if r.closing != nil {
		r.add("account_balance", r.closing.value, r.closing.cite, 0.9, period)
		r.closing = nil
	}
}

// columnAnchors puts anchors read off OCR's separate columns in booking order: the
// opening balance, the bookings (the first run of bare dates; a second run is the
// value dates), the closing balance. Booking texts come from the text column when it
// has one line per booking.
func columnAnchors(t *text, as []anchor) []anchor {
	var open, books, closing []anchor
	bareRun, inRun, runDone, prevIdx := 0, false, false, -2
	for _, a := range as {
		if a.bare && inRun && a.l.idx != prevIdx+1 {
			runDone = true // a second column of dates
		}
		if a.bare {
			prevIdx = a.l.idx
		}
		switch {
		case a.kind == anchorOpening:
			open = append(open, a)
		case a.kind == anchorClosing:
			closing = append(closing, a)
		case a.bare:
			if runDone {
				continue // value dates
			}
			books, inRun = append(books, a), true
			bareRun++
		default:
			if inRun {
				runDone = true
			}
			books = append(books, a)
		}
		if a.kind != anchorBooking && inRun {
			runDone = true
		}
	}
	if len(open) == 1 && len(closing) >= 1 && bareRun > 0 {
		var texts []line
		for _, l := range t.lines {
			if l.start > open[0].l.start && l.start < closing[len(closing)-1].l.start && l.page == open[0].l.page &&
				!amountOnly.MatchString(l.text) && bookingDate.FindStringIndex(l.text) == nil {
				texts = append(texts, l)
			}
		}
		if len(texts) == len(books) {
			for i := range books {
				books[i].text = normalizeSpace(texts[i].text)
			}
		}
	}
	out := append(open, books...)
	return append(out, closing...)
}

type closingFact struct {
	value parse.Money
	cite  evidence.Citation
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

var monthAbbrev = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "mär": 3, "mrz": 3, "apr": 4, "may": 5, "mai": 5, "jun": 6, "jul": 7,
	"aug": 8, "sep": 9, "oct": 10, "okt": 10, "nov": 11, "dec": 12, "dez": 12,
}

var (
	shortNumericDay = regexp.MustCompile(`^(\d{1,2})[./](\d{1,2})[./]?$`)
	shortNamedDay   = regexp.MustCompile(`^(\d{1,2})\.?\s+([A-Za-zäöüÄÖÜ]{3})`)
)

// bookingDay reads a booking date, the year taken from the statement when not printed.
func bookingDay(s string, year int) (time.Time, bool) {
	if d, ok := readDate(s); ok {
		return d, true
	}
	s = strings.TrimSpace(s)
	if m := shortNumericDay.FindStringSubmatch(s); m != nil {
		return validDay(year, atoi(m[2]), atoi(m[1]))
	}
	if m := shortNamedDay.FindStringSubmatch(s); m != nil {
		if mon, ok := monthAbbrev[strings.ToLower(m[2])]; ok {
			return validDay(year, int(mon), atoi(m[1]))
		}
	}
	return time.Time{}, false
}

func validDay(y, m, d int) (time.Time, bool) {
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t, m >= 1 && m <= 12 && t.Day() == d
}

func abs(c int64) int64 {
	if c < 0 {
		return -c
	}
	return c
}
