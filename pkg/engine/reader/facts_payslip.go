package reader

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// FactPayout is what a payslip pays out: the net pay less what the payroll deducts
// after it (a savings plan, "VL/vermögenswirksame Leistungen", a garnishment), the
// amount the bank statement's salary credit shows. Value: parse.Money.
const FactPayout = "payout"

// payslip reads each page as one month's salary statement.
func (r *reading) payslip() {
	all := r.t
	for _, n := range all.pageNumbers() {
		r.t = all.onPage(n)
		r.payslipPage()
	}
	r.t = all
}

var notPeriodLine = labelPattern("eintritt|geb|start|birth|employed|beschäftigt|pay date|zahltag|datum")

// Payslip labels, most specific first.
var (
	// Gross: DATEV "Gesamt-Brutto", Lexware "Bruttobezüge", SAP "Gesamtbrutto", Sage
	// "Total Payments"/"Gross Pay", ADP "Gross Pay"/"Total Gross".
	// Other EU payslips: "Salaire brut" (FR), "Retribuzione lorda"/"Totale competenze"
	// (IT), "Total devengado" (ES), "Brutoloon" (NL), "Wynagrodzenie brutto" (PL),
	// "Remuneração bruta" (PT).
	grossSpec = "gesamtbrutto|gesamt-brutto|bruttolohn|bruttobezüge|bruttobezug|bruttogehalt|bruttoentgelt|bruttoverdienst|brutto gesamt|summe brutto|summe bezüge|gesamtbezüge|gross pay|total gross|gross salary|gross earnings|total payments|total earnings|total pay|salaire brut|total brut|retribuzione lorda|totale competenze|total devengado|salario bruto|brutoloon|brutosalaris|wynagrodzenie brutto|remuneracao bruta|gross"
	// Net: DATEV "Netto-Verdienst"/"Nettobetrag", Lexware "Nettobezüge", SAP
	// "Nettoverdienst", Sage "Net Pay", ADP "Net Pay", "Net salary" (statement style).
	// Other EU payslips: "Net à payer avant impôt"/"Salaire net" (FR), "Netto in busta"
	// (IT), "Líquido a percibir" (ES), "Nettoloon" (NL), "Wynagrodzenie netto" (PL),
	// "Vencimento líquido" (PT).
	netSpec = "nettoverdienst|netto-verdienst|nettobezüge|nettobezug|nettolohn|nettogehalt|nettoentgelt|nettobetrag|net pay|net salary|net earnings|net wages|net a payer|salaire net|netto in busta|netto a pagare|liquido a percibir|liquido total|nettoloon|nettosalaris|wynagrodzenie netto|vencimento liquido"
	// Payout: DATEV "Auszahlungsbetrag", SAP "Auszahlung", "Überweisungsbetrag", Sage
	// "Amount paid", "Take home pay", "Net payment".
	// Other EU payslips: "Net payé" (FR, after income tax withheld), "Netto te betalen"
	// (NL), "Do wypłaty" (PL).
	payoutSpec = "auszahlungsbetrag|überweisungsbetrag|auszahlung|überweisung|ausgezahlter betrag|amount paid|take home pay|take home|net payment|payout|net paye|netto te betalen|do wyplaty"
	// Employment start: DATEV "Eintritt", "Eintrittsdatum", "Beschäftigt seit", ADP
	// "Hire date"/"Date of hire", "Start date", "Employed since".
	startSpec = "eintrittsdatum|eintritt|beschäftigt seit|date of hire|hire date|start date|employed since|date of joining|betriebszugehörigkeit seit|date d'entree|date d'anciennete|data di assunzione|fecha de alta|fecha de antiguedad|datum in dienst|data zatrudnienia|data de admissao"
	// Birth date: DATEV "Geburtsdatum", "Geb.-Datum", "Date of birth".
	birthSpec = "geburtsdatum|geb.-datum|geb. datum|date of birth|geboren am|birth date|date de naissance|data di nascita|fecha de nacimiento|geboortedatum|data urodzenia|data de nascimento"
)

