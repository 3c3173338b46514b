package reader

import (
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
)

// Labels of a financing plan's figures, most specific first; several languages.
const (
	// The loan: "Darlehenssumme", "Nettodarlehensbetrag" (German broker and bank plans),
	// "Mortgage amount" (UK), "Loan Amount" (US Loan Estimate), "Montant du prêt",
	// "Importo del mutuo", "Importe del préstamo", "Hypotheekbedrag", "Kwota kredytu".
	loanAmountSpec = "nettodarlehensbetrag|gesamtdarlehen|darlehenssumme|darlehensbetrag|kreditsumme|kreditbetrag|finanzierungsbetrag|net loan amount|total loan amount|loan amount|mortgage amount|amount of credit|amount financed|montant du pret|montant emprunte|capital emprunte|importo del mutuo|importo finanziato|importe del prestamo|hypotheekbedrag|leenbedrag|kwota kredytu"
	// A plan also names the loan by its kind alone ("Annuitätendarlehen", "Darlehen"),
	// which a self-disclosure uses for loans the applicant already has.
	loanSpec = loanAmountSpec + "|annuitätendarlehen|annuity loan|darlehen"
	// Equity: "Eigenkapital", "Eigenmittel", "Own funds", "Down payment" (US), "Your
	// deposit" (UK), "Apport personnel", "Capitale proprio", "Aportación", "Eigen
	// middelen", "Wkład własny".
	equitySpec = "eigenkapitaleinsatz|eigenkapital|eigenmittel|equity|own funds|down payment|your deposit|apport personnel|capitale proprio|aportacion|eigen middelen|eigen geld|wklad wlasny"
	// The whole cost the loan and equity pay: purchase price and buying costs.
	totalCostSpec = "gesamtaufwand|gesamtkosten|gesamtinvestition|gesamtfinanzierungsbedarf|total costs|total cost|total investment|total project cost|cout total|costo totale|coste total|totale kosten|koszt calkowity"
)

// financingCandidates is how many labelled figures of each kind financing weighs.
const financingCandidates = 6

// Confidence of a financing plan's loan and equity: read after their label; raised
// when loan and equity add up to the plan's total cost, lowered when the plan prints a
// total they do not add up to; the loan found as the total less the equity.
const (
	financingConfidence  = 0.85
	financingSumsHold    = 0.92
	financingSumsFail    = 0.75
	financingLoanDerived = 0.8
)

func (r *reading) financing() {
	t := r.t
	loc := documentLocale(t)
	r.moneyAfter("purchase_price", "kaufpreis|purchase price|prix d'achat|prezzo di acquisto|precio de compra|koopprijs|cena zakupu", financingConfidence)
	r.loanAndEquity(loc)
	for _, h := range t.find("beleihungsauslauf|loan-to-value|loan to value|ltv") {
		if v, c, ok := valueAfter(t, h, readPercent); ok {
			r.add("loan_to_value", v, c, financingConfidence, time.Time{})
			break
		}
	}
	for _, h := range t.find("sollzinsbindung|zinsbindung|zinsfestschreibung|fixed interest period|fixed-rate period|fixed rate period|interest rate fixed for|initial rate fixed for") {
		if v, c, ok := valueAfter(t, h, readYears); ok {
			r.add("fixed_interest_period", v, c, financingConfidence, time.Time{})
			break
		}
	}
	r.propertyAddress(0.75, "objekt|property|immobilie")
}

// moneyFigure is an amount read after a label, with its citation.
type moneyFigure struct {
	money parse.Money
	cite  evidence.Citation
}

// moneyFigures reads the amount after every label of spec that has one, in page order,
// at most limit; a subtracted amount ("abzgl. Eigenkapital -118.930,00") counts by its
// size.
func moneyFigures(t *text, loc locale, spec string, limit int) []moneyFigure {
	var out []moneyFigure
	for _, h := range t.find(spec) {
		v, c, ok := valueAfter(t, h, loc.money)
		if !ok || v.Cents == 0 {
			continue
		}
		v.Cents = abs(v.Cents)
		if out = append(out, moneyFigure{v, c}); len(out) >= limit {
			break
		}
	}
	return out
}

// loanAndEquity reads the loan and the equity of a financing plan. Arithmetic decides
// between candidates: the loan and equity that add up to a printed total cost win (a
// plan lists each loan component under "Darlehensbetrag" and their sum under
// "Darlehenssumme"); with no labelled loan that does, a printed figure equal to the
// total cost less the equity is the loan.
func (r *reading) loanAndEquity(loc locale) {
	t := r.t
	loans := moneyFigures(t, loc, loanSpec, financingCandidates)
	equities := moneyFigures(t, loc, equitySpec, financingCandidates)
	totals := moneyFigures(t, loc, totalCostSpec, financingCandidates)
	for _, total := range totals {
		for _, e := range equities {
			if e.money.Currency != total.money.Currency || e.money.Cents >= total.money.Cents {
				continue
			}
			want := parse.Money{Cents: total.money.Cents - e.money.Cents, Currency: total.money.Currency}
			for _, l := range loans {
				if l.money == want {
					r.add("loan_amount", l.money, l.cite, financingSumsHold, time.Time{})
					r.add("equity_amount", e.money, e.cite, financingSumsHold, time.Time{})
					return
				}
			}
			if c, ok := printedAmount(t, loc, want); ok {
				r.add("loan_amount", want, c, financingLoanDerived, time.Time{})
				r.add("equity_amount", e.money, e.cite, financingSumsHold, time.Time{})
				return
			}
		}
	}
	// Nothing adds up: the first of each, less sure where a total was there to check.
	conf := financingConfidence
	if len(totals) > 0 && len(equities) > 0 && len(loans) > 0 {
		conf = financingSumsFail
	}
	if len(loans) > 0 {
		r.add("loan_amount", loans[0].money, loans[0].cite, conf, time.Time{})
	}
	if len(equities) > 0 {
		r.add("equity_amount", equities[0].money, equities[0].cite, conf, time.Time{})
	}
}

// printedAmount finds a line that prints the amount, citing it.
func printedAmount(t *text, loc locale, want parse.Money) (evidence.Citation, bool) {
	for _, l := range t.lines {
		for _, f := range loc.figures(l.text) {
			if abs(f.Money.Cents) == want.Cents && (!f.Currency || f.Money.Currency == want.Currency) {
				return t.citeLine(l), true
			}
		}
	}
	return evidence.Citation{}, false
}
