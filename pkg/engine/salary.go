package engine

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/doceval/doceval/pkg/engine/reader"
)

// salaryText marks a credit's booking text as a salary payment.
var salaryText = regexp.MustCompile(`(?i)lohn|gehalt|bez(?:ü|ue)ge|entgelt|salary|payroll|wages|\bpay\b`)

// salaryCredited: a credit on a bank statement within ±1 % of a salary statement's net
// pay or payout → fulfilled. No such credit → critical only when a bank statement's
// ledger reconciles (opening balance + credits − debits = closing balance, so no
// booking was lost) and covers the end of a month a salary statement is for, and no
// salary credit of a lower amount stands in it (marked as salary or naming the
// employer: a payout after deductions, or the pay of another month); a salary credit
// above every net pay and payout is critical too. Otherwise open, saying what could not
// be read. Salary statement or bank statement missing → open.
func salaryCredited(v *view) verdict {
	var pays []evidence.Fact
	for _, d := range v.ofType("salary_statement") {
		pays = append(pays, d.factsOf("net_monthly_income")...)
		// The payout (reader.FactPayout, "Auszahlungsbetrag") is what is transferred:
		// lower than the net pay when the employer deducts something after it (a
		// garnishment, an advance). A credit of either counts.
		pays = append(pays, d.factsOf(reader.FactPayout)...)
	}
	statements := v.ofType("bank_statement")
	if len(pays) == 0 || len(statements) == 0 {
		return verdict{status: Open, confidence: 0.8, evidence: pays, reason: say(v.lang,
			"A salary statement with net pay and a bank statement are both needed to compare.",
			"Für den Abgleich werden eine Gehaltsabrechnung mit Nettobetrag und ein Kontoauszug benötigt.")}
	}
	var credits, ledgers []evidence.Fact
	for _, d := range statements {
		credits = append(credits, d.factsOf(evidence.FactBankCredit)...)
		ledgers = append(ledgers, d.factsOf(evidence.FactLedger)...)
	}
	for _, p := range pays {
		pay, _ := p.Value.(parse.Money)
		for _, c := range credits {
			tx, _ := c.Value.(evidence.Transaction)
			if pay.Cents > 0 && sameCurrency(pay.Currency, tx.Currency) && math.Abs(float64(tx.AmountCents-pay.Cents)) <= 0.01*float64(pay.Cents) {
				if p.Key == reader.FactPayout {
					return verdict{status: Fulfilled, confidence: agreement(p, c), evidence: []evidence.Fact{p, c}, reason: say(v.lang,
						"The payout of %s (the net pay less deductions after it) is credited on the bank statement.",
						"Der Auszahlungsbetrag von %s (Nettobetrag abzüglich weiterer Abzüge) ist auf dem Kontoauszug gutgeschrieben.", pay)}
				}
				return verdict{status: Fulfilled, confidence: agreement(p, c), evidence: []evidence.Fact{p, c}, reason: say(v.lang,
					"The net pay of %s is credited on the bank statement.", "Der Nettobetrag von %s ist auf dem Kontoauszug gutgeschrieben.", pay)}
			}
		}
	}
	reconciled := false
	for _, l := range ledgers {
		ledger, _ := l.Value.(evidence.Ledger)
		if !ledger.Reconciled || !currenciesKnownAlike(pays, ledger.Currency) {
			continue // an account in another currency (or an unknown one) proves no absence
		}
		reconciled = true
		for _, p := range pays {
			end, ok := payDateWindow(v, p)
			if !ok || !covers(l, ledger, end) {
				continue
			}
			others := salaryBookingsIn(v, credits, ledger, p)
			for _, other := range others {
				tx, _ := other.Value.(evidence.Transaction)
				if tx.Currency == ledger.Currency && float64(tx.AmountCents) > 1.01*float64(highestPay(pays)) {
					// More is credited as salary than any net pay or payout the salary
					// statements print: nothing after the net pay raises what is paid out.
					return verdict{status: Critical, confidence: math.Min(math.Min(p.Confidence, other.Confidence), l.Confidence), evidence: []evidence.Fact{p, other, l}, reason: say(v.lang,
						"The bank statement's bookings add up to its closing balance, and its salary credit of %s is more than the net pay of %s (±1 %%): no deduction after the net pay explains it.",
						"Die Buchungen des Kontoauszugs ergeben seinen Schlusssaldo, und seine Gehaltsgutschrift von %s übersteigt den Nettobetrag von %s (±1 %%): kein Abzug nach dem Nettobetrag erklärt das.",
						parse.Money{Cents: tx.AmountCents, Currency: tx.Currency}, p.Value)}
				}
			}
			if len(others) > 0 {
				other := others[0]
				// A salary credit of a lower amount: the payout may be less than the net
				// pay (deductions after net), so this is a question, not a finding.
				return verdict{status: Open, confidence: math.Min(p.Confidence, other.Confidence) * 0.8, evidence: []evidence.Fact{p, other}, reason: say(v.lang,
					"A salary credit on the bank statement differs from the net pay of %s; the payout may differ after deductions, compare them.",
					"Eine Gehaltsgutschrift auf dem Kontoauszug weicht vom Nettobetrag %s ab; der Auszahlungsbetrag kann nach Abzügen abweichen, bitte abgleichen.", p.Value)}
			}
			return verdict{status: Critical, confidence: math.Min(p.Confidence, l.Confidence), evidence: []evidence.Fact{p, l}, reason: say(v.lang,
				"The bank statement's bookings add up to its closing balance and cover the pay date, yet none is a credit of the net pay of %s (±1 %%).",
				"Die Buchungen des Kontoauszugs ergeben seinen Schlusssaldo und umfassen den Zahltag, aber keine ist eine Gutschrift des Nettobetrags von %s (±1 %%).", p.Value)}
		}
	}
	conf := minConfidence(pays) * 0.6
	switch {
	case reconciled:
		return verdict{status: Open, confidence: conf, evidence: append(pays, ledgers...), reason: say(v.lang,
			"No credit matching the net pay (±1 %%) was found, but the bank statements do not cover the end of a month the salary statements are for; upload the statement of that month.",
			"Keine Gutschrift in Höhe des Nettobetrags (±1 %%) gefunden, die Kontoauszüge umfassen aber nicht das Monatsende eines abgerechneten Monats; bitte den Auszug dieses Monats hochladen.")}
	case len(ledgers) > 0:
		return verdict{status: Open, unread: true, confidence: conf, evidence: pays, reason: say(v.lang,
			"No credit matching the net pay (±1 %%) was found, but the bookings read from the bank statement do not add up to its closing balance, so a booking may not have been read; check the statement by eye.",
			"Keine Gutschrift in Höhe des Nettobetrags (±1 %%) gefunden, die gelesenen Buchungen ergeben aber nicht den Schlusssaldo, eine Buchung kann also ungelesen sein; bitte den Auszug sichten.")}
	}
	return verdict{status: Open, unread: true, confidence: conf, evidence: pays, reason: say(v.lang,
		"No credit matching the net pay (±1 %%) was found, but the bank statement's bookings could not be read completely (no opening and closing balance to reconcile them with); check the statement by eye.",
		"Keine Gutschrift in Höhe des Nettobetrags (±1 %%) gefunden, die Buchungen des Kontoauszugs ließen sich aber nicht vollständig lesen (kein Anfangs- und Schlusssaldo zum Abgleich); bitte den Auszug sichten.")}
}

