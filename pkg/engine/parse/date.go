package parse

import (
	"strings"
	"time"
)

// Date finds the first calendar date in s and returns it as midnight UTC.
//
// Numeric dates are day first: "15.03.2026", "15.3.2026", "15/03/2026", "15-03-2026",
// "15.03.26" (two-digit years 00–69 are 20xx, 70–99 are 19xx); a four-digit year first
// makes them ISO order: "2026-03-15", "2026/03/15". Dates with a month name, German or
// English, full or abbreviated, in any case: "15. März 2026", "15 Mrz. 2026", "15 March
// 2026", "1st March 2026", "15-Mar-2026", "March 15, 2026". OCR spellings of März
// ("Maerz", "Marz") count. The date must exist ("31.02.2026" is none) and a four-digit
// year be at least 1000. Digit runs without separators, like the YYMMDD of a passport's
// machine-readable zone, are not dates. US month-first numeric dates ("03/15/2026") are
// not read, as the month would be 15; DateIn reads them when a document is known to
// be in that order.
func Date(s string) (time.Time, Span, bool) { return DateIn(s, DayFirst) }

// DateIn is Date for a document whose numeric dates are in order o.
func DateIn(s string, o DateOrder) (time.Time, Span, bool) {
	t := lex(s)
	t.usOrder = o == MonthFirst
	for i := range t.toks {
		if d, last, ok := t.date(i); ok {
			return d, t.span(i, last), true
		}
	}
	return time.Time{}, Span{}, false
}

// Month finds the first month in s, such as the pay period of a salary statement, and
// returns its first day, midnight UTC: "März 2026", "Mrz. 2026", "March 2026", "03/2026",
// "03.2026", "3-2026", "2026-03". A full date counts as its month, and the first of
// either kind wins. A month named after a day number is taken as a date or not at all:
// "31. Februar 2026" is no month.
func Month(s string) (time.Time, Span, bool) { return MonthIn(s, DayFirst) }

// MonthIn is Month for a document whose numeric dates are in order o.
func MonthIn(s string, o DateOrder) (time.Time, Span, bool) {
	t := lex(s)
	t.usOrder = o == MonthFirst
	for i := range t.toks {
		d, last, ok := t.date(i)
		if !ok {
			d, last, ok = t.month(i)
		}
		if ok {
			return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC), t.span(i, last), true
		}
	}
	return time.Time{}, Span{}, false
}

// months maps month names and abbreviations, folded by text.fold, to their month.
var months = map[string]time.Month{
	"januar": 1, "jänner": 1, "janner": 1, "jaenner": 1, "january": 1, "jan": 1, "jän": 1,
	"februar": 2, "feber": 2, "february": 2, "feb": 2, "febr": 2,
	"märz": 3, "maerz": 3, "marz": 3, "march": 3, "mär": 3, "mrz": 3, "mar": 3,
	"april": 4, "apr": 4,
	"mai": 5, "may": 5,
	"juni": 6, "june": 6, "jun": 6,
	"juli": 7, "july": 7, "jul": 7,
	"august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9,
	"oktober": 10, "october": 10, "okt": 10, "oct": 10,
	"november": 11, "nov": 11,
	"dezember": 12, "december": 12, "dez": 12, "dec": 12,
	// French, Italian, Spanish, Dutch and Portuguese, as payslips and statements of
	// those countries name the month.
	"janvier": 1, "gennaio": 1, "enero": 1, "januari": 1, "janeiro": 1,
	"février": 2, "fevrier": 2, "febbraio": 2, "febrero": 2, "februari": 2, "fevereiro": 2,
	"mars": 3, "marzo": 3, "maart": 3, "março": 3, "marco": 3,
	"avril": 4, "aprile": 4, "abril": 4,
	"maggio": 5, "mayo": 5, "mei": 5, "maio": 5,
	"juin": 6, "giugno": 6, "junio": 6, "junho": 6,
	"juillet": 7, "luglio": 7, "julio": 7, "julho": 7,
	"août": 8, "aout": 8, "agosto": 8, "augustus": 8,
	"septembre": 9, "settembre": 9, "septiembre": 9, "setiembre": 9, "setembro": 9,
	"octobre": 10, "ottobre": 10, "octubre": 10, "outubro": 10,
	"novembre": 11, "noviembre": 11, "novembro": 11,
	"décembre": 12, "decembre": 12, "dicembre": 12, "diciembre": 12, "dezembro": 12,
}

