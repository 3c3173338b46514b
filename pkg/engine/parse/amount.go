package parse

import (
	"iter"
	"strings"
	"unicode"
)

// Amount finds the first amount of money in s.
//
// It reads German and English number formats: "3.250,00", "3,250.00", "1.234.567,89",
// "3250,5" (3250.50), the whole-euro "3.250,-" and "3.250,–", thousands grouped with a
// no-break or thin space ("1 234,56") or the Swiss apostrophe ("1'234.50"). When both
// '.' and ',' occur the last is the decimal separator; a lone one groups thousands
// when exactly three digits follow ("3.250" and "3,250" are 3250), else it is the
// decimal separator. Grouping must be consistent or the number has no reading.
//
// The currency marker may stand before or after the number, glued or spaced: "€",
// "EUR", "Euro", "$" and "US$" (USD), "£" (GBP), the capitalised ISO codes of common
// currencies (USD, CHF, GBP, PLN, …), and "TEUR", "T€", "k€" for thousands of euros. A
// scale word before the currency multiplies: "1,5 Mio. €", "$2bn", "120 Tsd. EUR". A
// minus ('-' or '−') before the number or its marker, or glued after the number or its
// marker ("1.234,56-", the bank-statement debit), makes the amount negative; so does an
// en dash glued before the number ("–500 €"). A minus between two numbers is a range
// or an operator ("1.000 - 2.000 €"), and one glued to a word a hyphen. Soll/Haben
// letters ("1.234,56 S"), "CR"/"DR" and parentheses are read by Figures.
//
// Numbers next to a currency marker win. When no number in s has one, the first number
// with two decimals or the ",-" ending is taken as euros; a bare integer only when it
// is all of s but for surrounding white space, so Amount("3250") works but a house
// number is never read as money. Numbers that are not amounts are skipped: dates
// ("15.03.2026"), numbers glued to letters ("DE89"), the blocks of an IBAN ("DE89 3704
// 0044 0532 0130 00 EUR"), numbers followed by another unit ("80 %", "12.30 Uhr", "85
// m²"), and numbers whose reading is unclear: "1 234,56" with an ordinary space
// (1234.56, or 234.56 after a count of 1), "1,5 Billionen" (a German Billion is an
// English trillion), "C$ 100" (not a US dollar). An amount with more than two
// decimals, or too large for an int64 of cents, is no amount.
//
// The span covers the number with its sign, marker and scale word.
func Amount(s string) (Money, Span, bool) {
	var fallback candidate
	found := false
	for c := range moneys(s, StrictSpaces) {
		if c.marked {
			return c.money, c.span, true
		}
		if !found {
			fallback, found = c, true
		}
	}
	if !found {
		return Money{}, Span{}, false
	}
	return fallback.money, fallback.span, true
}

// Amounts returns all amounts in s from left to right with their spans: those with a
// currency marker, and those without one that Amount would take if they stood alone.
// Calling Amount on the rest of s again and again instead would skip an amount without
// a marker that stands before one with a marker, as in a bank statement line
// "Gutschrift 1.234,56 Saldo 5.000,00 EUR".
func Amounts(s string) ([]Money, []Span) {
	var ms []Money
	var spans []Span
	for c := range moneys(s, StrictSpaces) {
		ms = append(ms, c.money)
		spans = append(spans, c.span)
	}
	return ms, spans
}

// moneys yields the numbers in s that read as money: with a currency marker, with two
// decimals or the ",-" ending, or as all of s.
func moneys(s string, g Grouping) iter.Seq[candidate] {
	return func(yield func(candidate) bool) {
		t := lex(s)
		t.plainSpaces = g == PlainSpaces
		whole := Span{
			len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace)),
			len(strings.TrimRightFunc(s, unicode.IsSpace)),
		}
		from := 0 // the tokens before are taken by the amounts yielded so far
		for i := 0; i < len(t.toks); i++ {
			if t.kind(i) != digits {
				continue
			}
			n := t.number(i)
			i = n.last
			c, ok := t.moneyAt(n, from)
			if !ok || !c.marked && !c.likely && c.span != whole {
				continue
			}
			if !yield(c) {
				return
			}
			from = c.last + 1
		}
	}
}

// candidate is a number read as money.
type candidate struct {
	money  Money
	span   Span
	last   int  // the last token of span
	marked bool // a currency marker stands next to it
	likely bool // it has two decimals or the ",-" ending: money even without a marker
	signed bool // a sign was printed with it
}

// currency is what a marker says about an amount: its ISO 4217 code and the power of
// ten the written number is scaled by ("TEUR" counts thousands of euros).
type currency struct {
	code string
	exp  int
}

