package corpus

import (
	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

func eur(cents int64) parse.Money { return parse.Money{Cents: cents, Currency: "EUR"} }

const (
	factGarnishment   = evidence.FactGarnishment
	factReturnedDebit = evidence.FactReturnedDebit
	factProbation     = evidence.FactProbation
	factFixedTerm     = evidence.FactFixedTerm
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
	if chance(w.r, 0.12) {
		return tr(w.lang, "en", "de")
	}
	return w.lang
}
