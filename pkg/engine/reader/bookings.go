package reader

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/parse"
)

// bookingDate matches the date that starts a booking line: "03.03.2025", "03.03.",
// "03/03/2025", the American "03/04" (no year), "03 Mar", "3. Mär", "Mar 04"; a value
// date may follow.
var bookingDate = regexp.MustCompile(`^\s*(\d{1,2}[./]\d{1,2}[./](?:\d{2,4})?|\d{1,2}/\d{1,2}\b|\d{1,2}\.?\s+[A-Za-zäöüÄÖÜ]{3}\.?(?:\s+\d{4})?|[A-Z][a-z]{2}\.?\s+\d{1,2}\b(?:,?\s+\d{4})?)(?:\s+(\d{1,2}[./]\d{1,2}[./](?:\d{2,4})?))?`)

var (
	moneyInCols       = regexp.MustCompile(`(?i)money\s+in|paid\s+in`)
	balanceHeader     = regexp.MustCompile(`(?i)(?:money out|paid out|betrag|amount).*\b(?:balance|saldo)\s*$`)
	loneBalanceHeader = regexp.MustCompile(`(?i)^\s*(?:balance|saldo|kontostand)\s*(?:\(\s*(?:£|€|\$|eur|gbp|usd|chf)\s*\))?\s*$`)
	signAfter         = regexp.MustCompile(`^[\d.,]+\s*(?:[-+]|S\b|H\b)`)
	openingRe         = labelPattern(openingSpec)
	closingRe         = labelPattern(closingSpec)
	// carryRe marks a page's carried-over total ("Übertrag" at the foot of a page and
	// the head of the next, "Zwischensumme"): no booking, and no closing balance unless
	// the statement prints none.
	carryRe = labelPattern("übertrag|ubertrag|zwischensumme|zwischensaldo|subtotal|carried over|vortrag von blatt|vortrag auf blatt")
	// balanceOnRe is a balance "on" a date, "Kontostand am 01.03.2025", "Balance on
	// 1 March", "Solde créditeur au 31/10/2026": the opening one before the bookings,
	// the closing one after.
	balanceOnRe = labelPattern("kontostand am|saldo am|kontostand per|saldo per|balance on|balance as of|balance at|solde crediteur au")
)

const (
	anchorOpening = iota
	anchorClosing
	anchorBooking
	anchorCarry
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
	side   int          // colDebit or colCredit when the amount stands in such a column
	col    int          // byte column of the amount in its line
	from   *line        // the amount's own line when OCR moved the column away
	below  *line        // the line of the row's figures under its wrapped text
	bare   bool         // a booking line with nothing but dates: OCR's date column
	marked bool         // the amount had its own currency marker
	period time.Time    // the statement period its page names
	label  string       // a balance's label as folded
}

