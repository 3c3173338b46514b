package corpus

import (
	"fmt"
	"strings"
	"time"
)

// Bank statement layouts modelled on real issuers: a savings bank's Soll/Haben columns
// with unsigned amounts over two pages joined by a carried-forward balance ("Übertrag"),
// a direct bank's signed amounts with the booking details on continuation lines, a
// British statement (money out, money in, running balance, £) and an American one
// (withdrawals, deposits, $, month-first dates).

// issuerStatementPages prints one month's statement; ok is false for the corpus's older
// layouts.
func (w *world) issuerStatementPages(l bankLook, m time.Time, opening int64, bs []booking) ([][]string, bool) {
	var s sheet
	holder := w.app
	if w.scen[scenOtherName] {
		holder = w.other
	}
	printed, _ := holder.name(l.holder)
	from, to := m, monthEnd(m)
	closing := opening
	for _, b := range bs {
		closing += b.cents
	}
	de := func(c int64) string { return money(c, "de") }
	en := func(c int64) string { return money(c, "en") }
	switch l.layout {
	case "sparkasse_sh":
		// An unsigned amount in the Soll (debit) or Haben (credit) column.
		sh := func(c int64) string {
			if c < 0 {
				return de(-c) + "\t"
			}
			return "\t" + de(c)
		}
		head := func(sheetNo int) {
			s.add(bold+w.acct.Bank+"\t\t\tKontoauszug "+fmt.Sprint(int(m.Month()))+"/"+fmt.Sprint(m.Year()), "Blatt "+fmt.Sprint(sheetNo)+"/2")
			if sheetNo == 1 {
				s.add("", printed, holder.Street, holder.ZIP+" "+holder.City, "")
				s.add("Girokonto   IBAN " + groupIBAN(w.acct.IBAN) + "   BIC " + w.acct.BIC)
			}
			s.add("", bold+"Buchung\tWert\tErläuterung / Verwendungszweck\tSoll EUR\tHaben EUR")
		}
		head(1)
		s.add("\t\tKontostand am " + from.Format("02.01.2006") + "\t" + sh(opening))
		split := (len(bs) + 1) / 2
		bal := opening
		for i, b := range bs {
			if i == split {
				s.add("\t\tÜbertrag auf Blatt 2\t" + sh(bal))
				s.newPage()
				head(2)
				s.add("\t\tÜbertrag von Blatt 1\t" + sh(bal))
			}
			bal += b.cents
			s.add(b.date.Format("02.01.") + "\t" + b.date.Format("02.01.") + "\t" + b.text + "\t" + sh(b.cents))
			if b.more != "" {
				s.add("\t\t" + b.more)
			}
		}
		s.add("\t\tneuer Kontostand vom " + to.Format("02.01.2006") + "\t" + sh(closing))
		s.add("", small+"Bitte erheben Sie Einwendungen gegen einzelne Buchungen unverzüglich.")
	case "ing_signed":
		s.add(bold+large+w.acct.Bank, "", printed, holder.Street, holder.ZIP+" "+holder.City, "")
		s.add("Girokonto Nummer "+w.acct.IBAN[12:], "Kontoauszug "+monthName(m.Month(), "de")+" "+fmt.Sprint(m.Year()))
		s.add("Datum\t"+to.Format("02.01.2006"), "Auszugsnummer\t"+fmt.Sprint(int(m.Month())), "IBAN\t"+groupIBAN(w.acct.IBAN))
		s.add("Eingeräumte Kontoüberziehung\t"+de(int64(1+w.r.IntN(5))*100000)+" Euro", "Alter Saldo\t"+de(opening)+" Euro", "")
		s.add(bold+"Buchung\tBuchung / Verwendungszweck\tBetrag (EUR)", small+"Valuta")
		for _, b := range bs {
			amount := de(b.cents)
			if b.cents > 0 {
				amount = "+" + amount
			}
			s.add(b.date.Format("02.01.2006") + "\t" + b.text + "\t" + amount)
			more := b.more
			if more == "" {
				more = "Referenz " + digits(w.r, 12)
			}
			s.add(b.date.Format("02.01.2006") + "\t" + more)
		}
		s.add("", "\tNeuer Saldo\t"+de(closing)+" Euro")
		s.add("", small+"Kunden-Information: Bitte beachten Sie die Hinweise zur Einlagensicherung.")
	case "uk_statement":
		bal := func(c int64) string {
			if c < 0 {
				return en(-c) + " OD"
			}
			return en(c)
		}
		s.add(bold+large+w.acct.Bank, "", printed, holder.Street, holder.City, "")
		s.add("Sort code "+w.acct.Code+"   Account number "+w.acct.Number, "IBAN "+groupIBAN(w.acct.IBAN)+"   BIC "+w.acct.BIC)
		s.add("Your statement "+from.Format("2 Jan 2006")+" - "+to.Format("2 Jan 2006"), "")
		s.add(bold + "Date\tDescription\tMoney out (£)\tMoney in (£)\tBalance (£)")
		s.add(from.Format("2 Jan") + "\tBalance brought forward\t\t\t" + bal(opening))
		run := opening
		for _, b := range bs {
			run += b.cents
			out, in := outIn(b.cents)
			prefix := "DD "
			if b.cents > 0 {
				prefix = "BGC "
			}
			s.add(b.date.Format("2 Jan") + "\t" + prefix + strings.ToUpper(b.text) + "\t" + out + "\t" + in + "\t" + bal(run))
		}
		s.add(to.Format("2 Jan") + "\tBalance carried forward\t\t\t" + bal(closing))
		s.add("", small+"If you think an entry on this statement is wrong, please tell us straight away.")
	case "us_statement":
		var deposits, withdrawals int64
		for _, b := range bs {
			if b.cents > 0 {
				deposits += b.cents
			} else {
				withdrawals -= b.cents
			}
		}
		usd := func(c int64) string {
			if c < 0 {
				return "-$" + en(-c)
			}
			return "$" + en(c)
		}
		s.add(bold+large+w.acct.Bank, "", printed, holder.Street, holder.City, "")
		s.add("Account Number: "+w.acct.Number+"   Routing Number: "+w.acct.Code, "Statement Period: "+from.Format("01/02/2006")+" through "+to.Format("01/02/2006"), "")
		s.add(bold + "Account Summary")
		s.add("Beginning Balance on "+from.Format("01/02/2006")+"\t\t\t"+usd(opening), "Deposits and Other Additions\t\t\t"+usd(deposits),
			"Withdrawals and Other Subtractions\t\t\t"+usd(-withdrawals), "Ending Balance on "+to.Format("01/02/2006")+"\t\t\t"+usd(closing), "")
		s.add(bold + "Date\tDescription\tWithdrawals\tDeposits\tBalance")
		run := opening
		for _, b := range bs {
			run += b.cents
			out, in := outIn(b.cents)
			s.add(b.date.Format("01/02/2006") + "\t" + strings.ToUpper(b.text) + "\t" + out + "\t" + in + "\t" + usd(run))
		}
		s.add("", small+"Member FDIC. Please examine this statement promptly and report any errors within 60 days.")
	default:
		return nil, false
	}
	return s.pages, true
}

// outIn prints a booking in the money-out or the money-in column of an English-language
// statement: one of them empty.
func outIn(cents int64) (out, in string) {
	if cents < 0 {
		return money(-cents, "en"), ""
	}
	return "", money(cents, "en")
}
