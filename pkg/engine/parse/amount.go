package parse

import (
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
// marker ("1.234,56-", the bank-statement debit), makes the amount negative. Soll/Haben
// letters ("1.234,56 S") and parentheses are left to the caller.
//
// Numbers next to a currency marker win. When no number in s has one, the first number
// with two decimals or the ",-" ending is taken as euros; a bare integer only when it
// is all of s but for surrounding white space, so Amount("3250") works but a house
// number or an IBAN (even one in blocks followed by its account's currency) is never
// read as money. Numbers that are not amounts are skipped:
// dates ("15.03.2026"), numbers glued to letters ("DE89"), numbers followed by another
// unit ("80 %", "12.30 Uhr", "85 m²"), and numbers whose reading is unclear: "1 234,56"
// with an ordinary space (1234.56, or 234.56 after a count of 1), "1,5 Billionen" (a
// German Billion is an English trillion), "C$ 100" (not a US dollar). An amount with
// more than two decimals, or too large for an int64 of cents, is no amount.
//
// The span covers the number with its sign, marker and scale word.
func Amount(s string) (Money, Span, bool) {
	t := lex(s)
	whole := Span{
		len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace)),
		len(strings.TrimRightFunc(s, unicode.IsSpace)),
	}
	var fallback candidate
	found := false
	for i := 0; i < len(t.toks); i++ {
		if t.kind(i) != digits {
			continue
		}
		n := t.number(i)
		i = n.last
		c, ok := t.moneyAt(n)
		switch {
		case !ok:
		case c.marked:
			return c.money, c.span, true
		case !found && (c.likely || c.span == whole):
			fallback, found = c, true
		}
	}
	if !found {
		return Money{}, Span{}, false
	}
	return fallback.money, fallback.span, true
}

// candidate is a number read as money.
type candidate struct {
	money  Money
	span   Span
	marked bool // a currency marker stands next to it
	likely bool // it has two decimals or the ",-" ending: money even without a marker
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
func (t *text) moneyAt(n num) (candidate, bool) {
	var c candidate
	if t.afterPoint(n.first) || t.spacedGroup(n) || t.inIBAN(n) {
		return c, false
	}
	whole, frac, ok := t.value(n, false)
	if !ok {
		return c, false
	}
	start, last := n.first, n.last
	neg, signed := false, false

	// After the number: the whole-euro ending ",-" or a trailing sign, then perhaps a
	// scale word, then perhaps the currency.
	dash := t.is(last+1, ",", ".") && t.is(last+2, "-", "–", "—")
	if dash && frac != "" { // "3,25,-"
		return c, false
	}
	if dash {
		last += 2
		if t.is(last+1, "-") { // ",--"
			last++
		}
	} else if ng, ok := t.trailingSign(last + 1); ok {
		neg, signed, last = ng, true, last+1
	}
	after := last + 1
	k := t.skipSpace(after)
	exp, scaled := scales[t.fold(k)]
	if scaled {
		last = t.optDot(k)
		k = t.skipSpace(last + 1)
	} else if unclearScales[t.fold(k)] {
		return c, false
	}
	suf, sufLast, hasSuf := t.markerAt(k)
	switch {
	case hasSuf:
	case t.kind(k) == word && currencySymbols[t.str(k+1)] != "": // "C$"
		return c, false
	case t.kind(after) == word && !scaled: // glued to a word: "4b", "12x"
		return c, false
	case !scaled && t.unitAt(after):
		return c, false
	}

	// Before the number: a sign, then perhaps the currency, then perhaps a sign.
	if at, ng, ok := t.leadingSign(start); ok {
		if signed {
			return c, false // a sign at both ends
		}
		neg, signed, start = ng, true, at
	}
	p := t.skipSpaceBack(start - 1)
	pre, preFirst, hasPre := t.markerBefore(p)
	switch {
	case hasPre:
		if t.scaleBefore(preFirst) { // "Mio. EUR 1,5"
			return c, false
		}
		start = preFirst
		if at, ng, ok := t.leadingSign(start); ok && !signed {
			neg, start = ng, at
		}
	case currencySymbols[t.str(p)] != "": // a symbol glued to a word that does not name it
		return c, false
	case t.glued(start): // "DE89"
		return c, false
	}

	cur := currency{code: "EUR"}
	switch {
	case hasPre:
		cur = pre // before the number it cannot belong to an earlier one
	case hasSuf:
		cur, last = suf, sufLast
		if ng, ok := t.trailingSign(last + 1); ok && !signed { // "1.234,56 €-"
			neg, last = ng, last+1
		}
	case scaled:
		return c, false // "1,5 Mio." counts something, but not clearly money
	}
	v, ok := cents(whole, frac, exp+cur.exp)
	if !ok {
		return c, false
	}
	if neg {
		v = -v
	}
	c = candidate{
		money:  Money{Cents: v, Currency: cur.code},
		span:   t.span(start, last),
		marked: hasPre || hasSuf,
		likely: len(frac) == 2 || dash,
	}
	if !c.marked && n.last == n.first+2 && t.is(n.first+1, ".") && t.is(n.last+1, ".") {
		c.likely = false // "15.03." is a day and a month
	}
	return c, true
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
