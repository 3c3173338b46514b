package reader

import (
	"regexp"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

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

func (r *reading) payslipPage() {
	t := r.t
	var period time.Time
	var periodCite evidence.Citation
	for _, h := range t.find("abrechnung der brutto|abrechnungsmonat|abrechnungszeitraum|gehaltsabrechnung|lohnabrechnung|entgeltabrechnung|pay period|period|salary statement for|payslip for") {
		if notPeriodLine.MatchString(foldString(h.rest)) && !strings.Contains(h.l.f.s, "period") {
			continue
		}
		if m, c, ok := valueAfter(t, h, readMonth); ok {
			period, periodCite = m, c
			break
		}
	}
	if period.IsZero() {
		for i, l := range t.lines {
			if i > 15 {
				break
			}
			if notPeriodLine.MatchString(l.f.s) {
				continue
			}
			if m, ok := readMonth(l.text); ok {
				period, periodCite = m, t.citeLine(l)
				break
			}
		}
	}
	if !period.IsZero() {
		r.add(evidence.FactPayPeriod, period, periodCite, 0.9, period)
	}
	money := func(key string, specs ...string) {
		for _, spec := range specs {
			for _, h := range t.findStart(spec) {
				if v, c, ok := valueAfter(t, h, readMoney); ok && v.Cents > 0 {
					r.add(key, v, c, 0.9, period)
					return
				}
			}
		}
	}
	money("gross_monthly_income", "gesamtbrutto|gesamt-brutto|bruttolohn|bruttobezug|bruttogehalt|brutto gesamt|summe brutto|gross pay|total gross|gross salary|gross")
	money("net_monthly_income", "nettoverdienst|netto-verdienst|nettobezug|nettolohn|nettogehalt|net pay|net salary", "re:^netto\\b", "auszahlungsbetrag|amount paid|auszahlung|payout")

	if name, c, ok := r.personName("mitarbeiter/in|mitarbeiter|name, vorname|employee name|employee|arbeitnehmer", "re:^name\\b"); ok {
		r.add("applicant_full_name", name, c, 0.85, period)
	}
	r.employer(0.85, period)
	for _, h := range t.find("eintrittsdatum|eintritt|start date|employed since|beschäftigt seit|date of joining") {
		if d, c, ok := valueAfter(t, h, readDate); ok {
			r.add("employment_start_date", d, c, 0.85, period)
			break
		}
	}
	r.birthDate("geb.-datum|geburtsdatum|date of birth|geboren am", period)
	r.iban(0.8, period)
}

// personName reads the person's name after one of the labels, or from the address
// block ("Herrn" / "Frau" on a line of its own, the name under it).
func (r *reading) personName(specs ...string) (string, evidence.Citation, bool) {
	t := r.t
	for _, spec := range specs {
		for _, h := range t.findStart(spec) {
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
	return "", evidence.Citation{}, false
}

var letterheadLines = 8

// employer reads the employer after its label, else from the letterhead.
func (r *reading) employer(conf float64, period time.Time) {
	t := r.t
	for _, h := range t.findStart("arbeitgeber|employer|firma") {
		if name, c, ok := lineValue(t, h, readEmployer); ok {
			r.add("employer_name", name, c, conf, period)
			return
		}
	}
	for i, l := range t.lines {
		if i >= letterheadLines {
			break
		}
		if name, ok := readEmployer(l.text); ok && !bankName.MatchString(l.text) {
			r.add("employer_name", name, t.citeLine(l), conf-0.1, period)
			return
		}
	}
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
}
