package corpus

import (
	"fmt"
	"time"
)

func (w *world) selfDisclosure() docSpec {
	r, p, lang := w.r, w.app, w.docLang()
	style := randomKV(r)
	ns := randomNameStyle(r)
	ns.SurnameFirst = true
	printed, truth := p.name(ns)
	var s sheet
	s.add(large+bold+tr(lang, "Selbstauskunft", "Self-disclosure"), tr(lang, "für Darlehensnehmer", "personal and financial statement of the borrower"), "")
	s.add(bold + tr(lang, "1. Persönliche Angaben", "1. Personal details"))
	s.kv(style, tr(lang, "Name, Vorname", "Surname, first name"), printed)
	s.kv(style, tr(lang, "Geburtsdatum", "Date of birth"), date(p.DOB, lang, 0))
	s.kv(style, tr(lang, "Anschrift", "Address"), p.Street+", "+p.ZIP+" "+p.City)
	s.kv(style, tr(lang, "Familienstand", "Marital status"), pick(r, []string{tr(lang, "ledig", "single"), tr(lang, "verheiratet", "married")}))
	s.add("", bold+tr(lang, "2. Beschäftigung und Einkommen", "2. Employment and income"))
	declaredNet := w.job.Net / 100 * 100 // whole units, as people declare it
	if w.country == "us" {
		declaredNet = w.job.Net * 26 / 12 / 100 * 100 // bi-weekly pay, declared per month
	}
	s.kv(style, tr(lang, "Arbeitgeber", "Employer"), w.emp.Name)
	s.kv(style, tr(lang, "Beschäftigt seit", "Employed since"), date(w.job.Start, lang, 0))
	probation := tr(lang, "nein", "no")
	if !w.job.ProbationEnd.Before(w.now) {
		probation = tr(lang, "ja", "yes")
	}
	s.kv(style, tr(lang, "In Probezeit", "On probation"), probation)
	fixed := tr(lang, "unbefristet", "permanent")
	if !w.job.FixedEnd.IsZero() {
		fixed = tr(lang, "befristet bis ", "fixed-term until ") + date(w.job.FixedEnd, lang, 0)
	}
	s.kv(style, tr(lang, "Arbeitsverhältnis", "Employment"), fixed)
	s.kv(style, tr(lang, "Nettoeinkommen monatlich", "Net monthly income"), money(declaredNet, lang)+" "+w.symbol())
	s.add("", bold+tr(lang, "3. Vermögen und Verbindlichkeiten", "3. Assets and liabilities"))
	f := map[string]any{"applicant_full_name": truth, "applicant_date_of_birth": p.DOB, "employer_name": w.emp.Name,
		"employment_start_date": w.job.Start, "net_monthly_income": Money{declaredNet, w.currency()}}
	if w.prop != nil {
		s.kv(style, tr(lang, "Eigenkapital", "Equity"), money(w.fin.Equity, lang)+" €")
		s.kv(style, tr(lang, "Gewünschter Darlehensbetrag", "Requested loan amount"), money(w.fin.Loan, lang)+" €")
		f["equity_amount"] = eur(w.fin.Equity)
	} else {
		s.kv(style, tr(lang, "Gewünschter Kreditbetrag", "Requested loan amount"), money(w.fin.Loan, lang)+" €")
	}
	f["loan_amount"] = eur(w.fin.Loan)
	s.kv(style, tr(lang, "Bestehende Ratenkredite", "Existing instalment loans"), tr(lang, "keine", "none"))
	garn := tr(lang, "nein", "no")
	if w.scen[scenGarnishment] {
		garn = tr(lang, "ja", "yes")
	}
	s.kv(style, tr(lang, "Bestehen Lohn- oder Kontopfändungen?", "Any wage or account garnishments?"), garn)
	s.add("", small+tr(lang, "Ich versichere die Richtigkeit und Vollständigkeit meiner Angaben.", "I confirm that the information given is true and complete."),
		"", p.City+", "+date(w.now.AddDate(0, 0, -r.IntN(10)), lang, 0)+"     "+tr(lang, "Unterschrift", "Signature"))
	d := docSpec{Doc: Doc{Types: []string{"self_disclosure"}, Language: lang, Layout: "self_disclosure", Fields: f, Names: []string{truth}}}
	if probation == tr(lang, "ja", "yes") {
		d.Risks = append(d.Risks, factProbation)
	}
	if !w.job.FixedEnd.IsZero() {
		d.Risks = append(d.Risks, factFixedTerm)
		d.RiskEnds = map[string]time.Time{factFixedTerm: w.job.FixedEnd}
	}
	if w.scen[scenGarnishment] {
		d.Risks = append(d.Risks, factGarnishment)
	}
	d.Pages = s.pages
	d.layout = layoutFor(r, 230)
	return d
}

