package corpus

import "time"

type timeT = time.Time

// FieldPriority is, per data field, the document types whose statement of it counts,
// best first; within a type the newest document (Period) wins. The reader's Field
// follows the same order.
var FieldPriority = map[string][]string{
	"applicant_full_name":     {"id_card", "passport", "self_disclosure", "salary_statement", "employment_contract", "bank_statement", "tax_assessment", "pension_statement", "purchase_contract"},
	"applicant_date_of_birth": {"id_card", "passport", "self_disclosure", "salary_statement", "employment_contract", "pension_statement", "purchase_contract"},
	"id_document_number":      {"id_card", "passport"},
	"id_document_expiry_date": {"id_card", "passport"},
	"employer_name":           {"salary_statement", "employment_contract", "self_disclosure"},
	"gross_monthly_income":    {"salary_statement", "employment_contract", "self_disclosure"},
	"net_monthly_income":      {"salary_statement", "self_disclosure"},
	"employment_start_date":   {"salary_statement", "employment_contract", "self_disclosure"},
	"iban":                    {"bank_statement", "salary_statement", "self_disclosure"},
	"account_balance":         {"bank_statement"},
	"property_address":        {"purchase_contract", "property_expose", "land_register_extract", "living_area_calculation", "energy_certificate", "other"},
	"purchase_price":          {"purchase_contract", "property_expose", "other", "self_disclosure"},
	"living_area":             {"living_area_calculation", "purchase_contract", "property_expose"},
	"year_of_construction":    {"property_expose", "energy_certificate"},
	"loan_amount":             {"other", "self_disclosure"},
	"equity_amount":           {"other", "self_disclosure"},
	"loan_to_value":           {"other", "self_disclosure"},
	"fixed_interest_period":   {"other", "self_disclosure"},
}

// pickFields chooses each field's value from the readable documents by FieldPriority.
func pickFields(docs []Doc) (map[string]any, map[string]string) {
	values, sources := map[string]any{}, map[string]string{}
	for key, types := range FieldPriority {
	byType:
		for _, typ := range types {
			var best *Doc
			for i := range docs {
				d := &docs[i]
				if !d.Readable || d.Types[0] != typ {
					continue
				}
				if _, ok := d.Fields[key]; !ok {
					continue
				}
				if best == nil || d.Period.After(best.Period) {
					best = d
				}
			}
			if best != nil {
				values[key], sources[key] = best.Fields[key], best.Name
				break byType
			}
		}
	}
	return values, sources
}

func monthIndex(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }
