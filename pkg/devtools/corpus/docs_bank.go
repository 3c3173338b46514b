package corpus

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// bankLook is how one bank prints its statements.
type bankLook struct {
	layout   string // sparkasse, direkt, columns_en, signed_en
	lang     string
	sign     string // signed, trailing, sh (German layouts)
	short    bool   // booking dates without the year
	holder   nameStyle
	labels   int // which wording of the balance lines
	twoLines bool
}

var (
	openingDE = []string{"Kontostand alt", "Saldo alt", "Alter Kontostand", "Anfangssaldo"}
	closingDE = []string{"Kontostand neu", "Saldo neu", "Neuer Kontostand", "Endsaldo"}
	openingEN = []string{"Opening balance", "Balance brought forward", "Previous balance"}
	closingEN = []string{"Closing balance", "Balance carried forward", "New balance"}
)

func (w *world) newBankLook(lang string) bankLook {
	r := w.r
	l := bankLook{lang: lang, holder: randomNameStyle(r), labels: r.IntN(4), short: chance(r, 0.4), twoLines: chance(r, 0.4)}
	switch {
	case w.country == "uk":
		l.layout = "uk_statement"
	case w.country == "us":
		l.layout = "us_statement"
		l.holder.Translit, l.holder.Caps = true, true // plain capitals, as American banks print names
	case lang == "de" && (strings.Contains(w.acct.Bank, "Sparkasse") || strings.Contains(w.acct.Bank, "Volksbank")):
		l.layout = pick(r, []string{"sparkasse", "sparkasse_sh", "sparkasse_sh"})
	case lang == "de" && (strings.Contains(w.acct.Bank, "ING") || strings.Contains(w.acct.Bank, "DKB")):
		l.layout = pick(r, []string{"direkt", "ing_signed", "ing_signed"})
	case lang == "de":
		l.layout = pick(r, []string{"sparkasse", "direkt", "sparkasse_sh", "ing_signed"})
	default:
		l.layout = pick(r, []string{"columns_en", "signed_en"})
	}
	l.sign = "signed"
	if lang == "de" && w.country == "de" {
		l.sign = pick(r, []string{"signed", "trailing", "sh"}) // the older layouts' sign conventions
	}
	return l
}

// booking is one transaction to print.
type booking struct {
	date  time.Time
	cents int64
	text  string
	more  string // a second line of the booking text
}

func (w *world) monthBookings(m time.Time, lang string) []booking {
	r := w.r
	var bs []booking
	add := func(d int, cents int64, de, en, more string) {
		end := monthEnd(m).Day()
		bs = append(bs, booking{date: day(m.Year(), m.Month(), min(d, end)), cents: cents, text: tr(lang, de, en), more: more})
	}
	rent := -int64(55000 + r.IntN(110000))
	landlord := pick(r, []string{"Hausverwaltung Weiß GmbH", "Vonovia SE", "Grundstücksges. Köhler", "LEG Wohnen NRW"})
	add(1+r.IntN(3), rent, "Dauerauftrag Miete "+landlord, "Standing order rent "+landlord, monthName(m.Month(), lang)+" "+fmt.Sprint(m.Year()))
	shops := []string{"REWE Markt GmbH", "EDEKA Center", "ALDI SÜD", "LIDL Dienstleistung", "dm-drogerie markt", "Kaufland"}
	for range 2 + r.IntN(4) {
		add(3+r.IntN(25), -int64(1200+r.IntN(11000)), "Kartenzahlung "+pick(r, shops), "Card payment "+pick(r, shops), "")
	}
	bills := [][2]string{{"Telekom Deutschland GmbH", "Mobilfunk"}, {"Stadtwerke Strom und Gas", "Abschlag"}, {"HUK-COBURG Versicherung", "Kfz-Versicherung"}, {"Rundfunk ARD ZDF DRadio", "Beitrag"}, {"Vodafone GmbH", "Internet"}}
	for range 1 + r.IntN(3) {
		b := pick(r, bills)
		add(5+r.IntN(20), -int64(2000+r.IntN(15000)), "Lastschrift "+b[0], "Direct debit "+b[0], b[1]+" "+fmt.Sprint(1000000+r.IntN(8999999)))
	}
	if chance(r, 0.5) {
		add(10+r.IntN(15), -int64(5000+r.IntN(3)*5000), "Bargeldauszahlung Geldautomat", "Cash withdrawal ATM", "")
	}
	if chance(r, 0.3) {
		add(8+r.IntN(15), -int64(1500+r.IntN(9000)), "PayPal Europe S.a.r.l.", "PayPal Europe S.a.r.l.", "Ihr Einkauf bei Amazon")
	}
	if chance(r, 0.3) {
		add(5+r.IntN(10), 25000, "Gutschrift Kindergeld Familienkasse", "Credit child benefit Familienkasse", "KG-Nr. 123FK"+fmt.Sprint(100000+r.IntN(899999)))
	}
	if chance(r, 0.2) {
		add(12+r.IntN(10), int64(2000+r.IntN(30000)), "Umbuchung von Tagesgeld", "Transfer from savings account", "")
	}
	return bs
}

