package reader

import (
	"regexp"
	"strings"
)

// legalForm matches the legal form that ends a company name.
// American and British forms: "Inc.", "Corp.", "Corporation", "LLC", "LLP", "L.P.",
// "Ltd", "PLC", "Company"; letterheads print them in capitals too ("ACME CORPORATION").
var legalForm = regexp.MustCompile(`(?:\b(?:gGmbH|GmbH|mbH|AG|KG|KGaA|OHG|SE|eG|GbR|UG|Ltd|LTD|Limited|LIMITED|Inc|INC|LLC|LLP|PLC|plc|Corp|CORP|Corporation|CORPORATION|Company|COMPANY|GMBH|e\.\s?V)\b\.?|\be\.\s?K\.|\bCo\.\s?KG\b|\bL\.P\.)`)

// coGlued is "Co.KG" as OCR glues it.
var coGlued = regexp.MustCompile(`Co\.(KG|OHG)`)

// readEmployer reads a company name: the text up to and including the last legal
// form that comes before any digit (an address follows names).
func readEmployer(s string) (string, bool) {
	s = strings.TrimLeft(s, " :\t-")
	if i := strings.IndexAny(s, "0123456789"); i >= 0 {
		s = s[:i]
	}
	locs := legalForm.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return "", false
	}
	name := coGlued.ReplaceAllString(strings.TrimSpace(s[:locs[len(locs)-1][1]]), "Co. $1")
	if len(strings.Fields(name)) < 2 || len(name) > 80 {
		return "", false
	}
	return name, true
}
