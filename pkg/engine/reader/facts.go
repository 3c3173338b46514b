package reader

import (
	"fmt"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// reading collects the facts of one document.
type reading struct {
	t       *text
	facts   []evidence.Fact
	seen    map[string]bool
	closing *closingFact // a statement page's closing balance while reading it
}

// confidence of a value: lower on OCR pages, by the page's mean word confidence.
func (r *reading) confidence(c evidence.Citation, base float64) float64 {
	for _, n := range c.Pages {
		if p := r.t.doc.Page(n); p != nil && p.OCR {
			conf := 0.7
			if p.OCRConfidence != nil {
				conf = *p.OCRConfidence
			}
			base *= 0.75 + 0.25*conf
		}
	}
	return round2(min(0.99, base))
}

// add records a fact unless the same key, value and period is already there.
func (r *reading) add(key string, value any, c evidence.Citation, base float64, period time.Time) {
	id := fmt.Sprintf("%s|%v|%s", key, value, period.Format("2006-01"))
	if key == evidence.FactBankCredit || key == evidence.FactReturnedDebit {
		id += "|" + c.Excerpt
	}
	if r.seen[id] {
		return
	}
	r.seen[id] = true
	r.facts = append(r.facts, evidence.Fact{Key: key, Value: value, Confidence: r.confidence(c, base), Citation: c, Period: period})
}

// Facts reads every fact the document states, for all builtin data field keys and the
// evidence.Fact* keys, given its types (from Classify, or the engine's decision). Every
// citation quotes the page text, so doc.Verify holds for it.
func Facts(doc *evidence.Document, types []string) []evidence.Fact {
	r := &reading{t: newText(doc), seen: map[string]bool{}}
	for _, typ := range types {
		switch typ {
		case "id_card", "passport":
			r.identity()
		case "salary_statement":
			r.payslip()
		case "bank_statement":
			r.bankStatement()
		case "property_expose":
			r.expose()
		case "purchase_contract":
			r.purchaseContract()
		case "land_register_extract":
			r.landRegister()
		case "living_area_calculation":
			r.livingAreaCalculation()
		case "energy_certificate":
			r.energyCertificate()
		case "self_disclosure":
			r.selfDisclosure()
		case "employment_contract":
			r.employmentContract()
		case "tax_assessment", "pension_statement":
			r.letter()
		case "other":
			r.financing()
		}
	}
	r.risks()
	return r.facts
}
