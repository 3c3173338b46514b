package reader

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// reading collects the facts of one document.
type reading struct {
	t     *text
	facts []evidence.Fact
	seen  map[string]bool
}

// confidence of a value: lower on OCR pages, by OCR's confidence in the words the
// citation quotes where the page kept its words, else by the page's mean word
// confidence.
func (r *reading) confidence(c evidence.Citation, base float64) float64 {
	for _, n := range c.Pages {
		if p := r.t.doc.Page(n); p != nil && p.OCR {
			if w, ok := quotedWordsConfidence(p, c.Excerpt); ok {
				// OCR's own doubt about the very words quoted weighs more than the
				// page's mean, which averages it away.
				base *= 0.5 + 0.5*w
				continue
			}
			conf := 0.7
			if p.OCRConfidence != nil {
				conf = *p.OCRConfidence
			}
			base *= 0.75 + 0.25*conf
		}
	}
	return round2(min(0.99, base))
}

// quotedWordsConfidence is the mean OCR confidence of the page's words that the
// excerpt quotes; ok is false when the page kept no words or none is quoted.
func quotedWordsConfidence(p *evidence.Page, excerpt string) (float64, bool) {
	if len(p.Words) == 0 {
		return 0, false
	}
	quoted := map[string]int{}
	for _, w := range strings.Fields(excerpt) {
		quoted[w]++
	}
	sum, n := 0.0, 0
	for _, w := range p.Words {
		if quoted[w.Text] > 0 {
			quoted[w.Text]--
			sum += w.Conf
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// add records a fact unless the same key, value and period is already there; its
// confidence is lowered by OCR's doubt about the quoted words.
func (r *reading) add(key string, value any, c evidence.Citation, base float64, period time.Time) {
	r.record(key, value, c, base, period, true)
}

// addChecked records a fact whose reading a check digit or a second, independent
// reading confirms: OCR's doubt about the quoted words does not lower it (the zone of a
// photographed card reads with low word confidence and without error).
func (r *reading) addChecked(key string, value any, c evidence.Citation, conf float64) {
	r.record(key, value, c, conf, time.Time{}, false)
}

func (r *reading) record(key string, value any, c evidence.Citation, base float64, period time.Time, ocrDoubt bool) {
	id := fmt.Sprintf("%s|%v|%s", key, value, period.Format("2006-01"))
	if key == evidence.FactBankCredit || key == evidence.FactReturnedDebit {
		id += "|" + c.Excerpt
	}
	if r.seen[id] {
		return
	}
	r.seen[id] = true
	c = r.t.withRegions(c) // every citation on a page with words shows its spot
	conf := round2(min(0.99, base))
	if ocrDoubt {
		conf = r.confidence(c, base)
	}
	if ocrDoubt && r.t.fromFuzzyLabel(c) {
		// A reading a check digit or a second reading confirms (addChecked) owes
		// nothing to the label it was found after.
		conf = round2(max(0.05, conf-fuzzyPenalty))
		if verdictKeys[key] {
			conf = min(conf, belowVerdict)
		}
	}
	r.facts = append(r.facts, evidence.Fact{Key: key, Value: value, Confidence: conf, Citation: c, Period: period})
}

// belowVerdict is the most confidence a value that alone can make a verdict critical
// (see verdictKeys) gets when it was read without the check that would make it sure: the
// engine's checks need 0.6 for a critical verdict.
const belowVerdict = 0.59

// verdictKeys are the fields a single reading of which can make a check critical: an
// expiry, a price, an area, a loan-to-value.
var verdictKeys = map[string]bool{
	"id_document_expiry_date": true, "purchase_price": true, "living_area": true, "loan_to_value": true,
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
		case "other", financingOverview:
			if financingCues(r.t) {
				r.financing()
			}
			// A residence permit or visa is "other", yet its zone names its holder as
			// an ID card's does.
			if _, ok := r.t.machineZone(); ok && typ == "other" && !slices.Contains(types, "id_card") && !slices.Contains(types, "passport") {
				r.identity()
			} else if typ == "other" && len(types) == 1 {
				r.otherForm()
			}
		}
	}
	r.risks()
	return r.facts
}

// financingLTV is the one body cue that only a property financing plan carries.
var financingLTV = labelPattern("beleihungsauslauf|loan-to-value|loan to value")

// financingCues reports whether the document says of itself that it is a financing
// overview or proposal: its title (a short line in the title region) names one, or it
// states a loan-to-value among other financing cues. A letter that mentions a "Kredit"
// in its running text, or a consumer-loan contract, is no such plan, and its amounts
// are not the financing applied for.
func financingCues(t *text) bool {
	ps := scorePage(t)
	if ps.titled[financingOverview] {
		return true
	}
	if ps.scores[financingOverview] < 4 {
		return false
	}
	for _, l := range t.lines {
		if financingLTV.MatchString(l.f.s) {
			return true
		}
	}
	return false
}