// pageAnchors reads a statement page's balances and bookings in order. Amount columns
// that OCR moved to the end of the page are put back by order. cols are the amount
// columns of the booking table, from this page's heading or the page before's; the
// page's own heading replaces them.
func pageAnchors(t *text, year int, loc locale, cols []column) ([]anchor, []column) {
	inCol, balanceCol := -1, false
	for _, l := range t.lines {
		if loc := moneyInCols.FindStringIndex(l.text); loc != nil {
			inCol = loc[0]
		}
		if balanceHeader.MatchString(l.text) || loneBalanceHeader.MatchString(l.text) {
			balanceCol = true // OCR puts each column heading on a line of its own
		}
		// A heading row with a balance column ("Money out (£)  Money in (£)  Balance
		// (£)"): a booking's last figure is the running balance, even where OCR kept
		// no positions to tell the columns apart.
		if c, ok := columnsOf(l); ok && slices.ContainsFunc(c, func(c column) bool { return c.kind == colBalance }) {
			balanceCol = true
		}
	}
	geometric := len(t.lines) > 0 && !pageIsOCR(t, t.lines[0].page)
	var as []anchor
	bookings := false
	section := 0          // the side of the section the bookings stand in (see sectionSide)
	var dayHead time.Time // the day a day-grouped statement's last date line names
	for i, l := range t.lines {
		if hs := summaryRow(t, l, loc); len(hs) > 0 {
			as = append(as, hs...)
			continue
		}
		if c, ok := columnsOf(l); ok && geometric {
			cols = c
			continue
		}
		if s := sectionSide(l); s != 0 {
			section = s
			continue
		}
		a := anchor{l: l}
		var restOff int
		switch {
		case carryRe.MatchString(l.f.s):
			a.kind = anchorCarry
			loc := carryRe.FindStringIndex(l.f.s)
			restOff = l.f.orig[loc[1]]
		case closingRe.MatchString(l.f.s):
			a.kind = anchorClosing
			loc := closingRe.FindStringIndex(l.f.s)
			restOff = l.f.orig[loc[1]]
		case openingRe.MatchString(l.f.s):
			a.kind = anchorOpening
			loc := openingRe.FindStringIndex(l.f.s)
			restOff = l.f.orig[loc[1]]
		case balanceOnRe.MatchString(l.f.s):
			a.kind = anchorOpening
			if bookings {
				a.kind = anchorClosing
			}
			loc := balanceOnRe.FindStringIndex(l.f.s)
			restOff = l.f.orig[loc[1]]
		default:
			d, off, ok := bookingLine(l, year, loc, &dayHead, !geometric)
			if !ok {
				continue
			}
			a.kind, a.date, restOff = anchorBooking, d, off
		}
		if a.kind != anchorBooking {
			a.label = l.f.s
		}
		rest := l.text[restOff:]
		fs := loc.figures(rest)
		figLine, figOff, figRest := l.text, restOff, rest
		if a.kind == anchorBooking && len(fs) == 0 && strings.TrimSpace(rest) != "" {
			// A booking text too long for its cell wraps, and the row's figures stand on
			// its last line: a line of figures alone, straight under it.
			if n, nfs, ok := figuresUnder(t, l, loc); ok {
				a.below, fs = &n, nfs
				figLine, figOff, figRest = n.text, 0, n.text
			}
		}
		last := len(fs) - 1
		pick := func(f parse.Figure) *parse.Money {
			m := f.Money
			return &m
		}
		switch {
		case last < 0:
			if a.kind == anchorBooking {
				a.text = normalizeSpace(rest)
				a.bare = a.text == ""
			}
		case a.kind != anchorBooking:
			a.amount, a.marked = pick(fs[last]), fs[last].Currency
		default:
			at := last
			if last >= 1 && balanceCol {
				at = last - 1
				a.bal = pick(fs[last])
			}
			if len(cols) > 0 {
				at, a.bal = byColumn(figRest, figOff, figLine, fs, cols, at, a.bal, &a.side)
			}
			f := fs[at]
			a.amount, a.marked, a.signed = pick(f), f.Currency, f.Signed
			a.col = figOff + f.Span.Start
			a.text = normalizeSpace(rest)
			if a.below == nil {
				a.text = normalizeSpace(rest[:f.Span.Start])
			}
			if restOff == 0 {
				// The date stood inside the line, or on a line of its own above: the
				// text is the line's words but its dates.
				a.text = normalizeSpace(anyDate.ReplaceAllString(a.text, " "))
			}
		}
		if a.kind == anchorBooking {
			bookings = true
			if a.amount != nil && a.bal == nil && !a.signed && a.side == 0 {
				a.side = section
			}
			if a.amount != nil && !a.bare {
				a.text = joinText(a.text, continuation(t, i, a))
			}
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
		ms, lines, ok := reassemble(t, len(as), balanceCol)
		aligned := !ok && rowAligned(t, as)
		if !ok && !aligned {
			ms, lines, ok = concatenatedRuns(t, len(as))
		}
		switch {
		case aligned:
			if !slices.ContainsFunc(as, func(a anchor) bool { return a.bal != nil }) {
				balanceColumn(t, as) // a balance column the rows left alone ("$" figures)
			}
		case ok:
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
		default:
			balanceColumn(t, as)
		}
	} else if balanceCol && len(as) > 2 && pageIsOCR(t, as[0].l.page) && !slices.ContainsFunc(as, func(a anchor) bool { return a.bal != nil }) {
		// OCR kept most amounts on their bookings' lines but read the running-balance
		// column as a block of its own: a run of one balance per anchor gives each
		// booking its balance (whose change proves its side) and each balance line its
		// figure.
		if ms, lines, ok := reassemble(t, len(as), true); ok {
			for i := range as {
				m, l := ms[i], lines[i]
				switch {
				case as[i].kind == anchorBooking:
					as[i].bal = &m
				case as[i].amount == nil:
					as[i].amount, as[i].from = &m, &l
				}
			}
		}
	}
	for i := range as {
		a := &as[i]
		// The "Money in" heading's offset sides an unsigned amount only where no running
		// balance does it better.
		if a.kind == anchorBooking && a.amount != nil && a.bal == nil && !a.signed && a.side == 0 && inCol >= 0 && a.from == nil {
			a.side = colCredit
			if a.col < inCol-3 {
				a.side = colDebit
			}
		}
	}
	return as, cols
}

// summaryRow reads a statement summary printed as a header row over its figures
// ("Opening balance   Money in   Money out   Closing balance" over "£1,020.45 …"): an
// opening and a closing anchor, each with the figure under its heading. None for any
// other line.
func summaryRow(t *text, l line, loc locale) []anchor {
	if !isHeaderRow(l) {
		return nil
	}
	n, ok := t.next(l)
	if !ok {
		return nil
	}
	var out []anchor
	for _, k := range []struct {
		re   *regexp.Regexp
		kind int
	}{{openingRe, anchorOpening}, {closingRe, anchorClosing}} {
		m := k.re.FindStringIndex(l.f.s)
		if m == nil {
			continue
		}
		from := utf8.RuneCountInString(l.f.s[:m[0]])
		to := from + utf8.RuneCountInString(l.f.s[m[0]:m[1]])
		read := func(s string) (parse.Figure, bool) {
			fs := loc.figures(s)
			return firstFigure(fs)
		}
		f, _, ok := headerValue(t, l, from, to, read)
		if !ok {
			h := labelHit{l: l, start: l.f.orig[m[0]], end: l.f.orig[m[1]]}
			if f, _, ok = geoValue(t, h, read, false); !ok {
				continue
			}
		}
		v := f.Money
		if !f.Currency {
			if loc.currency == "" {
				continue
			}
			v.Currency = loc.currency
		}
		out = append(out, anchor{l: l, kind: k.kind, amount: &v, marked: f.Currency, from: &n, label: l.f.s})
	}
	return out
}

func firstFigure(fs []parse.Figure) (parse.Figure, bool) {
	if len(fs) == 0 {
		return parse.Figure{}, false
	}
	return fs[0], true
}

// anyDate is a numeric day with its month, and year if printed: the dates a booking
// line carries besides its text.
var anyDate = regexp.MustCompile(`\b\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})?\b`)

// bookingLine reads the date of a booking line and where the rest of the line starts
// (its text and amounts). A booking is dated at the start of its line ("02.10. REWE
// 64,20-"); or inside it, between its text and its amount ("REWE Markt  02.10.2026
// 02.10.2026  -64,20", a description-first table; restOff 0); or, on a statement that
// groups its bookings by day, by the last line that is a date alone ("Thursday, 1
// October 2026"), which dayHead keeps.
func bookingLine(l line, year int, loc locale, dayHead *time.Time, ocr bool) (time.Time, int, bool) {
	if m := bookingDate.FindStringSubmatchIndex(l.text); m != nil {
		if d, ok := bookingDayIn(l.text[m[2]:m[3]], year, loc.order); ok {
			// A day's heading on a text layer; OCR reads a date column as lines of dates
			// alone, the amounts elsewhere.
			if !ocr && len(loc.figures(l.text[m[1]:])) == 0 && dateAlone(l.text, m[0], m[1]) {
				*dayHead = d
			}
			return d, m[1], true
		}
	}
	if ocr {
		if d, end, ok := garbledNamedDay(l.text, year); ok {
			return d, end, true
		}
	}
	d, sp, ok := parse.DateIn(l.text, loc.order)
	if ok && len(loc.figures(l.text[sp.End:])) > 0 && strings.TrimSpace(l.text[:sp.Start]) != "" {
		return d, 0, true
	}
	if ok && !ocr && dateAlone(l.text, sp.Start, sp.End) {
		*dayHead = d
		return time.Time{}, 0, false
	}
	if !dayHead.IsZero() && !ok && len(loc.figures(l.text)) > 0 && strings.IndexFunc(l.text, unicode.IsLetter) >= 0 {
		return *dayHead, 0, true
	}
	return time.Time{}, 0, false
}

// dateAlone reports a line that is a date and at most a weekday's name or a booking
// date's label ("Buchungsdatum: 02.10.2026", as Commerzbank heads its days): s[from:to]
// is the date.
func dateAlone(s string, from, to int) bool {
	rest := strings.Fields(strings.NewReplacer(",", " ", ".", " ", ":", " ").Replace(s[:from] + " " + s[to:]))
	return len(rest) == 0 || len(rest) == 1 && weekdays[strings.ToLower(rest[0])] || dayLabels[strings.ToLower(strings.Join(rest, " "))]
}

// dayLabels head a day's bookings with its date.
var dayLabels = map[string]bool{"buchungsdatum": true, "buchungstag": true, "booking date": true, "transaction date": true}

// weekdays are the days' names a day-grouped statement heads its days with.
var weekdays = map[string]bool{
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"montag": true, "dienstag": true, "mittwoch": true, "donnerstag": true, "freitag": true, "samstag": true, "sonntag": true,
	"mon": true, "tue": true, "wed": true, "thu": true, "fri": true, "sat": true, "sun": true,
	"mo": true, "di": true, "mi": true, "do": true, "fr": true, "sa": true, "so": true,
	"lundi": true, "mardi": true, "mercredi": true, "jeudi": true, "vendredi": true, "samedi": true, "dimanche": true,
}

// byColumn picks a booking line's amount and running balance by the columns their
// figures stand under; side is set from a debit or credit column. Figures under no
// heading leave the reading by position (at, bal) as it is.
func byColumn(rest string, restOff int, lineText string, fs []parse.Figure, cols []column, at int, bal *parse.Money, side *int) (int, *parse.Money) {
	amountAt, balAt := -1, -1
	for k, f := range fs {
		from, to := runeSpan(lineText, parse.Span{Start: restOff + f.Span.Start, End: restOff + f.Span.End})
		kind, ok := columnAt(cols, from, to)
		if !ok {
			return at, bal
		}
		switch kind {
		case colBalance:
			balAt = k
		default:
			if amountAt < 0 {
				amountAt = k
				*side = 0
				if kind == colDebit || kind == colCredit {
					*side = kind
				}
			}
		}
	}
	if amountAt < 0 {
		return at, bal
	}
	if balAt >= 0 {
		m := fs[balAt].Money
		bal = &m
	} else {
		bal = nil
	}
	return amountAt, bal
}

// figuresUnder reads the line straight under a booking line whose text holds no
// figure: when it is figures alone (an amount, a balance, an overdraft marker), they are
// the booking's, its text having wrapped to a second line.
func figuresUnder(t *text, l line, loc locale) (line, []parse.Figure, bool) {
	n, ok := t.next(l)
	if !ok || lineGap(t, l, n) {
		return line{}, nil, false
	}
	fs := loc.figures(n.text)
	if len(fs) == 0 || len(fs) > 3 || !figuresOnly.MatchString(n.text) {
		return line{}, nil, false
	}
	return n, fs, true
}

// figuresOnly is a line of amounts and nothing else but currency and side markers.
var figuresOnly = regexp.MustCompile(`^[\s\d.,'’+\-−()£$€]*(?:(?:EUR|GBP|USD|CHF|OD|CR|DR|S|H)[\s\d.,'’+\-−()£$€]*)*$`)

// pageMarker is a page's running head or foot ("Seite 1 von 2", "Page 2 of 3").
var pageMarker = labelPattern("re:(?:^|\\s)(?:seite|page|blatt)\\s*\\d+(?:\\s*(?:von|of|/)\\s*\\d+)?\\b")

// continuation collects the lines of booking text under the booking at line index i:
// lines without a date or an amount, indented at least as far as the booking's text
// (in a text layer that keeps the page's columns), up to the next anchor or gap.
func continuation(t *text, i int, a anchor) []string {
	l := t.lines[i]
	textCol := textColumn(a)
	if textCol <= 0 {
		return nil // OCR's lines keep no indentation: a line under could be anything
	}
	var out []string
	for j := i + 1; j < len(t.lines) && j <= i+4; j++ {
		n := t.lines[j]
		if n.page != l.page || lineGap(t, t.lines[j-1], n) || !continues(n, textCol) {
			break
		}
		out = append(out, normalizeSpace(n.text))
	}
	return out
}

// textOverPage collects the booking text that goes on at the head of the next page:
// the lines under the page's repeated table heading and before its first balance or
// booking, indented as the booking's text was.
func textOverPage(t *text, prev anchor, page []anchor) []string {
	col := textColumn(prev)
	if col <= 0 || len(t.lines) == 0 || pageIsOCR(t, t.lines[0].page) {
		return nil
	}
	heading := -1
	for i, l := range t.lines {
		if len(page) > 0 && l.start >= page[0].l.start {
			break
		}
		if _, ok := columnsOf(l); ok {
			heading = i
		}
	}
	if heading < 0 {
		return nil // no repeated heading: the head of the page is its letterhead
	}
	var out []string
	for _, n := range t.lines[heading+1:] {
		if len(page) > 0 && n.start >= page[0].l.start || !continues(n, col) {
			break
		}
		out = append(out, normalizeSpace(n.text))
	}
	return out
}

// textColumn is the rune column where a booking's text starts in its line, -1 when
// unknown.
func textColumn(a anchor) int {
	if a.text == "" {
		return -1
	}
	if k := strings.Index(a.l.text, strings.Fields(a.text)[0]); k >= 0 {
		return len([]rune(a.l.text[:k]))
	}
	return -1
}

// continues reports a line that can go on a booking's text starting at rune column
// col: indented as far, without a date, an amount, a balance label or a page number.
func continues(n line, col int) bool {
	lead := len([]rune(n.text)) - len([]rune(strings.TrimLeft(n.text, " \t")))
	if lead < col-1 || bookingDate.MatchString(n.text) || len(parse.Figures(n.text)) > 0 ||
		carryRe.MatchString(n.f.s) || closingRe.MatchString(n.f.s) || openingRe.MatchString(n.f.s) || pageMarker.MatchString(n.f.s) {
		return false
	}
	_, heading := columnsOf(n)
	return !heading
}

// lineGap reports an empty line between two lines of a page: a booking's text does not
// go on over one.
func lineGap(t *text, a, b line) bool {
	between := t.pages[a.page][a.end:b.start]
	return strings.Count(between, "\n") > 1
}

func joinText(s string, more []string) string {
	if len(more) == 0 {
		return s
	}
	return normalizeSpace(s + " " + strings.Join(more, " "))
}

func pageIsOCR(t *text, n int) bool {
	p := t.doc.Page(n)
	return p != nil && p.OCR
}

// columnAnchors puts anchors read off OCR's separate columns in booking order: the
// opening balance, the bookings (the first run of bare dates; a second run is the
// value dates), the closing balance. Booking texts come from the text column when it
// has one line per booking.
func columnAnchors(t *text, as []anchor) []anchor {
	// The booking dates are the longest run of bare dates on consecutive lines in date
	// order, the first of equal ones (a value-date column as long comes after it; a
	// lone date is the statement's own).
	bestFrom, bestLen := -1, 0
	for k := 0; k < len(as); {
		if !as[k].bare {
			k++
			continue
		}
		e := k + 1
		// A column's dates do not go back: a date before the last begins the next
		// column (the value dates read right after the booking dates).
		for e < len(as) && as[e].bare && as[e].l.idx == as[e-1].l.idx+1 && !as[e].date.Before(as[e-1].date) {
			e++
		}
		if e-k > bestLen {
			bestFrom, bestLen = k, e-k
		}
		k = e
	}
	var open, books, closing []anchor
	bareRun := 0
	for k, a := range as {
		switch {
		case a.kind == anchorOpening:
			open = append(open, a)
		case a.kind == anchorClosing:
			closing = append(closing, a)
		case a.kind == anchorCarry:
			continue
		case a.bare:
			if k < bestFrom || k >= bestFrom+bestLen {
				continue // value dates, or a date of the statement's head
			}
			books = append(books, a)
			bareRun++
		default:
			books = append(books, a)
		}
	}
	books = valuePairs(t, books)
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

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

var monthAbbrev = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "mär": 3, "mrz": 3, "apr": 4, "may": 5, "mai": 5, "jun": 6, "jul": 7,
	"aug": 8, "sep": 9, "oct": 10, "okt": 10, "nov": 11, "dec": 12, "dez": 12,
}

var (
	shortNumericDay = regexp.MustCompile(`^(\d{1,2})[./](\d{1,2})[./]?$`)
	shortNamedDay   = regexp.MustCompile(`^(\d{1,2})\.?\s+([A-Za-zäöüÄÖÜ]{3})`)
	shortMonthDay   = regexp.MustCompile(`^([A-Za-z]{3})\.?\s+(\d{1,2})$`)
)

// bookingDay reads a booking date, day first, the year taken from the statement when
// not printed.
// bookingDayIn reads a booking's day in the document's date order (a US statement's
// "03/04" is March 4), in the statement's year when the date names none.
func bookingDayIn(s string, year int, order parse.DateOrder) (time.Time, bool) {
	if d, _, ok := parse.DateIn(s, order); ok {
		return d, true
	}
	s = strings.TrimSpace(s)
	if m := shortNumericDay.FindStringSubmatch(s); m != nil {
		if order == parse.MonthFirst && strings.Contains(s, "/") {
			return validDay(year, atoi(m[1]), atoi(m[2]))
		}
		return validDay(year, atoi(m[2]), atoi(m[1]))
	}
	if m := shortNamedDay.FindStringSubmatch(s); m != nil {
		if mon, ok := monthAbbrev[strings.ToLower(m[2])]; ok {
			return validDay(year, int(mon), atoi(m[1]))
		}
	}
	if m := shortMonthDay.FindStringSubmatch(s); m != nil {
		if mon, ok := monthAbbrev[strings.ToLower(m[1])]; ok {
			return validDay(year, int(mon), atoi(m[2]))
		}
	}
	return time.Time{}, false
}

// ocrNamedDay is a day and a month's name as OCR garbles the name's last letter ("02
// Ocı", "20 Oc!", "03 Oc"); monthByTwo names the months two letters tell apart.
var (
	ocrNamedDay = regexp.MustCompile(`^\s*(\d{1,2})\.?\s+(\p{Lu}\p{Ll})[^\s\d]?(?:\s|$)`)
	monthByTwo  = map[string]time.Month{"ja": 1, "fe": 2, "ap": 4, "au": 8, "se": 9, "oc": 10, "ok": 10, "no": 11, "de": 12}
)

// garbledNamedDay reads a booking's day whose month name OCR garbled, where its first
// two letters name one month only; end is where the rest of the line starts.
func garbledNamedDay(s string, year int) (time.Time, int, bool) {
	m := ocrNamedDay.FindStringSubmatchIndex(s)
	if m == nil {
		return time.Time{}, 0, false
	}
	mon, ok := monthByTwo[strings.ToLower(s[m[4]:m[5]])]
	if !ok {
		return time.Time{}, 0, false
	}
	d, ok := validDay(year, int(mon), atoi(s[m[2]:m[3]]))
	return d, m[1], ok
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

// balanceColumn gives the bookings the running balances OCR read as a column of its
// own under a "Balance" heading, one per booking, when the page has such a run and it
// is as long as the bookings: the balance's changes then side the bookings.
// valueDateHead is the heading of a statement's value-date column.
var valueDateHead = labelPattern("valuta|wertstellung|value date|date de valeur|data valuta|fecha valor")

// valuePairs keeps the booking dates of a date column that OCR read row by row, each
// booking's date followed by its value date on a line of its own ("02.10.2026",
// "02.10.2026", "10.10.2026", …): where the page heads a value-date column and every
// pair of bare dates is a few days apart at most, every second one is a value date.
func valuePairs(t *text, books []anchor) []anchor {
	if len(books) < 2 || len(books)%2 != 0 || !slices.ContainsFunc(t.lines, func(l line) bool { return valueDateHead.MatchString(l.f.s) }) {
		return books
	}
	var kept []anchor
	for k := 0; k < len(books); k += 2 {
		a, b := books[k], books[k+1]
		if !a.bare || !b.bare || b.l.idx != a.l.idx+1 || b.date.Before(a.date.AddDate(0, 0, -7)) || b.date.After(a.date.AddDate(0, 0, 7)) {
			return books
		}
		kept = append(kept, a)
	}
	return kept
}

func balanceColumn(t *text, as []anchor) {
	var books []int
	for i, a := range as {
		if a.kind == anchorBooking {
			books = append(books, i)
		}
	}
	if len(books) == 0 {
		return
	}
	for i, l := range t.lines {
		if !loneBalanceHeader.MatchString(l.text) {
			continue
		}
		var run []line
		var ms []parse.Money
		for _, n := range t.lines[i+1:] {
			m, ok := loneFigure(n)
			if !ok || n.page != l.page {
				break
			}
			run, ms = append(run, n), append(ms, m)
		}
		if len(run) != len(books) {
			continue
		}
		for k, i := range books {
			as[i].bal, as[i].from = &ms[k], &run[k]
		}
		return
	}
}

// loneFigure reads a line that is one amount and nothing else: "$4,063.67", "-$945.46",
// "1.234,56 S".
func loneFigure(l line) (parse.Money, bool) {
	s := strings.TrimSpace(l.text)
	fs := parse.Figures(s)
	if len(fs) != 1 || fs[0].Span.Start != 0 || fs[0].Span.End != len(s) {
		return parse.Money{}, false
	}
	return fs[0].Money, true
}
