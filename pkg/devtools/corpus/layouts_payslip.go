package corpus

import (
	"fmt"
	"time"
)

// Payslip layouts modelled on the payroll programs that print most real ones: DATEV
// (a header row of personnel data whose values sit in the row below; deductions after
// the net pay), SAP/Lexware (the month beside a cumulated column), Sage for British PAYE
// (payments and deductions side by side, the net pay in the middle of a totals line)
// and ADP for American bi-weekly pay stubs (current and year-to-date columns).

// currency is the ISO code of the applicant's payroll and bank.
func (w *world) currency() string {
	switch w.country {
	case "uk":
		return "GBP"
	case "us":
		return "USD"
	}
	return "EUR"
}

// symbol is the currency sign the applicant's documents print.
func (w *world) symbol() string {
	return map[string]string{"uk": "£", "us": "$"}[w.country] + tern(w.country == "de", "€", "")
}

// issuerPayslipPage prints the payslip in one of the issuer-modelled layouts; ok is
// false for the corpus's older layouts.
func (w *world) issuerPayslipPage(l payslipLook, pm payMonth) ([]string, bool) {
	var s sheet
	p, e, j := w.app, w.emp, w.job
	printed, _ := p.name(l.name)
	de := func(c int64) string { return money(c, "de") }
	en := func(c int64) string { return money(c, "en") }
	switch l.layout {
	case "datev_header":
		s.add(small+e.Name+" · "+e.Street+" · "+e.ZIP+" "+e.City, "")
		s.add(tr0(p.Female, "Frau", "Herrn"), printed, p.Street, p.ZIP+" "+p.City, "")
		s.add(large + bold + "Abrechnung der Brutto/Netto-Bezüge\t\t\t\t\t" + monthName(pm.Month.Month(), "de") + " " + fmt.Sprint(pm.Month.Year()))
		s.add(small+bold+"Pers.-Nr.\tGeburtsdatum\tEintritt\tStKl\tKonf.\tKK",
			j.PersonnelNo+"\t"+p.DOB.Format("02.01.2006")+"\t"+j.Start.Format("02.01.2006")+"\t"+fmt.Sprint(j.TaxClass)+"\t"+
				pick(w.r, []string{"rk", "ev", "--"})+"\t"+pick(w.r, []string{"AOK", "TK", "BARMER", "DAK"}), "")
		s.add(bold + "Lohnart\tBezeichnung\t\t\t\t\tBetrag")
		codes := []string{"2000", "2300", "2450", "2600"}
		for i, x := range pm.Lines {
			s.add(codes[i%len(codes)] + "\t" + x.Label[0] + "\t\t\t\t\t" + de(x.Cents))
		}
		s.add(bold + "Gesamt-Brutto\t\t\t\t\t\t" + de(pm.Gross))
		s.add(small + "Steuer-Brutto " + de(pm.Gross) + "   KV-Brutto " + de(pm.Gross) + "   RV-Brutto " + de(pm.Gross))
		for _, x := range pm.Deductions {
			s.add("\t" + x.Label[0] + "\t\t\t\t\t" + de(x.Cents))
		}
		s.add(bold + pick(w.r, []string{"Nettobetrag", "Netto-Verdienst"}) + "\t\t\t\t\t\t" + de(pm.Net))
		if l.vlSaving > 0 {
			s.add("\tVL-Sparen\t\t\t\t\t-" + de(l.vlSaving))
		}
		if pm.Garnishment > 0 {
			s.add("\tPfändung Az. 81 M 2217/24\t\t\t\t\t-" + de(pm.Garnishment))
		}
		s.add(bold + "Auszahlungsbetrag\t\t\t\t\t\t" + de(pm.Payout-l.vlSaving))
		if l.showIBAN {
			s.add("", small+"Bankverbindung "+groupIBAN(w.acct.IBAN)+" "+w.acct.BIC)
		}
	case "sap_ytd":
		n := int64(pm.Month.Month())
		s.add(bold+e.Name+"\t\tEntgeltnachweis", e.Street+", "+e.ZIP+" "+e.City, "")
		s.add(printed, p.Street, p.ZIP+" "+p.City, "")
		s.add("Abrechnungszeitraum\t"+date(pm.Month, "de", 0)+" - "+date(monthEnd(pm.Month), "de", 0), "Personalnummer\t"+j.PersonnelNo)
		if l.showStart {
			s.add("Eintrittsdatum\t" + date(j.Start, "de", 0))
		}
		if l.showDOB {
			s.add("Geburtsdatum\t" + date(p.DOB, "de", 0))
		}
		s.add("Steuerklasse\t"+fmt.Sprint(j.TaxClass), "")
		s.add(bold + "Bezeichnung\taktueller Monat\tkumuliert")
		for _, x := range pm.Lines {
			s.add(x.Label[0] + "\t" + de(x.Cents) + "\t" + de(x.Cents*n))
		}
		s.add(bold + "Gesamtbrutto\t" + de(pm.Gross) + "\t" + de(pm.Gross*n))
		for _, x := range pm.Deductions {
			s.add(x.Label[0] + "\t" + de(x.Cents) + "\t" + de(x.Cents*n))
		}
		s.add(bold + "Nettoverdienst\t" + de(pm.Net) + "\t" + de(pm.Net*n))
		if pm.Garnishment > 0 {
			s.add("Lohnpfändung\t-" + de(pm.Garnishment) + "\t-" + de(pm.Garnishment))
		}
		s.add(bold + "Auszahlung\t" + de(pm.Payout) + "\t" + de(pm.Payout*n))
		if l.showIBAN {
			s.add("", "Überweisung an IBAN "+groupIBAN(w.acct.IBAN))
		}
	case "uk_paye":
		period := (int(pm.Month.Month())+8)%12 + 1 // the tax year begins in April
		payDate := lastWeekday(monthEnd(pm.Month))
		s.add(bold+e.Name+"\t\t\tPAYSLIP", e.Street+", "+e.City+" "+e.ZIP, "")
		s.add("Name: "+printed+"\t\t\tEmployee No: "+j.PersonnelNo,
			"Tax Code: "+pick(w.r, []string{"1257L", "1257L", "BR", "K475"})+"\t\t\tNI Number: QQ "+digits(w.r, 2)+" "+digits(w.r, 2)+" "+digits(w.r, 2)+" C",
			"Period "+fmt.Sprint(period)+"\t\t\tPay Date: "+payDate.Format("02/01/2006"), "")
		s.add(bold + "Payments\tAmount\tDeductions\tAmount")
		rows := max(len(pm.Lines), len(pm.Deductions))
		var ded int64
		for i := range rows {
			left, right := "\t", "\t"
			if i < len(pm.Lines) {
				left = pm.Lines[i].Label[1] + "\t" + en(pm.Lines[i].Cents)
			}
			if i < len(pm.Deductions) {
				right = pm.Deductions[i].Label[1] + "\t" + en(pm.Deductions[i].Cents)
				ded += pm.Deductions[i].Cents
			}
			s.add(left + "\t" + right)
		}
		s.add("", "Total Gross Pay TD\t"+en(pm.Gross*int64(period))+"\tTax paid TD\t"+en(pm.Deductions[0].Cents*int64(period)))
		s.add(bold + "Total Payments £" + en(pm.Gross) + "    Total Deductions £" + en(ded) + "    Net Pay £" + en(pm.Net))
	case "us_stub":
		ytd := int64(pm.PayDate.YearDay()/14 + 1)
		s.add(bold+e.Name, e.Street+", "+e.City+", "+e.ZIP, "")
		s.add(large+bold+"Earnings Statement", "Period Beginning:\t"+pm.From.Format("01/02/2006"), "Period Ending:\t"+pm.To.Format("01/02/2006"),
			"Pay Date:\t"+pm.PayDate.Format("01/02/2006"), "Pay Frequency:\tBi-Weekly", "")
		s.add(printed, "File No. "+j.PersonnelNo, "")
		s.add(bold + "Earnings\trate\thours\tthis period\tyear to date")
		for _, x := range pm.Lines {
			s.add(x.Label[1] + "\t\t\t" + en(x.Cents) + "\t" + en(x.Cents*ytd))
		}
		s.add(bold + "Gross Pay\t\t\t$" + en(pm.Gross) + "\t$" + en(pm.Gross*ytd))
		s.add(bold + "Deductions\tStatutory")
		for _, x := range pm.Deductions {
			s.add(x.Label[1] + "\t\t\t-" + en(x.Cents) + "\t" + en(x.Cents*ytd))
		}
		s.add(bold+"Net Pay\t\t\t$"+en(pm.Net), "", small+"Your federal taxable wages this period are $"+en(pm.Gross))
	default:
		return nil, false
	}
	return s.pages[0], true
}

// lastWeekday is the day or, on a weekend, the Friday before it.
func lastWeekday(t time.Time) time.Time {
	for t.Weekday() == time.Saturday || t.Weekday() == time.Sunday {
		t = t.AddDate(0, 0, -1)
	}
	return t
}
