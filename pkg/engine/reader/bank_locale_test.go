package reader

import (
	"testing"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// A document without a currency marker counts in the currency its national vocabulary
// and IBANs agree on, and in none when they disagree or say nothing.
func TestVocabularyCurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"Tax Code: 1257L NI Number: QQ123456C\nPAYE Tax 540.60\nNet Pay 2,855.85", "GBP"},
		{"Sort code 60-16-13 Account 31926819\nStart balance 1,102.45", "GBP"},
		{"Federal Income Tax 412.00\nSocial Security 210.80\nNet Pay 2,550.00", "USD"},
		{"PAYE 310.00\nPRSI 95.00\nUSC 40.00\nNet Pay 2,100.00", ""},
		{"Medicare levy 41.00\nSuperannuation 190.00\nNet Pay 2,100.00", ""},
		{"Lohnsteuer 612,33\nNettoverdienst 2.740,97", "EUR"},
		{"Income tax 548.82\nSolidarity surcharge 0.00\nChurch tax 49.39\nNet pay 2,919.52", "EUR"},
		{"Income tax 4,210.00\nChurch tax 190.00\nNet pay 21,300.00", ""}, // Denmark and Sweden withhold one too
		{"IBAN DE89 3704 0044 0532 0130 00\nSaldo 1.234,56", "EUR"},
		{"IBAN CH93 0076 2011 6238 5295 7\nSaldo 1'234.56", "CHF"},
		{"IBAN GB29 NWBK 6016 1331 9268 19\nLohnsteuer 612,33", ""},
		{"Balance 1,234.56", ""},
	} {
		if got := vocabularyCurrency(tc.text); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A returned debit on an American statement is read month first, in dollars.
func TestReturnedDebitInTheStatementsLocale(t *testing.T) {
	t.Parallel()
	doc := document("bank_statement", `First Example Bank          Statement Period: 03/01/2025 - 03/31/2025
Beginning Balance on 03/01/2025      $1,000.00
03/04   RETURNED DEBIT ACME GYM           45.00
03/15   PAYROLL ACME CORP              2,000.00
Ending Balance on 03/31/2025         $3,045.00`)
	var got []evidence.Transaction
	for _, f := range Facts(doc, []string{"bank_statement"}) {
		if tx, ok := f.Value.(evidence.Transaction); ok && f.Key == evidence.FactReturnedDebit {
			got = append(got, tx)
		}
	}
	if len(got) != 1 || got[0].Currency != "USD" || got[0].Date.Month() != 3 || got[0].Date.Day() != 4 || got[0].AmountCents != 4500 {
		t.Fatalf("returned debits %+v, want one of 45.00 USD on March 4", got)
	}
}