// bareNetto is "Netto" alone as a label ("Netto 2.345,67"); lines about the net's
// parts ("Netto-Abzüge", "SV-rechtliches Netto") are not the net pay.
var (
	periodLine  = labelPattern("period|zeitraum|abrechnungsmonat|pay date|zahltag")
	bareNetto   = labelPattern(`re:(?:^|\s)netto\b`)
	notNetLine  = labelPattern("abzüge|abzuge|abzug|deduction|bezüge/|steuerrechtlich|sv-rechtlich|steuer-")
	labelBefore = regexp.MustCompile(`[\p{L}]$`)
)

func (r *reading) payslipPage() {
	t := r.t
	loc := documentLocale(t)
	period, periodCite, span := r.payPeriod(loc)
	if !period.IsZero() {
		r.add(evidence.FactPayPeriod, period, periodCite, 0.9, period)
	}
	cols := payslipColumns(t)
	if period.IsZero() {
		span = -1 // no period printed: its length is unknown, not a month
	}
	factor, stated := payFrequency(t, span)
	grosses := r.payFigures(loc, cols, grossSpec, nil, payCandidates)
	nets := r.payFigures(loc, cols, netSpec, nil, payCandidates)
	if len(nets) == 0 {
		nets = r.payFigures(loc, cols, "", func(l line) bool { return bareNetto.MatchString(l.f.s) && !notNetLine.MatchString(l.f.s) }, payCandidates)
	}
	gross, net, sums := payPair(t, loc, grosses, nets)
	grossOK, netOK := len(grosses) > 0, len(nets) > 0
	grossAdj := sums
	if !grossOK && netOK {
		// The gross pay's figure garbled by OCR: the printed figure the deductions and
		// the net pay make up, less surely than one read after its label.
		if g, ok := garbledGross(t, loc, net); ok {
			gross, grossOK, grossAdj = g, true, sumsFailMalus
		}
	}
	payout, payoutOK := r.payFigure(loc, cols, payoutSpec, nil)
	// Net pay above gross pay on one payslip means one of them was misread (OCR lost a
	// digit, a label found another row's figure): both are given, but as doubtful.
	doubt := 1.0
	if grossOK && netOK && net.money.Currency == gross.money.Currency && net.money.Cents > gross.money.Cents {
		doubt = 0.55
	}
	monthly := func(key string, f payFigure, adj float64) {
		if v, conf, ok := monthlyFigure(f.money, factor, stated, convertStatedFrequency); ok {
			r.add(key, v, f.cite, (conf+adj)*doubt, period)
		}
	}
	if grossOK {
		monthly("gross_monthly_income", gross, grossAdj)
	}
	if netOK {
		monthly("net_monthly_income", net, sums)
	}
	// The payout is the net pay less deductions after it: it follows the net pay and
	// is no more than it. Without a net pay it is no net pay either.
	switch {
	case payoutOK && (!netOK || payout.line.idx > net.line.idx && payout.money.Cents <= net.money.Cents && payout.money.Currency == net.money.Currency):
		r.add(FactPayout, payout.money, payout.cite, 0.85, period)
	case netOK && factor != (ratio{1, 1}):
		// A weekly or bi-weekly stub pays its net pay as printed every period: that, not
		// the monthly figure, is what a bank statement shows credited.
		r.add(FactPayout, net.money, net.cite, 0.85, period)
	}

	// A pay stub's attached cheque names the payee after "Pay to the order of".
	if name, c, ok := r.surnameFirst(); ok {
		// "Cognome e nome: ROSSI MARCO": the label says the surname comes first.
		r.add("applicant_full_name", name, c, 0.85, period)
	} else if name, c, ok := r.personName("mitarbeiter/in|mitarbeiter|name, vorname|employee name|employee|arbeitnehmer|pay to the order of|#order of#|salarie|dipendente|trabajador|werknemer|pracownik", "re:^name\\b"); ok {
		r.add("applicant_full_name", name, c, 0.85, period)
	}
	r.employer(0.85, period)
	birth, birthOK := r.labelledDate(loc, birthSpec, nil)
	if birthOK && birth.d.Before(now().AddDate(-16, 0, 0)) {
		r.add("applicant_date_of_birth", birth.d, birth.cite, 0.85, period)
	}
	if start, ok := r.labelledDate(loc, startSpec, func(l line) bool { return !periodLine.MatchString(l.f.s) }); ok &&
		(!birthOK || !start.d.Equal(birth.d)) && start.d.After(time.Date(1940, 1, 1, 0, 0, 0, 0, time.UTC)) && start.d.Before(now().AddDate(1, 0, 0)) {
		r.add("employment_start_date", start.d, start.cite, 0.85, period)
	}
	r.iban(0.8, period)
}

