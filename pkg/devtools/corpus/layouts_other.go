package corpus

import (
	"fmt"
)

// Letters of type "other" that print amounts, dates and the applicant's address but
// none of the submission's data fields: a car dealer bank's loan offer (its loan is
// not the financing applied for) and an everyday letter. A value the engine takes from
// them is invented.

func (w *world) carLoanOffer() docSpec {
	r, p, lang := w.r, w.app, w.docLang()
	printed, _ := p.name(nameStyle{Middle: chance(r, 0.5)})
	loan := int64(8+r.IntN(30)) * 100000
	months := pick(r, []int{36, 48, 60, 72})
	rate := 3.9 + float64(r.IntN(300))/100
	monthly := loan/int64(months) + loan*int64(rate*100)/10000/24
	bank := pick(r, []string{"Autobank Nord AG", "Mobilitätsbank GmbH", "Fahrzeugkredit Süd AG"})
	car := pick(r, []string{"VW Golf 1.5 eTSI", "Škoda Octavia Combi", "Opel Corsa Electric", "BMW 118i"})
	var s sheet
	s.add(bold+bank, small+"Postfach 1120 · 38436 Wolfsburg", "")
	s.add(tr0(p.Female, "Frau", "Herrn"), printed, p.Street, p.ZIP+" "+p.City, "")
	s.add("\t\t"+p.City+", "+date(w.now.AddDate(0, 0, -r.IntN(20)), lang, 0), "")
	s.add(bold + tr(lang, "Ihr persönliches Finanzierungsangebot für Ihren "+car, "Your personal finance offer for your "+car))
	s.add("", tr(lang, "Sehr geehrte Kundin, sehr geehrter Kunde,", "Dear customer,"),
		tr(lang, "gerne unterbreiten wir Ihnen folgendes Angebot für die Finanzierung Ihres Fahrzeugs:", "we are pleased to offer you the following finance for your vehicle:"), "")
	s.add(tr(lang, "Fahrzeugpreis", "Vehicle price")+"\t"+money(loan+int64(2+r.IntN(8))*100000, lang)+" €",
		tr(lang, "Nettodarlehensbetrag", "Amount of credit")+"\t"+money(loan, lang)+" €",
		tr(lang, "Laufzeit", "Term")+"\t"+fmt.Sprint(months)+tr(lang, " Monate", " months"),
		tr(lang, "Gebundener Sollzins p. a.", "Fixed borrowing rate p.a.")+"\t"+decimal(rate, 2, lang)+" %",
		tr(lang, "Effektiver Jahreszins", "APR")+"\t"+decimal(rate+0.1, 2, lang)+" %",
		tr(lang, "Monatliche Rate", "Monthly instalment")+"\t"+money(monthly, lang)+" €", "")
	s.add(tr(lang, "Das Angebot ist bis zum "+date(w.now.AddDate(0, 0, 14), lang, 0)+" gültig.", "This offer is valid until "+date(w.now.AddDate(0, 0, 14), lang, 0)+"."),
		"", tr(lang, "Mit freundlichen Grüßen", "Kind regards"), bank)
	d := docSpec{Doc: Doc{Types: []string{"other"}, Language: lang, Layout: "other/car_loan_offer", Fields: map[string]any{}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 220, 330)
	return d
}

func (w *world) genericLetter() docSpec {
	r, p, lang := w.r, w.app, w.docLang()
	printed, _ := p.name(nameStyle{})
	var s sheet
	sender := pick(r, [][2]string{{"Hausverwaltung Weiß GmbH", "Property management Weiss GmbH"}, {"Stadtwerke Strom und Gas", "City utilities"}, {"HUK-COBURG Versicherung", "HUK-COBURG insurance"}})
	s.add(bold+tr(lang, sender[0], sender[1]), small+tr(lang, "Kundenservice · Postfach 4410", "Customer service · PO Box 4410"), "")
	s.add(printed, p.Street, p.ZIP+" "+p.City, "")
	s.add("\t\t"+date(w.now.AddDate(0, 0, -r.IntN(40)), lang, 0), "")
	s.add(bold + tr(lang, "Anpassung Ihrer monatlichen Abschlagszahlung", "Change to your monthly payment"))
	s.add("", tr(lang, "Sehr geehrte Damen und Herren,", "Dear Sir or Madam,"))
	s.add(tr(lang, "ab dem "+date(monthStart(w.now.AddDate(0, 1, 0)), lang, 0)+" beträgt Ihr monatlicher Abschlag "+money(int64(4000+r.IntN(15000)), lang)+" € statt bisher", "from "+date(monthStart(w.now.AddDate(0, 1, 0)), lang, 0)+" your monthly payment will be "+money(int64(4000+r.IntN(15000)), lang)+" € instead of"),
		tr(lang, money(int64(4000+r.IntN(15000)), lang)+" €. Ihr Guthaben aus der Jahresabrechnung von "+money(int64(1000+r.IntN(30000)), lang)+" € erstatten wir auf Ihr Konto.", money(int64(4000+r.IntN(15000)), lang)+" €. We will refund your credit of "+money(int64(1000+r.IntN(30000)), lang)+" € to your account."),
		"", tr(lang, "Mit freundlichen Grüßen", "Yours faithfully"), tr(lang, sender[0], sender[1]))
	d := docSpec{Doc: Doc{Types: []string{"other"}, Language: lang, Layout: "other/letter", Fields: map[string]any{}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 330)
	return d
}
