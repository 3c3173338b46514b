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

var moneyInCols = regexp.MustCompile(`(?i)money\s+in|paid\s+in|haben|gutschrift\s*$`)

// booking is a transaction line read off a statement.
type bookingLine struct {
	l      line
	date   time.Time
	text   string
	amount parse.Money
	bal    *parse.Money
	col    int // byte column of the amount in the line
}

// bookings reads the transaction lines of a page and emits every incoming one. When a
// line shows a running balance after the amount (statements with "money out" and
// "money in" columns print amounts unsigned), the change of the balance gives the sign.
func (r *reading) bookings(year int, opening, closing *int64) {
	t := r.t
	inCol, balanceCol := -1, false
	for _, l := range t.lines {
		if loc := moneyInCols.FindStringIndex(l.text); loc != nil && strings.Contains(strings.ToLower(l.text), "out") {
			inCol = loc[0]
		}
		if balanceHeader.MatchString(l.text) {
			balanceCol = true
		}
	}
	var lines []bookingLine
	for _, l := range t.lines {
		m := bookingDate.FindStringSubmatchIndex(l.text)
		if m == nil {
			continue
		}
		d, ok := bookingDay(l.text[m[2]:m[3]], year)
		if !ok {
			continue
		}
		rest := l.text[m[1]:]
		ms, spans := amounts(rest)
		if len(ms) == 0 {
			continue
		}
		b := bookingLine{l: l, date: d}
		last := len(ms) - 1
		if len(ms) >= 2 && balanceCol {
			// amount, balance
			b.amount, b.bal = ms[last-1], &ms[last]
			b.col = m[1] + spans[last-1].Start
			b.text = strings.TrimSpace(rest[:spans[last-1].Start])
		} else {
			b.amount = ms[last]
			b.col = m[1] + spans[last].Start
			b.text = strings.TrimSpace(rest[:spans[last].Start])
		}
		b.text = strings.Join(strings.Fields(b.text), " ")
		lines = append(lines, b)
	}
	prev := opening
	for _, b := range lines {
		cents := b.amount.Cents
		signed := hasSign(b)
		switch {
		case b.bal != nil && prev != nil && !signed:
			delta := b.bal.Cents - *prev
			if abs(delta) == abs(cents) {
				cents = delta
			} else if inCol >= 0 && b.col < inCol-3 {
				cents = -abs(cents)
			}
		case b.bal != nil && !signed && inCol >= 0:
			if b.col < inCol-3 {
				cents = -abs(cents)
			}
		}
		if b.bal != nil {
			v := b.bal.Cents
			prev = &v
		} else if prev != nil {
			v := *prev + cents
			prev = &v
		}
		if cents <= 0 {
			continue
		}
		tx := evidence.Transaction{Date: b.date, AmountCents: cents, Currency: b.amount.Currency, Text: b.text}
		r.add(evidence.FactBankCredit, tx, t.citeLine(b.l), 0.85, monthOf(b.date))
	}
	_ = closing
}

var (
	balanceHeader = regexp.MustCompile(`(?i)(?:money out|paid out|betrag|amount).*\b(?:balance|saldo)\s*$`)
	signAfter     = regexp.MustCompile(`^[\d.,]+\s*(?:[-+]|S\b|H\b)`)
)

// hasSign reports whether the booking's amount was printed with a sign or a debit or
// credit marker.
func hasSign(b bookingLine) bool {
	s := b.l.text[b.col:]
	return strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") || signAfter.MatchString(s)
}

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