// payFigure is a figure read after a payslip label.
type payFigure struct {
	money parse.Money
	cite  evidence.Citation
	line  line
}

// payFigure reads the month's figure after the first label of spec (or on the first
// line keep accepts) that has one: on the label's line, in the month's column, in the
// document's currency; a label of a year-to-date figure is skipped.
func (r *reading) payFigure(loc locale, cols payColumns, spec string, keep func(line) bool) (payFigure, bool) {
	fs := r.payFigures(loc, cols, spec, keep, 1)
	if len(fs) == 0 {
		return payFigure{}, false
	}
	return fs[0], true
}

// payFigures is payFigure for every label that has a figure, in page order, at most
// limit of them.
func (r *reading) payFigures(loc locale, cols payColumns, spec string, keep func(line) bool, limit int) []payFigure {
	var out []payFigure
	t := r.t
	var hits []labelHit
	if spec != "" {
		hits = t.findExact(spec)
	} else {
		for _, l := range t.lines {
			if keep(l) {
				hits = append(hits, labelHit{l: l, rest: l.text})
			}
		}
	}
	for _, h := range hits {
		// A label glued to a word before it is part of another one ("Steuerbrutto" is
		// no gross pay heading of its own; "Total Gross" is).
		if start := h.start; start > 0 && labelBefore.MatchString(h.l.text[:start]) && !strings.HasSuffix(h.l.text[:start], "Gesamt") {
			continue
		}
		if yearToDate.MatchString(foldString(labelTail(h.rest))) {
			continue // "Total Gross Pay TD", "Gesamtbrutto kumuliert"
		}
		if f, ok := payFigureAt(t, loc, cols, h); ok {
			out = append(out, f)
			if len(out) >= limit {
				break
			}
		}
	}
	return out
}

// payFigureAt reads the figure of one label: in the month's column of its line, else,
// when its line holds no figure, under it.
func payFigureAt(t *text, loc locale, cols payColumns, h labelHit) (payFigure, bool) {
	fs := loc.figures(h.rest)
	if f, ok := cols.monthFigure(h.l.text, h.end, fs); ok {
		if !f.Currency && !hasCents(h.rest[f.Span.Start:f.Span.End]) {
			// A bare whole number after a pay label is a count, a code or a callout's
			// number ("Net Pay  A total of all earnings …  3"), not the pay.
			return payFigure{}, false
		}
		if m, ok := figureMoney(f, loc); ok && m.Cents > 0 {
			return payFigure{m, t.citeLine(h.l), h.l}, true
		}
		return payFigure{}, false
	}
	if len(fs) > 0 {
		return payFigure{}, false
	}
	// The value under its label (a Word table cell, a value column OCR moved): a line
	// that is the amount alone, not a sentence that quotes one.
	lone := func(s string) (parse.Money, bool) { return loneMoney(s, loc) }
	// On a scan, OCR gives the figures' column as a block of its own: the figure that
	// stands on the label's row of the page (straightened; see layout.FromPage) is its own,
	// before any pairing of the blocks by order, which a row without a figure shifts.
	if pageIsOCR(t, h.l.page) {
		if v, c, ok := geoValue(t, h, lone, true); ok {
			return payFigure{v, c, h.l}, true
		}
	}
	if n, ok := t.next(h.l); ok && len(cellsOf(n.text)) == 1 {
		if m, ok := lone(n.text); ok {
			return payFigure{m, t.cite(h.l, n), n}, true
		}
	}
	if v, c, ok := pairedValue(t, h.l, lone); ok {
		return payFigure{v, c, h.l}, true
	}
	// The value under its label by the page's geometry: DATEV prints "Netto-Verdienst"
	// at the right edge over its amount, beside other columns' rows.
	if v, c, ok := geoValue(t, h, lone, false); ok {
		return payFigure{v, c, h.l}, true
	}
	return payFigure{}, false
}

