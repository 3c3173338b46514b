package engine

// typeNames are the builtin document types' names for reasoning summaries, English and
// German; the keys are also the set of types the reader can recognize.
var typeNames = map[string][2]string{
	"id_card":                 {"ID card", "Personalausweis"},
	"passport":                {"passport", "Reisepass"},
	"self_disclosure":         {"self-disclosure", "Selbstauskunft"},
	"salary_statement":        {"salary statement", "Gehaltsabrechnung"},
	"employment_contract":     {"employment contract", "Arbeitsvertrag"},
	"tax_assessment":          {"tax assessment", "Steuerbescheid"},
	"pension_statement":       {"pension statement", "Renteninformation"},
	"bank_statement":          {"bank statement", "Kontoauszug"},
	"property_expose":         {"property exposé", "Exposé"},
	"purchase_contract":       {"purchase contract", "Kaufvertrag"},
	"land_register_extract":   {"land register extract", "Grundbuchauszug"},
	"floor_plan":              {"floor plan", "Grundriss"},
	"living_area_calculation": {"living area calculation", "Wohnflächenberechnung"},
	"energy_certificate":      {"energy certificate", "Energieausweis"},
	"other":                   {"other document", "sonstiges Dokument"},
}

// typeName names a document type in the language; custom types by their key.
func typeName(lang, key string) string {
	n, ok := typeNames[key]
	if !ok {
		return key
	}
	return say(lang, n[0], n[1])
}