var ordinals = map[string]bool{"st": true, "nd": true, "rd": true, "th": true}

// date reads a date that starts at token i and returns its last token.
func (t *text) date(i int) (time.Time, int, bool) {
	switch t.kind(i) {
	case digits:
		if d, last, ok := t.numericDate(i); ok {
			return d, last, true
		}
		return t.dayFirst(i)
	case word:
		return t.monthFirst(i)
	}
	return time.Time{}, 0, false
}

// numericDate reads "15.03.2026", "15/3/26", "2026-03-15" and the like.
func (t *text) numericDate(i int) (time.Time, int, bool) {
	sep := t.str(i + 1)
	if sep != "." && sep != "/" && sep != "-" || !t.is(i+3, sep) || t.kind(i+2) != digits || t.inRun(i, i+4, sep) {
		return time.Time{}, 0, false
	}
	if len(t.str(i)) == 4 {
		d, ok := t.dateOf(i, false, t.monthNumber(i+2), i+4)
		return d, i + 4, ok
	}
	if t.usOrder && sep != "." { // a dotted date is day first everywhere
		d, ok := t.dateOf(i+4, true, t.monthNumber(i), i+2)
		return d, i + 4, ok
	}
	d, ok := t.dateOf(i+4, true, t.monthNumber(i+2), i)
	return d, i + 4, ok
}

// inRun reports whether the tokens first to last are part of a longer run of numbers
// joined by sep, like "1.15.03.2026" or a version "1.2.3.4".
func (t *text) inRun(first, last int, sep string) bool {
	return t.is(first-1, sep) && t.kind(first-2) == digits || t.is(last+1, sep) && t.kind(last+2) == digits
}

// dayFirst reads "15. März 2026", "15 Mrz. 2026", "1st March 2026", "15th of March
// 2026", "31 de octubre de 2026" and "15-Mar-26".
func (t *text) dayFirst(i int) (time.Time, int, bool) {
	j := i + 1
	if t.is(j, "-") {
		m, ok := months[t.fold(j+1)]
		if !ok || !t.is(j+2, "-") {
			return time.Time{}, 0, false
		}
		d, ok := t.dateOf(j+3, true, m, i)
		return d, j + 3, ok
	}
	apart := false // the day and the month must not be glued: "15März" is no date
	if t.is(j, ".") || ordinals[t.fold(j)] {
		apart = t.is(j, ".")
		j++
	}
	if t.kind(j) == space {
		apart = true
		j++
	}
	if (t.fold(j) == "of" || t.fold(j) == "de") && t.kind(j+1) == space {
		j += 2 // "15th of March", "31 de octubre" (ES, PT)
	}
	m, ok := months[t.fold(j)]
	if !ok || !apart {
		return time.Time{}, 0, false
	}
	j, ok = t.beforeYear(j + 1)
	if !ok {
		return time.Time{}, 0, false
	}
	d, ok := t.dateOf(j, false, m, i)
	return d, j, ok
}

// monthFirst reads "March 15, 2026", "Mar. 15 2026" and "March 15th, 2026".
func (t *text) monthFirst(i int) (time.Time, int, bool) {
	m, ok := months[t.fold(i)]
	j := t.optDot(i) + 1
	if !ok || t.kind(j) != space {
		return time.Time{}, 0, false
	}
	day := j + 1
	j = day + 1
	if ordinals[t.fold(j)] {
		j++
	}
	j, ok = t.beforeYear(j)
	if !ok {
		return time.Time{}, 0, false
	}
	d, ok := t.dateOf(j, false, m, day)
	return d, j, ok
}

// month reads a month without a day: "März 2026", "Mrz. 2026", "03/2026", "2026-03".
func (t *text) month(i int) (time.Time, int, bool) {
	switch t.kind(i) {
	case word:
		m, ok := months[t.fold(i)]
		if !ok || t.afterDay(i) {
			return time.Time{}, 0, false
		}
		j, ok := t.beforeYear(i + 1)
		if !ok {
			return time.Time{}, 0, false
		}
		d, ok := t.firstOf(j, m)
		return d, j, ok
	case digits:
		sep := t.str(i + 1)
		if t.inRun(i, i+2, sep) || t.kind(i+2) != digits {
			return time.Time{}, 0, false
		}
		if len(t.str(i)) == 4 && sep == "-" {
			d, ok := t.firstOf(i, t.monthNumber(i+2))
			return d, i + 2, ok
		}
		if sep == "/" || sep == "." || sep == "-" {
			d, ok := t.firstOf(i+2, t.monthNumber(i))
			return d, i + 2, ok
		}
	}
	return time.Time{}, 0, false
}