// labelTail is the text after a label up to its first digit or currency sign: the
// rest of the label ("Gross Pay TD").
func labelTail(rest string) string {
	if i := strings.IndexAny(rest, "0123456789$€£-("); i >= 0 {
		return rest[:i]
	}
	return rest
}

// loneMoney reads a cell that holds one positive amount and nothing else but its
// currency: no words ("this period are $3,115.38" is a sentence, not a value), and
// printed with its cents or its currency ("3" under "Net Pay" is a callout's number).
func loneMoney(s string, loc locale) (parse.Money, bool) {
	fs := loc.figures(s)
	if len(fs) != 1 || fs[0].Money.Cents <= 0 || strings.ContainsFunc(s[:fs[0].Span.Start]+s[fs[0].Span.End:], unicode.IsLetter) {
		return parse.Money{}, false
	}
	if !fs[0].Currency && !hasCents(s[fs[0].Span.Start:fs[0].Span.End]) {
		return parse.Money{}, false // a bare whole number: a count or a callout's number
	}
	return figureMoney(fs[0], loc)
}

func figureMoney(f parse.Figure, loc locale) (parse.Money, bool) {
	m := f.Money
	if !f.Currency {
		if loc.currency == "" {
			return parse.Money{}, false
		}
		m.Currency = loc.currency
	}
	return m, true
}

// datedValue is a date read after a label.
type datedValue struct {
	d    time.Time
	cite evidence.Citation
}

// labelledDate reads the date after the first label of spec that has one: on the
// label's line, under it in a header row (column by column, never the first date of
// the row), or on the next line when that holds nothing else.
func (r *reading) labelledDate(loc locale, spec string, keep func(line) bool) (datedValue, bool) {
	t := r.t
	re := keyed(spec).re
	for _, l := range t.lines {
		m := re.FindStringIndex(l.f.s)
		if m == nil || keep != nil && !keep(l) {
			continue
		}
		end := l.f.orig[m[1]]
		rest := l.text[end:]
		if d, ok := loc.date(firstCell(rest)); ok {
			return datedValue{d, t.citeLine(l)}, true
		}
		if isHeaderRow(l) {
			from := utf8.RuneCountInString(l.f.s[:m[0]])
			to := from + utf8.RuneCountInString(l.f.s[m[0]:m[1]])
			if d, c, ok := headerValue(t, l, from, to, loc.cellDate); ok {
				return datedValue{d, c}, true
			}
			// A header row on a page without character columns (OCR): its geometry.
			h := labelHit{l: l, start: l.f.orig[m[0]], end: end}
			if d, c, ok := geoValue(t, h, loc.cellDate, false); ok {
				return datedValue{d, c}, true
			}
			continue // a header row whose column holds no date: not the next line's first date
		}
		if n, ok := t.next(l); ok && len(cellsOf(n.text)) == 1 {
			if d, ok := loc.date(n.text); ok {
				return datedValue{d, t.cite(l, n)}, true
			}
		}
		if v, c, ok := pairedValue(t, l, loc.date); ok {
			return datedValue{v, c}, true
		}
	}
	return datedValue{}, false
}

// firstCell is the text after a label up to the next gap of two spaces or a tab when
// a further label follows: "Eintritt 01.04.2019   Geb.-Datum 12.05.1985" gives the
// entry date only.
func firstCell(rest string) string {
	cs := cellsOf(rest)
	if len(cs) == 0 {
		return rest
	}
	s := strings.TrimLeft(cs[0].text, ": ")
	if s == "" && len(cs) > 1 {
		return cs[1].text
	}
	return s
}