// salaryCredit is the salary transfer of month m, if any.
func (w *world) salaryCredit(m time.Time, lang string) (booking, bool) {
	r := w.r
	if w.scen[scenNotCredited] || len(w.job.Months) == 0 {
		return booking{}, false
	}
	if w.country == "us" {
		// Bi-weekly pay: the direct deposit of each pay stub dated in the month (the
		// others of the month are credited below).
		for _, pm := range w.job.Months {
			if monthStart(pm.PayDate).Equal(m) {
				return booking{date: pm.PayDate, cents: pm.Payout, text: "DIRECT DEP " + w.emp.BankText, more: "PPD ID: " + digits(r, 10)}, true
			}
		}
		return booking{}, false
	}
	pm := w.job.Months[len(w.job.Months)-1]
	for _, x := range w.job.Months {
		if x.Month.Equal(m) {
			pm = x
		}
	}
	amount := pm.Payout - w.payoutCut
	if w.scen[scenCreditDiffers] {
		f := 1 + float64(3+r.IntN(10))/100
		if chance(r, 0.5) {
			f = 2 - f
		}
		amount = int64(float64(amount) * f)
	}
	d := day(m.Year(), m.Month(), 25+r.IntN(4))
	text := tr(lang, "Gutschrift Lohn/Gehalt ", "Salary ") + w.emp.BankText
	if chance(r, 0.5) {
		text = tr(lang, "SEPA-Gutschrift ", "SEPA credit transfer ") + w.emp.BankText
	}
	more := tr(lang, "LOHN/GEHALT ", "SALARY ") + m.Format("01/2006") + " PERS.NR. " + w.job.PersonnelNo
	return booking{date: d, cents: amount, text: text, more: more}, true
}

// bankStatements adds one or two statements of the last full months.
func (w *world) bankStatements() []docSpec {
	r := w.r
	lang := w.docLang()
	l := w.newBankLook(lang)
	newest := monthStart(w.now).AddDate(0, -1, 0)
	months := []time.Time{newest}
	if chance(r, 0.5) {
		months = []time.Time{newest.AddDate(0, -1, 0), newest}
	}
	oneFile := len(months) > 1 && chance(r, 0.4)
	// Closing balances: positive unless the scenario wants the newest negative.
	var docs []docSpec
	var pages [][]string
	var credits []Transaction
	var risks []string
	balance := int64(50000 + r.IntN(900000))
	for i, m := range months {
		bs := w.monthBookings(m, lang)
		if c, ok := w.salaryCredit(m, lang); ok {
			bs = append(bs, c)
		}
		if w.country == "us" && !w.scen[scenNotCredited] {
			for _, pm := range w.job.Months {
				if monthStart(pm.PayDate).Equal(m) && !pm.PayDate.Equal(bs[len(bs)-1].date) {
					bs = append(bs, booking{date: pm.PayDate, cents: pm.Payout, text: "DIRECT DEP " + w.emp.BankText})
				}
			}
		}
		if w.scen[scenReturnedDebit] && i == len(months)-1 {
			amt := int64(3000 + r.IntN(20000))
			bs = append(bs,
				booking{date: day(m.Year(), m.Month(), 14+r.IntN(5)), cents: amt, text: tr(lang, "Rücklastschrift Lastschrift HUK-COBURG", "Returned direct debit HUK-COBURG"), more: tr(lang, "Rückgabegrund: Konto nicht gedeckt", "Reason: insufficient funds")},
				booking{date: day(m.Year(), m.Month(), 19+r.IntN(3)), cents: -350, text: tr(lang, "Entgelt Rücklastschrift", "Fee returned direct debit")})
			risks = append(risks, factReturnedDebit)
		}
		if w.scen[scenGarnishment] && !w.garnishOnPayslip() && i == len(months)-1 {
			bs = append(bs, booking{date: day(m.Year(), m.Month(), 20+r.IntN(5)), cents: -int64(20000 + r.IntN(60000)),
				text: tr(lang, "Überweisung Pfändung Obergerichtsvollzieher Groß", "Account garnishment bailiff Gross"), more: "DR II 1234/24"})
			risks = append(risks, factGarnishment)
		}
		sort.SliceStable(bs, func(a, b int) bool { return bs[a].date.Before(bs[b].date) })
		var sum int64
		for _, b := range bs {
			sum += b.cents
		}
		if i == len(months)-1 {
			target := int64(30000 + r.IntN(800000))
			if w.scen[scenNegativeBalance] {
				target = -int64(5000 + r.IntN(150000))
			}
			if i == 0 {
				balance = target - sum
			} else if balance+sum != target {
				// Adjust with a transfer so the newest closing balance hits the target.
				diff := target - (balance + sum)
				text := tr(lang, "Umbuchung auf Tagesgeld", "Transfer to savings account")
				if diff > 0 {
					text = tr(lang, "Umbuchung von Tagesgeld", "Transfer from savings account")
				}
				bs = append(bs, booking{date: day(m.Year(), m.Month(), 15), cents: diff, text: text})
				sort.SliceStable(bs, func(a, b int) bool { return bs[a].date.Before(bs[b].date) })
				sum += diff
			}
		}
		if i == 0 && len(months) > 1 && balance+sum < 0 {
			balance = -sum + int64(20000+r.IntN(100000))
		}
		page, ok := w.issuerStatementPages(l, m, balance, bs)
		if !ok {
			page = [][]string{w.statementPage(l, m, balance, bs, i+1)}
		}
		closing := balance + sum
		for _, b := range bs {
			if b.cents > 0 {
				credits = append(credits, Transaction{Date: b.date, Cents: b.cents, Text: b.text})
			}
		}
		if oneFile {
			pages = append(pages, page...)
		} else {
			docs = append(docs, w.statementDoc(l, page, m, closing, credits, risks))
			credits, risks = nil, nil
		}
		balance = closing
	}
	if oneFile {
		docs = append(docs, w.statementDoc(l, pages, months[len(months)-1], balance, credits, risks))
	}
	return docs
}

