package corpus

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// payslipLook is how one employer's payroll prints payslips: the same for all months.
type payslipLook struct {
	layout      string
	lang        string
	name        nameStyle
	periodStyle int
	showDOB     bool
	showIBAN    bool
	showStart   bool
	showPayout  bool  // an "Auszahlungsbetrag" line besides the net pay
	ytd         bool  // a year-to-date column
	vlSaving    int64 // capital-forming savings deducted after the net pay
	currency    string
	geometry    samplepdf.Layout
}

func (w *world) newPayslipLook(lang string) payslipLook {
	r := w.r
	l := payslipLook{lang: lang, name: randomNameStyle(r), periodStyle: r.IntN(3),
		showDOB: chance(r, 0.4), showIBAN: chance(r, 0.4), showStart: chance(r, 0.8),
		showPayout: chance(r, 0.5), ytd: chance(r, 0.3), currency: pick(r, []string{"", " €", " EUR"})}
	switch {
	case w.country == "uk":
		l.layout = "uk_paye"
	case w.country == "us":
		l.layout = "us_stub"
	case lang == "de":
		l.layout = pick(r, []string{"datev", "simple", "table", "datev_header", "datev_header", "sap_ytd", "sap_ytd"})
	default:
		l.layout = pick(r, []string{"uk", "statement"})
	}
	if w.country != "de" {
		l.showIBAN = false // British and American payslips do not print the account
	}
	switch l.layout {
	case "datev_header":
		l.showDOB, l.showStart = true, true // the header row always has both columns
	case "uk_paye", "us_stub":
		l.showDOB, l.showStart = false, false
	}
	if l.layout == "datev_header" && chance(r, 0.6) {
		l.vlSaving = 4000 // the employee's savings contract, paid from the net pay
	}
	if l.layout == "table" {
		l.name.SurnameFirst = true
	}
	if l.ytd {
		l.geometry = layoutFor(r, 60, -400, -500)
	} else {
		l.geometry = layoutFor(r, 60, -420)
	}
	if l.layout == "table" {
		l.geometry.Tabs[0] = 150 // "Name, Vorname" and its value side by side
	}
	if l.layout == "simple" || l.layout == "statement" {
		l.geometry.Tabs = []float64{200, -420, -510}
		if l.ytd {
			l.geometry.Tabs = []float64{200, -400, -500}
		}
	}
	switch l.layout {
	case "datev_header":
		l.geometry = layoutFor(r, 70, 150, 230, 270, 310, -510)
	case "sap_ytd":
		l.geometry = layoutFor(r, 150, -400, -510)
	case "uk_paye":
		l.geometry = layoutFor(r, -220, 250, -520)
	case "us_stub":
		l.geometry = layoutFor(r, 110, 180, -400, -510)
		l.name.Translit, l.name.Caps = true, true // stubs print names in plain capitals
	}
	return l
}

// payPeriod prints the month a payslip covers.
func payPeriod(m time.Time, lang string, style int) string {
	switch style {
	case 0:
		return monthName(m.Month(), lang) + " " + fmt.Sprint(m.Year())
	case 1:
		return m.Format("01/2006")
	}
	return date(m, lang, 0) + " - " + date(monthEnd(m), lang, 0)
}