// payPeriod reads the month the payslip covers, and for a pay stub with a printed
// period its length in days: 0 for a month named without dates, -1 when only the
// period's end is printed.
func (r *reading) payPeriod(loc locale) (time.Time, evidence.Citation, int) {
	t := r.t
	// US stubs: "Period Beginning: 03/01/2025", "Period Ending: 03/14/2025".
	var begin, end *datedValue
	if d, ok := r.labelledDate(loc, "period beginning|period start|pay period start|period from|pay begin date|pay period begin|period begin", nil); ok {
		begin = &d
	}
	if d, ok := r.labelledDate(loc, "period ending|period end|pay period end|period to|pay end date|pay period end date", nil); ok {
		end = &d
	}
	if end != nil {
		days := -1 // an end date alone says nothing of the period's length
		if begin != nil {
			days = int(end.d.Sub(begin.d).Hours()/24) + 1
		}
		return monthOf(end.d), end.cite, days
	}
	// The period's label: German, English, and "Période" (FR), "Periodo di retribuzione"
	// (IT), "Periodo de liquidación" (ES), "Periode"/"Loonperiode" (NL), "Okres
	// rozliczeniowy" (PL), "Período" (PT).
	for _, h := range t.find("abrechnung der brutto|abrechnungsmonat|abrechnungszeitraum|gehaltsabrechnung|lohnabrechnung|entgeltabrechnung|entgeltnachweis|pay period|period|salary statement for|payslip for|periode|periodo|loonperiode|okres rozliczeniowy") {
		if notPeriodLine.MatchString(foldString(h.rest)) && !strings.Contains(h.l.f.s, "period") {
			continue
		}
		if m := periodRange.FindStringSubmatch(h.rest); m != nil {
			a, aok := loc.date(m[1])
			b, bok := loc.date(m[2])
			if aok && bok && !b.Before(a) {
				return monthOf(b), t.citeLine(h.l), int(b.Sub(a).Hours()/24) + 1
			}
		}
		// The month on the title's line first: the line under a title is no value of
		// it ("Abrechnung der Brutto/Netto-Bezüge für 08/2025" over "Eintritt 01.02.2018").
		if m, ok := loc.month(h.rest); ok {
			return m, t.citeLine(h.l), 0
		}
		// Else the value under or beside it, unless that is another date of the
		// employment ("Eintritt 01.02.2018" under the title).
		notPeriod := func(s string) (time.Time, bool) {
			if otherDateLine.MatchString(foldString(s)) {
				return time.Time{}, false
			}
			return loc.month(s)
		}
		if m, c, ok := valueAfter(t, h, notPeriod); ok {
			return m, c, 0
		}
	}
	for i, l := range t.lines {
		if i > 15 {
			break
		}
		if notPeriodLine.MatchString(l.f.s) {
			continue
		}
		if m, ok := loc.month(l.text); ok {
			return m, t.citeLine(l), 0
		}
	}
	// A British payslip numbers its tax period ("Period 7") and dates the payment: the
	// month paid is the month of the pay date.
	if d, ok := r.labelledDate(loc, "pay date|payment date|date paid|paid on|zahltag|auszahlungsdatum", nil); ok {
		return monthOf(d.d), d.cite, 0
	}
	return time.Time{}, evidence.Citation{}, 0
}

// otherDateLine is a line with a date of the employment or the person, not the pay
// period's.
var otherDateLine = labelPattern("eintritt|geb|start|birth|employed|beschäftigt|austritt|hire")

var periodRange = regexp.MustCompile(`(\S+(?:\s\S+\s\d{4})?)\s*(?:-|–|bis|to|until)\s*(\S+(?:\s\S+\s\d{4})?)`)

// convertStatedFrequency turns a weekly or bi-weekly payslip's figures into monthly
// ones when the payslip states its frequency (ADP "Pay Frequency: Bi-Weekly"): the
// frequency is what makes the monthly figure derivable. A payslip of a short period
// that does not state it gives none.
const convertStatedFrequency = true