func (w *world) statementDoc(l bankLook, pages [][]string, m time.Time, closing int64, credits []Transaction, risks []string) docSpec {
	holder := w.app
	if w.scen[scenOtherName] {
		holder = w.other
	}
	_, name := holder.name(l.holder)
	d := docSpec{Doc: Doc{Types: []string{"bank_statement"}, Language: l.lang, Layout: "bank_statement/" + l.layout + tern(l.layout == "sparkasse" || l.layout == "direkt", "/"+l.sign, ""),
		Fields: map[string]any{"applicant_full_name": name, "iban": w.acct.IBAN, "account_balance": Money{closing, w.currency()}},
		Period: m, Credits: credits, Names: []string{name}, Risks: risks, ClosingCents: &closing}}
	if w.acct.IBAN == "" {
		delete(d.Fields, "iban") // American accounts have none
	}
	d.Pages = pages
	switch l.layout {
	case "sparkasse_sh":
		d.layout = layoutFor(w.r, 52, 104, -440, -525)
	case "ing_signed":
		d.layout = layoutFor(w.r, 75, -520)
	case "uk_statement":
		d.layout = layoutFor(w.r, 55, -360, -440, -520)
	case "us_statement":
		d.layout = layoutFor(w.r, 70, -380, -450, -520)
	case "columns_en":
		d.layout = layoutFor(w.r, 62, -400, -470, -540)
	default:
		d.layout = layoutFor(w.r, 62, 110, -540)
	}
	d.layout.FontSize = min(d.layout.FontSize, 9.5)
	d.layout.Leading = d.layout.FontSize * 1.3
	d.layout.Left = 40
	return d
}

// amountText prints a booking amount in the look's sign convention.
func (l bankLook) amountText(c int64) string {
	a := money(abs(c), l.lang)
	switch l.sign {
	case "trailing":
		if c < 0 {
			return a + "-"
		}
		return a + "+"
	case "sh":
		if c < 0 {
			return a + " S"
		}
		return a + " H"
	}
	if c < 0 {
		return "-" + a
	}
	if l.layout == "direkt" {
		return "+" + a
	}
	return a
}

func abs(c int64) int64 {
	if c < 0 {
		return -c
	}
	return c
}

func (l bankLook) bookingDate(t time.Time) string {
	if l.lang == "de" {
		if l.short {
			return t.Format("02.01.")
		}
		return t.Format("02.01.2006")
	}
	if l.short {
		return t.Format("02 Jan")
	}
	return t.Format("02/01/2006")
}