// beforeYear skips what may stand between a month name or day and the year: a dot, a
// comma, white space, at least one of them. It returns the year's token.
func (t *text) beforeYear(j int) (int, bool) {
	start := j
	if t.is(j, ".") {
		j++
	}
	if t.is(j, ",") {
		j++
	}
	j = t.skipSpace(j)
	if t.fold(j) == "de" && t.kind(j+1) == space && j > start {
		j = t.skipSpace(j + 1) // "octubre de 2026" (ES, PT)
	}
	return j, j > start
}

// afterDay reports whether the month name at token i follows a day number, as in
// "31. Februar 2026": that is an impossible date, not the month of February.
func (t *text) afterDay(i int) bool {
	j := t.skipSpaceBack(i - 1)
	if t.is(j, ".", "-") || ordinals[t.fold(j)] {
		j--
	}
	_, ok := t.small(j, 2)
	return ok
}

// year reads the year in digits token i: four digits from 1000 on, or two digits when
// short is allowed (00–69 are 20xx, 70–99 are 19xx).
func (t *text) year(i int, short bool) (int, bool) {
	switch y, ok := t.small(i, 4); {
	case !ok:
		return 0, false
	case len(t.str(i)) == 4:
		return y, y >= 1000
	case len(t.str(i)) == 2 && short:
		if y < 70 {
			return 2000 + y, true
		}
		return 1900 + y, true
	}
	return 0, false
}

// monthNumber returns the month in digits token i, 0 (no month) when there is none.
func (t *text) monthNumber(i int) time.Month {
	m, _ := t.small(i, 2)
	return time.Month(m)
}

// dateOf returns the date with the year in digits token y (two digits when short is
// allowed), month m and the day in digits token d.
func (t *text) dateOf(y int, short bool, m time.Month, d int) (time.Time, bool) {
	year, yok := t.year(y, short)
	day, dok := t.small(d, 2)
	return date(year, m, day, yok && dok)
}

// firstOf returns the first of month m in the four-digit year in digits token y.
func (t *text) firstOf(y int, m time.Month) (time.Time, bool) {
	year, ok := t.year(y, false)
	return date(year, m, 1, ok)
}

// date returns the date y-m-d, false when it does not exist or ok is false.
func date(y int, m time.Month, d int, ok bool) (time.Time, bool) {
	if !ok || m < time.January || m > time.December || d < 1 {
		return time.Time{}, false
	}
	v := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return v, v.Day() == d // time.Date moves 31 February on into March
}

// CompactDate reads a date printed as one run of digits, day, month and year with no
// separator: "210679" (DDMMYY) or "21061979" (DDMMYYYY), month first in order
// MonthFirst. Payroll systems print birth and entry dates so under a header row
// ("Geburtsdatum" over "210679"); only a caller that knows the cell holds a date should
// ask, as any six digits would do. s must be the digits alone, spaces around allowed.
// A two-digit year is the latest century that does not put the date after today; a
// four-digit one after today is no such date ("01107000").
func CompactDate(s string, o DateOrder, today time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) != 6 && len(s) != 8 {
		return time.Time{}, false
	}
	n := [3]int{}
	for i, w := range []int{2, 2, len(s) - 4} {
		from := []int{0, 2, 4}[i]
		for _, r := range s[from : from+w] {
			if r < '0' || r > '9' {
				return time.Time{}, false
			}
			n[i] = n[i]*10 + int(r-'0')
		}
	}
	day, month, year := n[0], n[1], n[2]
	if o == MonthFirst {
		day, month = month, day
	}
	if len(s) == 6 {
		year += today.Year() / 100 * 100
		if time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).After(today) {
			year -= 100
		}
	}
	d := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if month < 1 || month > 12 || day < 1 || d.Day() != day || year < 1000 || d.After(today) {
		return time.Time{}, false
	}
	return d, true
}