// monthlyFigure is a payslip figure as a monthly one: as printed for a monthly payslip;
// for a weekly or bi-weekly one scaled by its stated frequency (52 or 26 pays a year
// over 12 months, rounded half up to the cent) when convert is on, at a lower
// confidence; otherwise none.
func monthlyFigure(v parse.Money, factor ratio, stated, convert bool) (parse.Money, float64, bool) {
	if factor == (ratio{1, 1}) {
		return v, 0.9, true
	}
	if !stated || !convert || factor.den == 0 {
		return parse.Money{}, 0, false
	}
	v.Cents = (v.Cents*factor.num + factor.den/2) / factor.den
	return v, 0.75, true
}

// ratio is a factor num/den.
type ratio struct{ num, den int64 }

var (
	biWeekly    = labelPattern("bi-weekly|biweekly|bi weekly|every two weeks|fortnightly|14-tägig|zweiwöchentlich")
	weekly      = labelPattern("re:\\b(?:weekly|wöchentlich|wochentlich)\\b")
	semiMonthly = labelPattern("semi-monthly|semimonthly|twice a month|halbmonatlich")
	monthlyPay  = labelPattern("re:\\b(?:monthly|monatlich|month)\\b")
)

// payFrequency is the factor that turns the payslip's figures into monthly ones and
// whether the payslip states its frequency. periodDays is the printed period's length,
// 0 for a month named without dates, -1 when no period is printed.
func payFrequency(t *text, periodDays int) (ratio, bool) {
	for _, l := range t.lines {
		switch {
		case biWeekly.MatchString(l.f.s):
			return ratio{26, 12}, true
		case semiMonthly.MatchString(l.f.s):
			return ratio{2, 1}, true
		case weekly.MatchString(l.f.s):
			return ratio{52, 12}, true
		}
	}
	// A stub for a period of less than 25 days, or one that prints no period at all,
	// is monthly only where it says so.
	if periodDays < 0 || periodDays > 0 && periodDays < 25 {
		for _, l := range t.lines {
			if monthlyPay.MatchString(l.f.s) {
				return ratio{1, 1}, true
			}
		}
		return ratio{0, 1}, false
	}
	return ratio{1, 1}, true
}

// personName reads the person's name after one of the labels, or from the address
// block ("Herrn" / "Frau" on a line of its own, the name under it).
func (r *reading) personName(specs ...string) (string, evidence.Citation, bool) {
	t := r.t
	for _, spec := range specs {
		for _, h := range t.findStart(spec) {
			if numberLabel.MatchString(foldString(h.rest)) {
				continue // "Employee No:", "Mitarbeiter-Nr.": a number's label, not the name's
			}
			if name, c, ok := valueAfter(t, h, readName); ok {
				return name, c, true
			}
		}
	}
	for _, h := range t.findStart(`re:^(?:herrn|herr|frau|mr\.?|mrs\.?|ms\.?)\s*$`) {
		if n, ok := t.next(h.l); ok {
			if name, ok := readName(n.text); ok {
				return name, t.cite(h.l, n), true
			}
		}
	}
	if name, c, ok := senderAddressee(t); ok {
		return name, c, true
	}
	// A salutation and the name on one line over the street: "Monsieur Julien MARTIN".
	return titledName(t, true)
}

// surnameFirstLabels say that the name after them starts with the surname: "Cognome e
// nome" (IT), "Apellidos y nombre" (ES), "Nom Prénom" (FR), "Nachname, Vorname" (DE).
const surnameFirstLabels = "cognome e nome|cognome nome|apellidos y nombre|apellidos, nombre|nom prenom|nom et prenom|nachname, vorname|nachname vorname|familienname, vorname"