var numberWords = map[int][2]string{3: {"drei", "three"}, 6: {"sechs", "six"}}

func (w *world) employmentContract() docSpec {
	r, p, j, e := w.r, w.app, w.job, w.emp
	lang := w.docLang()
	ns := nameStyle{Middle: chance(r, 0.5)}
	printed, truth := p.name(ns)
	gross := w.job.Base
	var s sheet
	probWords := fmt.Sprint(j.ProbationMonths)
	if chance(r, 0.5) {
		probWords = numberWords[j.ProbationMonths][tern(lang == "de", 0, 1)]
	}
	statedEnd := chance(r, 0.3)
	if lang == "de" {
		s.add(large+bold+"Arbeitsvertrag", "", "zwischen", e.Name+", "+e.Street+", "+e.ZIP+" "+e.City, "- nachfolgend \"Arbeitgeber\" genannt -", "und")
		s.add(tr0(p.Female, "Frau ", "Herrn ")+printed+", geboren am "+date(p.DOB, "de", 0)+",", "wohnhaft "+p.Street+", "+p.ZIP+" "+p.City, "- nachfolgend \"Arbeitnehmer\" genannt -", "")
		s.add(bold+"§ 1 Beginn des Arbeitsverhältnisses", "Das Arbeitsverhältnis beginnt am "+date(j.Start, "de", tern(chance(r, 0.3), 1, 0))+". Der Arbeitnehmer wird als "+j.Title+" eingestellt.", "")
		s.add(bold + "§ 2 Probezeit")
		if statedEnd {
			s.add("Die Probezeit dauert bis zum " + date(j.ProbationEnd, "de", 0) + ". Während der Probezeit kann das")
		} else {
			s.add("Die ersten " + probWords + " Monate des Arbeitsverhältnisses gelten als Probezeit. Während der Probezeit kann das")
		}
		s.add("Arbeitsverhältnis mit einer Frist von zwei Wochen gekündigt werden.", "")
		s.add(bold + "§ 3 Dauer")
		if j.FixedEnd.IsZero() {
			s.add("Das Arbeitsverhältnis wird auf unbestimmte Zeit geschlossen.")
		} else {
			s.add("Das Arbeitsverhältnis ist befristet und endet am " + date(j.FixedEnd, "de", 0) + ", ohne dass es einer Kündigung bedarf.")
		}
		s.add("", bold+"§ 4 Vergütung", "Der Arbeitnehmer erhält ein monatliches Bruttogehalt von "+money(gross, "de")+" EUR, zahlbar jeweils zum Monatsende.", "")
		s.add(bold+"§ 5 Arbeitszeit und Urlaub", "Die regelmäßige Arbeitszeit beträgt 40 Stunden pro Woche. Der Urlaubsanspruch beträgt 30 Arbeitstage.", "")
		s.add(e.City+", "+date(j.Start.AddDate(0, -1-r.IntN(2), 0), "de", 0), "", "Arbeitgeber                              Arbeitnehmer")
	} else {
		s.add(large+bold+"Employment Contract", "", "between "+e.Name+", "+e.Street+", "+e.ZIP+" "+e.City+" (the \"Employer\")", "and "+printed+", born "+date(p.DOB, "en", 1)+", residing at "+p.Street+", "+p.ZIP+" "+p.City+" (the \"Employee\")", "")
		s.add(bold+"1. Commencement", "The employment commences on "+date(j.Start, "en", tern(chance(r, 0.5), 1, 2))+". The Employee is employed as "+j.Title+".", "")
		s.add(bold + "2. Probationary period")
		if statedEnd {
			s.add("The probationary period ends on " + date(j.ProbationEnd, "en", 1) + ". During probation either party may terminate")
		} else {
			s.add("The first " + probWords + " months of employment are a probationary period. During probation either party may terminate")
		}
		s.add("with two weeks' notice.", "")
		s.add(bold + "3. Term")
		if j.FixedEnd.IsZero() {
			s.add("The employment is permanent and entered into for an indefinite period.")
		} else {
			s.add("The employment is fixed-term and ends on " + date(j.FixedEnd, "en", 1) + " without notice.")
		}
		if w.country == "us" {
			s.add("", bold+"4. Remuneration", "The Employee receives an annual base salary of $"+money(gross*26, "en")+", paid bi-weekly.", "")
		} else {
			s.add("", bold+"4. Remuneration", "The Employee receives a gross monthly salary of "+tern(w.country == "uk", "£", "EUR ")+money(gross, "en")+".", "")
		}
		s.add(e.City+", "+date(j.Start.AddDate(0, -1, 0), "en", 1), "", "Employer                              Employee")
	}
	f := map[string]any{"applicant_full_name": truth, "applicant_date_of_birth": p.DOB, "employer_name": e.Name,
		"employment_start_date": j.Start, "gross_monthly_income": Money{gross, w.currency()}}
	if w.country == "us" {
		delete(f, "gross_monthly_income") // an annual salary: the monthly figure is not printed
	}
	d := docSpec{Doc: Doc{Types: []string{"employment_contract"}, Language: lang, Layout: "employment_contract", Fields: f, Names: []string{truth},
		Risks: []string{factProbation}, RiskEnds: map[string]time.Time{factProbation: j.ProbationEnd}}}
	if !j.FixedEnd.IsZero() {
		d.Risks = append(d.Risks, factFixedTerm)
		d.RiskEnds[factFixedTerm] = j.FixedEnd
	}
	d.Pages = s.pages
	d.layout = layoutFor(r)
	return d
}