// highestPay is the largest net pay or payout in cents.
func highestPay(pays []evidence.Fact) int64 {
	var top int64
	for _, p := range pays {
		if m, ok := p.Value.(parse.Money); ok {
			top = max(top, m.Cents)
		}
	}
	return top
}

// agreement is the confidence of two facts of independent documents agreeing: each
// could be misread, but both misread to the same amount is unlikely. Two facts of one
// upload are not independent (one scan, one misreading), so they count as the weaker.
func agreement(a, b evidence.Fact) float64 {
	if a.Citation.UploadID == b.Citation.UploadID {
		return math.Min(a.Confidence, b.Confidence)
	}
	return round2(1 - (1-a.Confidence)*(1-b.Confidence))
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// payDateWindow is the last day of the month a net pay is for, the latest common pay
// date: the fact's period, else the salary statement's pay period.
func payDateWindow(v *view, p evidence.Fact) (time.Time, bool) {
	m := p.Period
	if m.IsZero() {
		if f, ok := v.docOf(p).first(evidence.FactPayPeriod); ok {
			m, _ = f.Value.(time.Time)
		}
	}
	if m.IsZero() {
		return time.Time{}, false
	}
	return month(m).AddDate(0, 1, -1), true
}

// covers reports whether a statement's ledger covers the end of the pay month, where a
// month's salary is credited: the statement is for that month (the ledger fact's
// period), or its bookings run from at least ten days before the month's end to it.
func covers(f evidence.Fact, l evidence.Ledger, monthEnd time.Time) bool {
	if !f.Period.IsZero() && month(f.Period).Equal(month(monthEnd)) {
		return true
	}
	if l.From.IsZero() || l.To.IsZero() {
		return false
	}
	return !l.From.After(monthEnd.AddDate(0, 0, -9)) && !l.To.Before(monthEnd)
}

// salaryBookingsIn finds the credits in the ledger's period, of at least half the pay,
// whose text marks them as salary or names the employer: the salary paid, in another
// amount or for another month.
func salaryBookingsIn(v *view, credits []evidence.Fact, l evidence.Ledger, p evidence.Fact) []evidence.Fact {
	pay, _ := p.Value.(parse.Money)
	var employers []string
	for _, d := range v.ofType("salary_statement") {
		for _, f := range d.factsOf("employer_name") {
			name, _ := f.Value.(string)
			if w := strings.Fields(strings.ToLower(name)); len(w) > 0 && len([]rune(w[0])) >= 4 {
				employers = append(employers, w[0])
			}
		}
	}
	var out []evidence.Fact
	for _, c := range credits {
		tx, _ := c.Value.(evidence.Transaction)
		if !tx.Date.IsZero() && !l.From.IsZero() && (tx.Date.Before(l.From) || tx.Date.After(l.To)) {
			continue
		}
		if 2*tx.AmountCents < pay.Cents {
			continue
		}
		text := strings.ToLower(tx.Text)
		if salaryText.MatchString(text) || slices.ContainsFunc(employers, func(e string) bool { return strings.Contains(text, e) }) {
			out = append(out, c)
		}
	}
	return out
}

// sameCurrency: a booking of no stated currency may match (its statement names none).
func sameCurrency(pay, booking string) bool { return booking == "" || pay == booking }

// currenciesKnownAlike: the account's currency is known and every net pay is in it.
func currenciesKnownAlike(pays []evidence.Fact, account string) bool {
	if account == "" {
		return false
	}
	for _, p := range pays {
		if m, ok := p.Value.(parse.Money); !ok || m.Currency != account {
			return false
		}
	}
	return true
}
