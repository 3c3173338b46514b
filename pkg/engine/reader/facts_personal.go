package reader

import (
	"regexp"
	"time"
)

// selfDisclosure reads a self-disclosure form (Selbstauskunft): label–value grids,
// values under or beside their labels (the layout pairs them when the page has
// words), and tick-box questions of which only the ticked answer counts.
func (r *reading) selfDisclosure() {
	t := r.t
	if name, c, ok := r.personName("name, vorname|surname, first name|name"); ok {
		r.add("applicant_full_name", name, c, 0.8, time.Time{})
	}
	r.birthDate("geburtsdatum|date of birth", time.Time{})
	for _, h := range t.findStart("arbeitgeber|employer") {
		if name, c, ok := valueAfter(t, h, tickedOnly(readEmployer)); ok {
			r.add("employer_name", name, c, 0.75, time.Time{})
			break
		}
	}
	for _, h := range t.find("beschäftigt seit|employed since") {
		if d, c, ok := valueAfter(t, h, tickedOnly(readDate)); ok {
			r.add("employment_start_date", d, c, 0.75, time.Time{})
			break
		}
	}
	r.moneyAfter("net_monthly_income", "nettoeinkommen|net monthly income|net income", 0.7)
	r.moneyAfter("loan_amount", "darlehenswunsch|gewünschter darlehensbetrag|requested loan amount|"+loanAmountSpec, 0.75)
	r.moneyAfter("equity_amount", equitySpec, 0.75)
	r.iban(0.7, time.Time{})
}

// employmentContract reads employer, employee, start date and salary; probation and
// fixed term are read with the other risks.
func (r *reading) employmentContract() {
	t := r.t
	for _, h := range t.find("zwischen|between") {
		v, c, ok := valueAfter(t, h, readEmployer)
		if ok {
			r.add("employer_name", v, c, 0.8, time.Time{})
			break
		}
	}
	party := regexp.MustCompile(`^\s*(?:und\s+|and\s+)?(?:Herrn|Herr|Frau|Mr\.?|Mrs\.?|Ms\.?)?\s*(.+?),\s*(?:geboren|geb\.|born)\s*(?:am\s*)?(.*)$`)
	for _, l := range t.lines {
		m := party.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		if name, ok := readName(m[1]); ok {
			r.add("applicant_full_name", name, t.citeLine(l), 0.8, time.Time{})
		}
		if d, ok := readDate(m[2]); ok {
			r.add("applicant_date_of_birth", d, t.citeLine(l), 0.8, time.Time{})
		}
		break
	}
	for _, h := range t.find("beginnt am|beginnt mit dem|commences on|begins on|starts on|start date|eintrittsdatum") {
		if d, c, ok := valueAfter(t, h, readDate); ok {
			r.add("employment_start_date", d, c, 0.85, time.Time{})
			break
		}
	}
	r.moneyAfter("gross_monthly_income", "bruttogehalt|bruttomonatsgehalt|gross monthly salary|monthly gross salary|gross salary", 0.75)
}

// letter reads the addressee of a tax assessment or pension statement.
func (r *reading) letter() {
	if name, c, ok := r.personName("name"); ok {
		r.add("applicant_full_name", name, c, 0.7, time.Time{})
	}
	r.birthDate("geburtsdatum|date of birth|geboren am", time.Time{})
}