// surnameFirst reads a name after a label that puts the surname first: printed without
// a comma ("ROSSI MARCO"), its first word is the surname and goes last; with one, the
// comma says it already.
func (r *reading) surnameFirst() (string, evidence.Citation, bool) {
	for _, h := range r.t.findStart(surnameFirstLabels) {
		read := func(s string) (string, bool) {
			s = leadingCell(strings.TrimLeft(s, " \t:.-"))
			if ws := strings.Fields(s); !strings.Contains(s, ",") && len(ws) >= 2 && len(ws) <= 4 {
				s = ws[0] + ", " + strings.Join(ws[1:], " ") // readName takes "Surname, Given"
			}
			return readName(s)
		}
		if name, c, ok := valueAfter(r.t, h, read); ok {
			return name, c, true
		}
	}
	return "", evidence.Citation{}, false
}

// numberLabel starts the rest of a label that names a number: "Employee No:",
// "Personal-Nr.", "Employee ID".
var numberLabel = regexp.MustCompile(`^[\s.-]*(?:no\b|nr\b|number|nummer|id\b|code\b)`)

var letterheadLines = 8

// addressee matches the first line of the addressee's block: the employee's address is
// no employer.
var addressee = labelPattern(`re:^\s*(?:herrn|herr|frau|mr\.?|mrs\.?|ms\.?)\s*$`)

// employer reads the employer after its label, else from the letterhead or the sender
// line above the address window; never from the employee's address block.
func (r *reading) employer(conf float64, period time.Time) {
	t := r.t
	// "Arbeitgeber", "Employer", "Employeur" (FR), "Ditta"/"Azienda"/"Datore di lavoro"
	// (IT), "Empresa" (ES, PT), "Werkgever" (NL), "Pracodawca" (PL), "Empregador" (PT).
	for _, h := range t.findExact("arbeitgeber|employer name|employer|firma|company|employeur|ditta|azienda|datore di lavoro|empresa|werkgever|pracodawca|empregador") {
		if start := h.start; start > 0 && labelBefore.MatchString(h.l.text[:start]) {
			continue
		}
		if name, c, ok := lineValue(t, h, readEmployer); ok {
			r.add("employer_name", name, c, conf, period)
			return
		}
	}
	skip := -1
	for i, l := range t.lines {
		if i >= letterheadLines {
			break
		}
		if addressee.MatchString(l.f.s) {
			skip = i + 4 // the addressee, the name, the street, the town
		}
		if i <= skip {
			continue
		}
		if name, ok := letterheadEmployer(t, l); ok {
			r.add("employer_name", name, t.citeLine(l), conf-0.1, period)
			return
		}
	}
	if name, c, ok := letterheadOrganization(t); ok {
		r.add("employer_name", name, c, letterheadOrgConfidence, period)
		return
	}
	// The sender line over the address window, anywhere on the first page (DATEV
	// prints it under its header grid).
	if l, sender, ok := senderLine(t); ok {
		if name, ok := readEmployer(sender); ok {
			r.add("employer_name", name, t.citeLine(l), conf-0.1, period)
			return
		} else if _, person := readName(sender); !person && organizationCell.MatchString(sender) {
			r.add("employer_name", sender, t.citeLine(l), letterheadOrgConfidence, period)
			return
		}
	}
	// The company's legal footer.
	if l, name, ok := footerEmployer(t); ok {
		r.add("employer_name", name, t.citeLine(l), letterheadOrgConfidence, period)
	}
}

// letterheadEmployer reads a company name in a letterhead line: the line's text from
// its start, else one of its cells (a title and the firm's name on one line,
// "Lohnabrechnung November 2026   Bäckerei Krume GmbH"); never a bank.
func letterheadEmployer(t *text, l line) (string, bool) {
	if bankName.MatchString(l.text) {
		return "", false
	}
	if name, ok := readEmployer(l.text); ok {
		// A text layer's cells are the letterhead's; OCR joins the cells of a line.
		if !pageIsOCR(t, l.page) {
			name = letterheadName(l.text, name)
		}
		return name, true
	}
	for _, c := range cellsOf(l.text)[1:] {
		if name, ok := readEmployer(c.text); ok {
			return name, true
		}
	}
	return "", false
}

// letterheadOrgConfidence is how sure an employer read from the letterhead's address
// block alone is: a university, an authority or a firm that prints no legal form.
const letterheadOrgConfidence = 0.6

