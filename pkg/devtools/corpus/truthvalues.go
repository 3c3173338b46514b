package corpus

// Money is an amount as a document prints it: cents and the ISO 4217 currency code.
// The corpus has its own type (not the engine's) so that its truth cannot follow the
// engine's parsing when that changes.
type Money struct {
	Cents    int64  `json:"cents"`
	Currency string `json:"currency"`
}

func eur(cents int64) Money { return Money{Cents: cents, Currency: "EUR"} }

// Risk facts a document states, named as the engine's facts are so that truth.json
// reads the same; the values are the corpus's own data.
const (
	factGarnishment   = "risk_garnishment"
	factReturnedDebit = "risk_returned_debit"
	factProbation     = "risk_probation"
	factFixedTerm     = "risk_fixed_term"
)

// groupIBAN prints an IBAN in groups of four.
func groupIBAN(iban string) string {
	var out []byte
	for i := 0; i < len(iban); i++ {
		if i > 0 && i%4 == 0 {
			out = append(out, ' ')
		}
		out = append(out, iban[i])
	}
	return string(out)
}

// docLang is the language of a document: mostly the case's, sometimes the other one.
func (w *world) docLang() string {
	if w.country != "de" {
		return "en" // British and American documents are English
	}
	if chance(w.r, 0.12) {
		return tr(w.lang, "en", "de")
	}
	return w.lang
}