// isoCodes are recognised in capitals only, since some are also words ("TRY").
var isoCodes = map[string]bool{
	"AUD": true, "BGN": true, "CAD": true, "CHF": true, "CNY": true, "CZK": true,
	"DKK": true, "EUR": true, "GBP": true, "HUF": true, "JPY": true, "NOK": true,
	"PLN": true, "RON": true, "SEK": true, "TRY": true, "USD": true,
	"SGD": true, "HKD": true, "NZD": true, "ZAR": true, "INR": true, "MXN": true,
	"BRL": true, "ISK": true, "MYR": true, "AED": true, "SAR": true, "ILS": true,
	"RSD": true, "UAH": true, "KRW": true, "THB": true, "IDR": true,
}

// currencyWords are recognised in any case.
var currencyWords = map[string]currency{
	"eur": {"EUR", 0}, "euro": {"EUR", 0}, "euros": {"EUR", 0},
	"teur": {"EUR", 3}, "keur": {"EUR", 3},
}

var currencySymbols = map[string]string{"€": "EUR", "$": "USD", "£": "GBP"}

// symbolCompounds are the words that may be glued to a currency symbol. Any other word
// glued to one makes the currency unclear: "C$" is a Canadian dollar.
var symbolCompounds = map[string]currency{
	"US$": {"USD", 0}, "T€": {"EUR", 3}, "k€": {"EUR", 3}, "K€": {"EUR", 3},
}

// scales are number words between an amount and its currency, in any case.
var scales = map[string]int{
	"k": 3, "tsd": 3, "tausend": 3, "thousand": 3,
	"mio": 6, "mill": 6, "million": 6, "millionen": 6, "millions": 6, "mn": 6,
	"mrd": 9, "milliarde": 9, "milliarden": 9, "bn": 9,
}

// unclearScales make an amount unreadable rather than wrong by a factor: a German
// "Billion" is an English trillion, and "m" may be million or metre.
var unclearScales = map[string]bool{
	"billion": true, "billions": true, "billionen": true, "trillion": true, "trillions": true, "m": true,
}

// otherUnits say that a number counts something other than money; percentages, areas
// and years are recognised by their own matchers. "h" is not among them: on a bank
// statement "1.234,56 H" is a credit (Haben).
var otherUnits = map[string]bool{
	"monat": true, "monate": true, "monaten": true, "month": true, "months": true,
	"tag": true, "tage": true, "tagen": true, "day": true, "days": true,
	"uhr": true, "std": true, "stunden": true, "hours": true,
	"kg": true, "km": true, "cm": true, "mm": true, "t": true, "stk": true, "stück": true, "x": true,
}

// moneyAt reads the number n as money, with the sign, currency and scale around it.
// Tokens before from belong to an earlier amount: in "500,00 € 1.234,56 €" the first
// "€" is no marker before 1.234,56.
func (t *text) moneyAt(n num, from int) (candidate, bool) {
	if t.afterPoint(n.first) || t.spacedGroup(n) || t.inIBAN(n) {
		return candidate{}, false
	}
	whole, frac, ok := t.value(n, false)
	if !ok {
		return candidate{}, false
	}
	tail, ok := t.moneyTail(n, frac)
	if !ok {
		return candidate{}, false
	}
	head, ok := t.moneyHead(n.first, from)
	if !ok || head.signed && tail.signed {
		return candidate{}, false
	}
	cur, last, neg := head.cur, tail.last, head.neg || tail.neg
	signed := head.signed || tail.signed
	switch {
	case head.marked: // before the number it cannot belong to an earlier amount
	case tail.marked:
		cur, last = tail.cur, tail.curLast
		if ng, ok := t.trailingSign(last + 1); ok && !head.signed && !tail.signed { // "1.234,56 €-"
			neg, last, signed = ng, last+1, true
		}
	case tail.scaled:
		return candidate{}, false // "1,5 Mio." counts something, but not clearly money
	default:
		cur = currency{code: "EUR"}
	}
	v, ok := cents(whole, frac, tail.exp+cur.exp)
	if !ok {
		return candidate{}, false
	}
	if neg {
		v = -v
	}
	c := candidate{
		money:  Money{Cents: v, Currency: cur.code},
		span:   t.span(head.first, last),
		last:   last,
		marked: head.marked || tail.marked,
		likely: len(frac) == 2 || tail.dash,
		signed: signed,
	}
	if !c.marked && n.last == n.first+2 && t.is(n.first+1, ".") && t.is(n.last+1, ".") {
		c.likely = false // "15.03." is a day and a month
	}
	return c, true
}

// moneyTail is what follows a number read as money, in this order: the whole-euro
// ending ",-" or a trailing sign, a scale word, a currency marker.
type moneyTail struct {
	last        int // the last token before the marker
	dash        bool
	neg, signed bool
	exp         int // the power of ten of the scale word
	scaled      bool
	cur         currency
	marked      bool
	curLast     int // the marker's last token
}

