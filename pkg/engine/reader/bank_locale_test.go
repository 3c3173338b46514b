package reader

import "testing"

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