// payslipPages prints one month's payslip.
func (w *world) payslipPage(l payslipLook, pm payMonth, ytdFactor int64) []string {
	var s sheet
	lang, p, e, j := l.lang, w.app, w.emp, w.job
	printed, _ := p.name(l.name)
	amt := func(c int64) string { return money(c, lang) + l.currency }
	row := func(label string, c int64) {
		if l.ytd {
			s.add(label + "\t\t" + amt(c) + "\t" + amt(c*ytdFactor))
		} else {
			s.add(label + "\t\t" + amt(c))
		}
	}
	if page, ok := w.issuerPayslipPage(l, pm); ok {
		return page
	}
	period := payPeriod(pm.Month, lang, l.periodStyle)
	var totalDed int64
	for _, d := range pm.Deductions {
		totalDed += d.Cents
	}
	switch l.layout {
	case "datev":
		s.add(small+e.Name+" · "+e.Street+" · "+e.ZIP+" "+e.City, "")
		s.add(tr0(p.Female, "Frau", "Herrn"), printed, p.Street, p.ZIP+" "+p.City, "")
		s.add(large + bold + "Abrechnung der Brutto/Netto-Bezüge für " + period)
		line := "Personal-Nr. " + j.PersonnelNo + "   Steuerklasse " + fmt.Sprint(j.TaxClass)
		if l.showStart {
			line += "   Eintritt " + j.Start.Format("02.01.2006")
		}
		s.add(line)
		if l.showDOB {
			s.add("Geb.-Datum " + p.DOB.Format("02.01.2006") + "   SV-Nummer 65 " + p.DOB.Format("020106") + " M 01" + fmt.Sprint(w.r.IntN(10)))
		}
		s.add("", bold+"Bezeichnung\t\tBetrag"+ytdHead(l, "Jahr"))
		for _, x := range pm.Lines {
			row(x.Label[0], x.Cents)
		}
		row(bold+"Gesamtbrutto", pm.Gross)
		s.add("")
		for _, x := range pm.Deductions {
			row(x.Label[0], x.Cents)
		}
		row(bold+"Nettoverdienst", pm.Net)
	case "simple":
		s.add(large+bold+"LOHNABRECHNUNG", "Abrechnungsmonat: "+period, "")
		s.add("Arbeitgeber: " + e.Name + ", " + e.Street + ", " + e.ZIP + " " + e.City)
		s.add("Mitarbeiter/in: " + printed)
		s.add("Personalnummer: " + j.PersonnelNo)
		if l.showDOB {
			s.add("Geburtsdatum: " + p.DOB.Format("02.01.2006"))
		}
		if l.showStart {
			s.add("Eintrittsdatum: " + j.Start.Format("02.01.2006"))
		}
		s.add("Steuerklasse: "+fmt.Sprint(j.TaxClass), "")
		for _, x := range pm.Lines {
			row(x.Label[0], x.Cents)
		}
		row(bold+"Bruttolohn", pm.Gross)
		s.add("Gesetzliche Abzüge:")
		for _, x := range pm.Deductions {
			row("  "+x.Label[0], x.Cents)
		}
		row("Summe Abzüge", totalDed)
		row(bold+"Netto", pm.Net)
	case "table":
		s.add(bold+e.Name, e.Street, e.ZIP+" "+e.City, "")
		s.add(large + bold + "Gehaltsabrechnung " + period)
		s.add("Name, Vorname\t" + printed)
		if l.showStart {
			s.add("Eintrittsdatum\t" + j.Start.Format("02.01.2006"))
		}
		if l.showDOB {
			s.add("Geburtsdatum\t" + p.DOB.Format("02.01.2006"))
		}
		s.add("Steuerklasse / Konfession\t"+fmt.Sprint(j.TaxClass)+" / "+pick(w.r, []string{"rk", "ev", "--"}), "")
		s.add(bold + "Lohnart\t\tBetrag EUR" + ytdHead(l, "kumuliert"))
		for _, x := range pm.Lines {
			row(x.Label[0], x.Cents)
		}
		row(bold+"Gesamt-Brutto", pm.Gross)
		for _, x := range pm.Deductions {
			row(x.Label[0], -x.Cents)
		}
		row(bold+"Netto-Verdienst", pm.Net)
	case "uk":
		s.add(large+bold+"PAYSLIP", "")
		s.add("Employer: " + e.Name)
		s.add("Employee: " + printed + "     Employee No: " + j.PersonnelNo)
		s.add("Pay period: " + period)
		if l.showStart {
			s.add("Start date: " + date(j.Start, "en", 0))
		}
		if l.showDOB {
			s.add("Date of birth: " + date(p.DOB, "en", 0))
		}
		s.add("Tax class: "+fmt.Sprint(j.TaxClass), "", bold+"Payments\t\tAmount"+ytdHead(l, "Year to date"))
		for _, x := range pm.Lines {
			row(x.Label[1], x.Cents)
		}
		row(bold+"Gross pay", pm.Gross)
		s.add(bold + "Deductions")
		for _, x := range pm.Deductions {
			row(x.Label[1], x.Cents)
		}
		row("Total deductions", totalDed)
		row(bold+"Net pay", pm.Net)
	default: // "statement"
		s.add(bold+e.Name, e.Street+", "+e.ZIP+" "+e.City, "")
		s.add(large+bold+"Salary statement", "Period: "+period, "")
		s.add("Name\t" + printed)
		s.add("Personnel number\t" + j.PersonnelNo)
		if l.showStart {
			s.add("Employed since\t" + date(j.Start, "en", 1))
		}
		if l.showDOB {
			s.add("Date of birth\t" + date(p.DOB, "en", 1))
		}
		s.add("")
		for _, x := range pm.Lines {
			row(x.Label[1], x.Cents)
		}
		row(bold+"Total gross", pm.Gross)
		for _, x := range pm.Deductions {
			row(x.Label[1], x.Cents)
		}
		row(bold+"Net salary", pm.Net)
	}
	payout := pm.Net - pm.Garnishment
	if pm.Garnishment > 0 {
		row(tr(lang, "Lohnpfändung Az. 81 M 2217/24", "Wage garnishment order 81 M 2217/24"), -pm.Garnishment)
	}
	if l.showPayout || pm.Garnishment > 0 {
		row(bold+tr(lang, "Auszahlungsbetrag", "Amount paid"), payout)
	}
	if l.showIBAN {
		s.add("", tr(lang, "Überweisung auf Konto ", "Paid to account ")+groupIBAN(w.acct.IBAN)+" ("+w.acct.Bank+")")
	}
	return s.pages[0]
}