// letterheadOrganization reads the sender at the very top of a text layer's first page
// when it prints no legal form: the first cell of one of the first lines, over a street
// and a town with its postcode in the same column ("The University of North Carolina
// at Chapel Hill" / "103 South Building, …" / "Chapel Hill, NC 27599-9100"). A person's
// name there is the employee's address block, not the employer's.
func letterheadOrganization(t *text) (string, evidence.Citation, bool) {
	for i, l := range t.lines {
		if i >= 3 || l.page != t.lines[0].page || pageIsOCR(t, l.page) {
			break
		}
		name := leadingCell(l.text)
		n1, ok1 := t.next(l)
		if !ok1 || strings.HasPrefix(n1.text, " ") != strings.HasPrefix(l.text, " ") {
			continue
		}
		n2, ok2 := t.next(n1)
		if !ok2 || !streetLine.MatchString(leadingCell(n1.text)) || !postcodeTown.MatchString(leadingCell(n2.text)) {
			continue
		}
		_, person := readName(name)
		titled := len(scorePage(&text{doc: t.doc, lines: []line{l}}).titled) > 0 // "Earnings Statement"
		if person || titled || !organizationCell.MatchString(name) || strings.Contains(name, ":") || headingWord.MatchString(name) {
			continue
		}
		return name, t.cite(l, n2), true
	}
	return "", evidence.Citation{}, false
}

// organizationCell is an organization's name: two to ten words, capitalized first, no
// digits.
var organizationCell = regexp.MustCompile(`^\p{Lu}[\p{L}&.,'\-]*(?:\s[\p{L}&.,'\-]+){1,9}$`)

// postcodeTown is a town with its postcode: "Chapel Hill, NC 27599-9100", "50667 Köln",
// "London SW1A 1AA".
var postcodeTown = regexp.MustCompile(`^(?:\p{L}[\p{L}.\- ]*,?\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?|(?:[A-Z]{1,2}-)?\d{4,5}\s+\p{L}[\p{L}.\- ]*|\p{L}[\p{L}.\- ]*\s+[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2})$`)

// letterheadName is a company name read up to its legal form (see readEmployer) with
// the words that follow the form in the letterhead's cell: a trade name's last words
// ("Now Corp Retail"), at most two capitalized words and nothing else in the cell.
func letterheadName(line, name string) string {
	for _, c := range cellsOf(line) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(c.text), name)
		if !ok {
			continue
		}
		ws := strings.Fields(rest)
		if len(ws) == 0 || len(ws) > 2 {
			return name
		}
		for _, w := range ws {
			if !cityCell.MatchString(w) || legalForm.MatchString(w) {
				return name
			}
		}
		return name + " " + strings.Join(ws, " ")
	}
	return name
}

var bankName = regexp.MustCompile(`(?i)bank|sparkasse|ING-DiBa`)

func (r *reading) birthDate(spec string, period time.Time) {
	t := r.t
	for _, h := range t.find(spec) {
		if d, c, ok := valueAfter(t, h, readDate); ok && d.Before(now().AddDate(-16, 0, 0)) {
			r.add("applicant_date_of_birth", d, c, 0.85, period)
			return
		}
	}
}

func (r *reading) iban(conf float64, period time.Time) {
	for _, l := range r.t.lines {
		if v, ok := readIBAN(l.text); ok {
			r.add("iban", v, r.t.citeLine(l), conf, period)
			return
		}
	}
	// An IBAN whose check digits fail, after its label and as long as its country's:
	// as printed (specimens print made-up ones), and never sure; less sure still where
	// OCR may have misread a character.
	for _, l := range r.t.lines {
		if v, ok := printedIBAN(l.text); ok {
			c := uncheckedIBANConfidence
			if pageIsOCR(r.t, l.page) {
				c = uncheckedIBANConfidenceOCR
			}
			r.add("iban", v, r.t.citeLine(l), c, period)
			return
		}
	}
}

// Confidence of an IBAN read as printed although its check digits fail.
const (
	uncheckedIBANConfidence    = 0.5
	uncheckedIBANConfidenceOCR = 0.3
)