func (w *world) taxAssessment() docSpec {
	r, p := w.r, w.app
	year := w.now.Year() - 1 - r.IntN(2)
	printed, truth := p.name(nameStyle{Middle: chance(r, 0.5), Translit: chance(r, 0.2)})
	income := int64(30000+r.IntN(60000)) * 100
	var s sheet
	s.add(bold+"Finanzamt "+p.City, "", tr0(p.Female, "Frau", "Herrn"), printed, p.Street, p.ZIP+" "+p.City, "")
	s.add("Steuernummer "+fmt.Sprintf("%d/%d/%d", 200+r.IntN(700), 100+r.IntN(800), 10000+r.IntN(89999)), p.City+", "+date(w.now.AddDate(0, -3-r.IntN(6), 0), "de", 0), "")
	s.add(large+bold+"Bescheid für "+fmt.Sprint(year), bold+"über Einkommensteuer, Solidaritätszuschlag und Kirchensteuer", "")
	s.add("Festsetzung\tEinkommensteuer\tSolidaritätszuschlag", "festgesetzt werden\t"+money(income/5, "de")+" €\t0,00 €", "")
	s.add("Ermittlung des zu versteuernden Einkommens", "Einkünfte aus nichtselbständiger Arbeit\t\t"+money(income, "de")+" €", "Zu versteuerndes Einkommen\t\t"+money(income*85/100, "de")+" €")
	d := docSpec{Doc: Doc{Types: []string{"tax_assessment"}, Language: "de", Layout: "tax_assessment",
		Fields: map[string]any{"applicant_full_name": truth}, Names: []string{truth}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 200, 330)
	return d
}

func (w *world) pensionStatement() docSpec {
	r, p := w.r, w.app
	printed, truth := p.name(nameStyle{Middle: true})
	var s sheet
	s.add(bold+"Deutsche Rentenversicherung", "", tr0(p.Female, "Frau", "Herrn"), printed, p.Street, p.ZIP+" "+p.City, "")
	s.add(large+bold+"Renteninformation "+fmt.Sprint(w.now.Year()), "Versicherungsnummer: 65 "+p.DOB.Format("020106")+" "+string("ABCDEFGHJKLMNPRSTW"[r.IntN(18)])+" 5"+fmt.Sprint(r.IntN(10)), "Geburtsdatum: "+date(p.DOB, "de", 0), "")
	s.add("Sehr geehrte"+tr0(p.Female, " Frau ", "r Herr ")+p.Surname+",", "diese Renteninformation gibt Ihnen einen Überblick über Ihre bisher erworbenen Rentenanwartschaften.", "")
	s.add("Ihre Regelaltersrente würde nach heutigem Stand ab dem "+date(p.DOB.AddDate(67, 1, -p.DOB.Day()+1), "de", 0)+" monatlich", bold+money(int64(800+r.IntN(1500))*100+int64(r.IntN(100)), "de")+" Euro betragen.")
	d := docSpec{Doc: Doc{Types: []string{"pension_statement"}, Language: "de", Layout: "pension_statement",
		Fields: map[string]any{"applicant_full_name": truth, "applicant_date_of_birth": p.DOB}, Names: []string{truth}}}
	d.Pages = s.pages
	d.layout = layoutFor(r)
	return d
}

// financingOverview is a broker's financing proposal (type "other"), or for personal
// loans a loan application summary.
func (w *world) financingOverview() docSpec {
	r, f, lang := w.r, w.fin, w.docLang()
	var s sheet
	fields := map[string]any{"loan_amount": eur(f.Loan)}
	tabs := []float64{230, -420}
	if w.prop == nil {
		s.add(large+bold+tr(lang, "Kreditanfrage", "Loan application"), tr(lang, "Ratenkredit – Zusammenfassung", "Instalment loan – summary"), "")
		s.add(tr(lang, "Nettodarlehensbetrag", "Net loan amount") + "\t\t" + money(f.Loan, lang) + " €")
		s.add(tr(lang, "Laufzeit", "Term") + "\t\t" + fmt.Sprint(f.TermMonths) + tr(lang, " Monate", " months"))
		s.add(tr(lang, "Sollzins gebunden p.a.", "Fixed borrowing rate p.a.") + "\t\t" + decimal(f.RatePercent, 2, lang) + " %")
		s.add(tr(lang, "Effektiver Jahreszins", "APR") + "\t\t" + decimal(f.RatePercent+0.12, 2, lang) + " %")
		s.add(tr(lang, "Monatliche Rate", "Monthly instalment") + "\t\t" + money(f.MonthlyInstallm, lang) + " €")
		s.add(tr(lang, "Verwendungszweck", "Purpose") + "\t\t" + pick(r, []string{tr(lang, "Fahrzeugkauf", "Car purchase"), tr(lang, "Modernisierung", "Home improvement"), tr(lang, "Umschuldung", "Debt consolidation")}))
		d := docSpec{Doc: Doc{Types: []string{"other"}, Language: lang, Layout: "loan_application", Fields: fields}}
		d.Pages = s.pages
		d.layout = layoutFor(r, tabs...)
		return d
	}
	p := w.prop
	title := pick(r, []string{tr(lang, "Finanzierungsübersicht", "Financing overview"), tr(lang, "Finanzierungsvorschlag", "Financing proposal")})
	s.add(large+bold+title, tr(lang, "Objekt: ", "Property: ")+p.oneLine(), small+tr(lang, "erstellt von Hypothekenmakler Weiß & Kühn GmbH am ", "prepared by Weiss & Kuehn mortgage brokers on ")+date(w.now.AddDate(0, 0, -r.IntN(14)), lang, 0), "")
	s.add(bold + tr(lang, "Kosten", "Costs"))
	s.add(tr(lang, "Kaufpreis", "Purchase price") + "\t\t" + money(p.Price, lang) + " €")
	s.add(tr(lang, "Grunderwerbsteuer (6,5 %)", "Real estate transfer tax (6.5 %)") + "\t\t" + money(p.Price*65/1000, lang) + " €")
	s.add(tr(lang, "Notar und Grundbuch (2,0 %)", "Notary and land registry (2.0 %)") + "\t\t" + money(p.Price*2/100, lang) + " €")
	s.add(tr(lang, "Gesamtkosten", "Total costs")+"\t\t"+money(p.Price+f.Costs, lang)+" €", "")
	s.add(bold + tr(lang, "Finanzierung", "Financing"))
	s.add(pick(r, []string{tr(lang, "Eigenkapital", "Equity"), tr(lang, "Eigenmittel", "Own funds")}) + "\t\t" + money(f.Equity, lang) + " €")
	s.add(pick(r, []string{tr(lang, "Darlehensbetrag", "Loan amount"), tr(lang, "Annuitätendarlehen", "Annuity loan")}) + "\t\t" + money(f.Loan, lang) + " €")
	fields["equity_amount"] = eur(f.Equity)
	fields["purchase_price"] = eur(p.Price)
	fields["property_address"] = p.oneLine()
	s.add("")
	s.add(tr(lang, "Sollzins gebunden", "Borrowing rate (fixed)") + "\t\t" + decimal(f.RatePercent, 2, lang) + " %")
	s.add(tr(lang, "Anfängliche Tilgung", "Initial repayment") + "\t\t2,00 %")
	s.add(pick(r, []string{tr(lang, "Sollzinsbindung", "Fixed interest period"), tr(lang, "Zinsbindung", "Fixed-rate period")}) + "\t\t" + fmt.Sprint(f.FixedYears) + tr(lang, " Jahre", " years"))
	fields["fixed_interest_period"] = float64(f.FixedYears)
	s.add(tr(lang, "Monatliche Rate", "Monthly instalment") + "\t\t" + money(f.MonthlyInstallm, lang) + " €")
	if f.StateLTV {
		if f.LendingValue > 0 {
			s.add(tr(lang, "Beleihungswert", "Lending value") + "\t\t" + money(f.LendingValue, lang) + " €")
		}
		s.add(pick(r, []string{tr(lang, "Beleihungsauslauf", "Loan-to-value (LTV)"), tr(lang, "Beleihungsauslauf (BLA)", "Loan-to-value ratio")}) + "\t\t" + decimal(f.LTV, 1, lang) + " %")
		fields["loan_to_value"] = f.LTV
	}
	s.add("", small+tr(lang, "Unverbindliche Modellrechnung. Konditionen freibleibend.", "Non-binding illustration. Terms subject to change."))
	d := docSpec{Doc: Doc{Types: []string{"other"}, Language: lang, Layout: "financing_overview", Fields: fields}}
	d.Pages = s.pages
	d.layout = layoutFor(r, tabs...)
	return d
}