func (w *world) statementPage(l bankLook, m time.Time, opening int64, bs []booking, no int) []string {
	var s sheet
	holder := w.app
	if w.scen[scenOtherName] {
		holder = w.other
	}
	printed, _ := holder.name(l.holder)
	lang := l.lang
	from, to := m, monthEnd(m)
	closing := opening
	for _, b := range bs {
		closing += b.cents
	}
	openLabel, closeLabel := openingDE[l.labels%4], closingDE[l.labels%4]
	if lang == "en" {
		openLabel, closeLabel = openingEN[l.labels%3], closingEN[l.labels%3]
	}
	switch l.layout {
	case "sparkasse":
		s.add(bold+w.acct.Bank+"\t\t\tKontoauszug "+fmt.Sprint(int(m.Month()))+"/"+fmt.Sprint(m.Year()), "Blatt 1")
		s.add("Kontoinhaber: "+printed, "IBAN: "+groupIBAN(w.acct.IBAN)+"   BIC: "+w.acct.BIC)
		s.add("Girokonto   Auszugszeitraum "+date(from, "de", 0)+" - "+date(to, "de", 0), "")
		s.add(bold + "Buchung\tWert\tVorgang / Verwendungszweck\tBetrag EUR")
	case "direkt":
		s.add(bold+large+"Kontoauszug", w.acct.Bank, "")
		s.add(tr0(holder.Female, "Frau", "Herrn"), printed, holder.Street, holder.ZIP+" "+holder.City, "")
		s.add("Kontoauszug Nr. "+fmt.Sprintf("%02d", int(m.Month()))+" vom "+date(to, "de", 0), "Zeitraum: "+date(from, "de", 0)+" bis "+date(to, "de", 0))
		s.add("IBAN "+groupIBAN(w.acct.IBAN), "")
		s.add(bold + "Datum\t\tEmpfänger/Auftraggeber, Verwendungszweck\tBetrag (EUR)")
	case "columns_en":
		s.add(bold+large+"Account statement", w.acct.Bank, "")
		s.add("Account holder: "+printed, "IBAN: "+groupIBAN(w.acct.IBAN), "Statement period: "+date(from, "en", 0)+" to "+date(to, "en", 0), "")
		s.add(bold + "Date\tDescription\tMoney out\tMoney in\tBalance")
	default:
		s.add(bold+large+"Bank statement", w.acct.Bank+" · Statement no. "+fmt.Sprint(no), "")
		s.add("Name: "+printed, "Account (IBAN): "+groupIBAN(w.acct.IBAN), "Period: "+date(from, "en", 1)+" - "+date(to, "en", 1), "")
		s.add(bold + "Date\tDescription\t\tAmount EUR")
	}
	bal := opening
	balLine := func(label string, t time.Time, c int64) {
		switch l.layout {
		case "columns_en":
			s.add(label + "\t\t\t\t" + money(c, "en"))
		case "signed_en":
			s.add(label + " " + date(t, "en", 0) + "\t\t\t" + money(c, "en"))
		default:
			s.add("\t\t" + label + " " + tr(lang, "am ", "") + date(t, lang, 0) + "\t" + l.amountText(c))
		}
	}
	balLine(openLabel, from.AddDate(0, 0, -1), opening)
	for _, b := range bs {
		bal += b.cents
		d := l.bookingDate(b.date)
		switch l.layout {
		case "sparkasse":
			s.add(d + "\t" + b.date.Format("02.01.") + "\t" + b.text + "\t" + l.amountText(b.cents))
		case "direkt":
			s.add(d + "\t\t" + b.text + "\t" + l.amountText(b.cents))
		case "columns_en":
			out, in := outIn(b.cents)
			s.add(d + "\t" + b.text + "\t" + out + "\t" + in + "\t" + money(bal, "en"))
		default:
			s.add(d + "\t" + b.text + "\t\t" + money(b.cents, "en"))
		}
		if l.twoLines && b.more != "" {
			s.add(tern(l.layout == "columns_en", "\t", "\t\t") + b.more)
		}
	}
	balLine(closeLabel, to, closing)
	if l.layout != "columns_en" && l.layout != "signed_en" {
		s.add("", small+"Bitte prüfen Sie Ihre Kontoauszüge. Einwendungen sind innerhalb von sechs Wochen zu erheben.")
	} else {
		s.add("", small+"Please check your statement. Objections must be raised within six weeks.")
	}
	return s.pages[0]
}
