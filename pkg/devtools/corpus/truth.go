package corpus

import (
	"time"
)

type timeT = time.Time

// fieldSources is the product rule for which document a builtin data field's value is
// taken from, written down here as data: per field, the document types whose
// statement counts, best first; within a type the newest statement (its period) wins.
// It follows what each type is for in the catalog (pkg/catalog, document_types and
// data_fields): identity from the ID document, income from the payslip, the balance
// from the bank statement, the property from the contract before the exposé, the
// financing from the broker's proposal (type "other") before the applicant's own
// statement. The corpus keeps its own copy so that its truth does not move when the
// engine's rule does; a difference between the two is a finding, not a test to fix.
var fieldSources = map[string][]string{
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

// FieldKeys are the builtin data fields (pkg/catalog's data_fields), in catalog order.
var FieldKeys = []string{
	"applicant_full_name", "applicant_date_of_birth", "id_document_number", "id_document_expiry_date", "employer_name",
	"gross_monthly_income", "net_monthly_income", "employment_start_date", "iban", "account_balance", "property_address",
	"purchase_price", "living_area", "year_of_construction", "loan_amount", "equity_amount", "loan_to_value", "fixed_interest_period",
}

// statement is what one document (or one part of a merged upload) states.
type statement struct {
	doc    *Doc
	typ    string
	fields map[string]any
	period time.Time
}

func statements(docs []Doc) []statement {
	var out []statement
	for i := range docs {
		d := &docs[i]
		if !d.Readable {
			continue
		}
		if len(d.Parts) == 0 {
			out = append(out, statement{doc: d, typ: d.Types[0], fields: d.Fields, period: d.Period})
			continue
		}
		for _, p := range d.Parts {
			out = append(out, statement{doc: d, typ: p.Type, fields: p.Fields, period: p.Period})
		}
	}
	return out
}

// pickFields chooses each field's value from the readable documents by fieldSources.
// A field no document of a listed type prints has no truth: a value the engine returns
// for it is invented.
func pickFields(docs []Doc) (map[string]any, map[string]string) {
	values, sources := map[string]any{}, map[string]string{}
	all := statements(docs)
	for key, types := range fieldSources {
		for _, typ := range types {
			var best *statement
			for i := range all {
				s := &all[i]
				if s.typ != typ {
					continue
				}
				if _, ok := s.fields[key]; !ok {
					continue
				}
				if best == nil || s.period.After(best.period) {
					best = s
				}
			}
			if best != nil {
				values[key], sources[key] = best.fields[key], best.doc.Name
				break
			}
		}
	}
	return values, sources
}

func monthIndex(t time.Time) int { return t.Year()*12 + int(t.Month()) - 1 }