func (t *text) moneyTail(n num, frac string) (moneyTail, bool) {
	m := moneyTail{last: n.last}
	if m.dash = t.is(m.last+1, ",", ".") && t.is(m.last+2, "-", "–", "—"); m.dash {
		if frac != "" { // "3,25,-"
			return m, false
		}
		m.last += 2
		if t.is(m.last+1, "-") { // ",--"
			m.last++
		}
	} else if m.neg, m.signed = t.trailingSign(m.last + 1); m.signed {
		m.last++
	}
	after := m.last + 1
	k := t.skipSpace(after)
	if m.exp, m.scaled = scales[t.fold(k)]; m.scaled {
		m.last = t.optDot(k)
		k = t.skipSpace(m.last + 1)
	} else if unclearScales[t.fold(k)] {
		return m, false
	}
	m.cur, m.curLast, m.marked = t.markerAt(k)
	if m.marked && k > after && t.kind(k) == other && t.kind(m.curLast+1) == digits {
		// A symbol apart from the number and glued to the next one is that one's:
		// "907.80   $1,326.73" is a withdrawal and a dollar balance.
		m.marked = false
	}
	switch {
	case m.marked:
		return m, true
	case t.kind(k) == word && currencySymbols[t.str(k+1)] != "": // "C$"
		return m, false
	case m.scaled:
		return m, true
	}
	// A word glued to the number ("4b", "12x") or a unit of something else ("80 %")
	// makes it no amount; the statement markers "CR" and "DR" are glued to it too
	// ("1,234.56CR", read by Figures).
	return m, (t.kind(after) != word || sideMarks[t.str(after)] != 0) && !t.unitAt(after)
}

// moneyHead is what stands before a number read as money, outside in: a sign, a
// currency marker, a sign.
type moneyHead struct {
	first       int // the first token
	neg, signed bool
	cur         currency
	marked      bool
}

// moneyHead reads what stands before token first and not before token from.
func (t *text) moneyHead(first, from int) (moneyHead, bool) {
	h := moneyHead{first: first}
	if at, neg, ok := t.leadingSign(h.first); ok && at >= from {
		h.first, h.neg, h.signed = at, neg, true
	}
	p := t.skipSpaceBack(h.first - 1)
	if p < from {
		return h, !t.glued(h.first)
	}
	cur, preFirst, ok := t.markerBefore(p)
	switch {
	case ok:
		if t.scaleBefore(preFirst) { // "Mio. EUR 1,5"
			return h, false
		}
		h.first, h.cur, h.marked = preFirst, cur, true
		if at, neg, ok := t.leadingSign(h.first); ok && at >= from && !h.signed {
			h.first, h.neg, h.signed = at, neg, true
		}
		return h, true
	case currencySymbols[t.str(p)] != "": // a symbol glued to a word that does not name it
		return h, false
	}
	return h, !t.glued(h.first) // "DE89"
}

// singleMarker reads a currency marker that is token i alone.
func (t *text) singleMarker(i int) (currency, bool) {
	switch t.kind(i) {
	case word:
		if w := t.str(i); isoCodes[w] {
			return currency{code: w}, true
		}
		c, ok := currencyWords[t.fold(i)]
		return c, ok
	case other:
		code, ok := currencySymbols[t.str(i)]
		return currency{code: code}, ok
	}
	return currency{}, false
}

// markerAt reads a currency marker that starts at token i and returns its last token.
func (t *text) markerAt(i int) (currency, int, bool) {
	if t.kind(i) == word && t.kind(i+1) == other {
		if c, ok := symbolCompounds[t.str(i)+t.str(i+1)]; ok {
			return c, i + 1, true
		}
	}
	c, ok := t.singleMarker(i)
	return c, i, ok
}

// markerBefore reads a currency marker that ends at token i and returns its first token.
func (t *text) markerBefore(i int) (currency, int, bool) {
	if t.kind(i) == other && t.kind(i-1) == word {
		c, ok := symbolCompounds[t.str(i-1)+t.str(i)]
		return c, i - 1, ok
	}
	c, ok := t.singleMarker(i)
	return c, i, ok
}

// scaleBefore reports a scale word, perhaps abbreviated, right before token i.
func (t *text) scaleBefore(i int) bool {
	j := t.skipSpaceBack(i - 1)
	if t.is(j, ".") {
		j--
	}
	_, ok := scales[t.fold(j)]
	return ok
}

// unitAt reports a unit other than money at or after token i.
func (t *text) unitAt(i int) bool {
	for _, unit := range [...]func(*text, int) (int, bool){percentUnit, areaUnit, yearsUnit} {
		if _, ok := unit(t, i); ok {
			return true
		}
	}
	j := t.skipSpace(i)
	return otherUnits[t.fold(j)] || t.is(j, "‰", "°", "²", "³")
}
