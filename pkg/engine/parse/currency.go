package parse

// Currencies counts the currency markers of s by ISO 4217 code: "€", "EUR", "Euro",
// "$" and "US$" (USD), "£" (GBP), the capitalised ISO codes. A document's currency is
// what its markers say; a document without any says none, and its figures are not
// known to be money of any currency.
func Currencies(s string) map[string]int {
	t := lex(s)
	out := map[string]int{}
	for i := 0; i < len(t.toks); i++ {
		c, last, ok := t.markerAt(i)
		if !ok {
			continue
		}
		out[c.code]++
		i = last
	}
	return out
}

// MainCurrency is the currency s names most often, ok false when it names none or two
// equally often.
func MainCurrency(s string) (string, bool) {
	best, n, ties := "", 0, 0
	for code, k := range Currencies(s) {
		switch {
		case k > n:
			best, n, ties = code, k, 0
		case k == n:
			ties++
		}
	}
	return best, n > 0 && ties == 0
}