func ytdHead(l payslipLook, label string) string {
	if l.ytd {
		return "\t" + label
	}
	return ""
}

func tr0(female bool, f, m string) string {
	if female {
		return f
	}
	return m
}

// payslipTruth is what a payslip of the look states.
func (w *world) payslipTruth(l payslipLook, pm payMonth) map[string]any {
	_, name := w.app.name(l.name)
	f := map[string]any{
		"applicant_full_name":  name,
		"employer_name":        w.emp.Name,
		"gross_monthly_income": Money{pm.Gross, w.currency()},
		"net_monthly_income":   Money{pm.Net, w.currency()},
	}
	if !pm.PayDate.IsZero() {
		// A bi-weekly pay stub prints its frequency, and that is what makes a monthly
		// figure derivable: 26 pay periods a year over 12 months, to the cent.
		f["gross_monthly_income"] = Money{biweeklyToMonthly(pm.Gross), w.currency()}
		f["net_monthly_income"] = Money{biweeklyToMonthly(pm.Net), w.currency()}
	}
	if l.showStart {
		f["employment_start_date"] = w.job.Start
	}
	if l.showDOB {
		f["applicant_date_of_birth"] = w.app.DOB
	}
	if l.showIBAN {
		f["iban"] = w.acct.IBAN
	}
	return f
}

// payslips adds the payslips: one file per month, or all months in one file.
func (w *world) payslips(r *rand.Rand) []docSpec {
	if len(w.job.Months) == 0 {
		return nil
	}
	lang := w.docLang()
	l := w.newPayslipLook(lang)
	w.payoutCut = l.vlSaving
	risks := func(pm payMonth) []string {
		if pm.Garnishment > 0 {
			return []string{factGarnishment}
		}
		return nil
	}
	mk := func(ms []payMonth) docSpec {
		d := docSpec{layout: l.geometry}
		d.Types, d.Language, d.Layout = []string{"salary_statement"}, lang, "salary_statement/"+l.layout
		for _, pm := range ms {
			d.Pages = append(d.Pages, w.payslipPage(l, pm, int64(pm.Month.Month())))
			d.PayPeriods = append(d.PayPeriods, pm.Month)
			d.NetPays = append(d.NetPays, pm.Net)
			if payout := pm.Payout - l.vlSaving; payout != pm.Net {
				d.Payouts = append(d.Payouts, payout)
			}
			d.Risks = append(d.Risks, risks(pm)...)
		}
		last := ms[len(ms)-1]
		d.Fields, d.Period = w.payslipTruth(l, last), last.Month
		d.Names = []string{d.Fields["applicant_full_name"].(string)}
		return d
	}
	if w.scen[scenMultiPayslipDoc] && len(w.job.Months) > 1 {
		return []docSpec{mk(w.job.Months)}
	}
	var out []docSpec
	for _, pm := range w.job.Months {
		out = append(out, mk([]payMonth{pm}))
	}
	return out
}

// biweeklyToMonthly is a bi-weekly amount in cents as a monthly one, rounded half up.
func biweeklyToMonthly(cents int64) int64 { return (cents*26 + 6) / 12 }
