package parse

// DateOrder is the order of day and month in a document's numeric dates.
type DateOrder uint8

const (
	// DayFirst is the German and British order, "04/03/2025" is 4 March.
	DayFirst DateOrder = iota
	// MonthFirst is the US order, "03/04/2025" is 4 March. It applies to dates with
	// '/' or '-' only: a dotted "04.03.2025" is day first wherever it is printed.
	MonthFirst
)

// DateOrderOf decides the order of s's numeric dates from the dates that only one order
// can read: a 13 to 31 in the first place says day first, in the second month first.
// ok is false when s has no such date, or as many of either kind: the order is then
// not evidenced by the dates, and the caller decides from other evidence (language,
// currency) and says so.
func DateOrderOf(s string) (o DateOrder, ok bool) {
	t := lex(s)
	dayFirst, monthFirst := 0, 0
	for i := 0; i < len(t.toks); i++ {
		if t.kind(i) != digits {
			continue
		}
		sep := t.str(i + 1)
		if sep != "/" && sep != "-" || !t.is(i+3, sep) || t.kind(i+2) != digits || t.kind(i+4) != digits || t.inRun(i, i+4, sep) {
			continue
		}
		a, aok := t.small(i, 2)
		b, bok := t.small(i+2, 2)
		if _, yok := t.year(i+4, true); !aok || !bok || !yok || a < 1 || b < 1 {
			continue
		}
		switch {
		case a > 12 && a <= 31 && b <= 12:
			dayFirst++
		case b > 12 && b <= 31 && a <= 12:
			monthFirst++
		}
		i += 4
	}
	switch {
	case dayFirst > monthFirst:
		return DayFirst, true
	case monthFirst > dayFirst:
		return MonthFirst, true
	}
	return DayFirst, false
}
