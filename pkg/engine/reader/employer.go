package reader

import (
	"regexp"
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// legalForm matches the legal form that ends a company name.
// American and British forms: "Inc.", "Corp.", "Corporation", "LLC", "LLP", "L.P.",
// "Ltd", "PLC", "Company"; letterheads print them in capitals too ("ACME CORPORATION").
var legalForm = regexp.MustCompile(`(?:\b(?:gGmbH|GmbH|mbH|AG|KG|KGaA|OHG|SE|eG|GbR|UG|Ltd|LTD|Limited|LIMITED|Inc|INC|LLC|LLP|PLC|plc|Corp|CORP|Corporation|CORPORATION|Company|COMPANY|GMBH|e\.\s?V)\b\.?|\be\.\s?K\.|\bCo\.\s?KG\b|\bL\.P\.)`)

// prefixForm is a legal form printed before the name, as French, Italian, Spanish and
// Polish firms may print it: "SAS BOULANGERIE DUPONT", "S.r.l. Rossi", "Sp. z o.o."
// comes after. Upper-case abbreviations only: "SA" inside a sentence is no form.
var prefixForm = regexp.MustCompile(`^(?:SAS|SASU|SARL|EURL|SNC|SCI|SA|S\.A\.|SPA|S\.p\.A\.|SRL|S\.r\.l\.|S\.R\.L\.|S\.L\.|BV|B\.V\.|NV|N\.V\.)\s+\p{Lu}`)

// suffixForms are the legal forms of other EU countries that end a name: "Boulangerie
// Dupont SARL", "Rossi S.p.A.", "Garcia S.L.", "Jansen B.V.", "Kowalski Sp. z o.o.".
var suffixForm = regexp.MustCompile(`(?:\s(?:SAS|SASU|SARL|EURL|SNC|SA|S\.A\.|SpA|SPA|S\.p\.A\.|Srl|SRL|S\.r\.l\.|S\.R\.L\.|S\.L\.|SL|BV|B\.V\.|NV|N\.V\.|Sp\. z o\.o\.|sp\. z o\.o\.))$`)

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
		name := strings.TrimRight(leadingCell(s), ",; ")
		if (prefixForm.MatchString(name) || suffixForm.MatchString(name)) && len(strings.Fields(name)) >= 2 && len(name) <= 80 {
			return name, true
		}
		return "", false
	}
	name := coGlued.ReplaceAllString(strings.TrimSpace(s[:locs[len(locs)-1][1]]), "Co. $1")
	if len(strings.Fields(name)) < 2 || len(name) > 80 {
		return "", false
	}
	return name, true
}

// senderSep joins the parts of a sender line.
var senderSep = regexp.MustCompile(`\s*[*•·|]\s*|\s+[-–]\s+`)

// senderLine finds the sender line of a letter: the return address printed small over
// the window of the envelope, its parts joined by '*', '·', '•', '|' or a dash: the
// sender first, then a street and a town with its postcode ("Eine & Keine GmbH*St.-Susi-
// Str. 4*88888 München"). It returns the line and the sender. The addressee's block
// follows it. Any cell of the line may be the sender line (a text layer prints other
// cells beside it); only the first page's lines count.
func senderLine(t *text) (line, string, bool) {
	for _, l := range t.lines {
		if len(t.lines) > 0 && l.page != t.lines[0].page {
			break
		}
		for _, c := range cellsOf(l.text) {
			parts := senderSep.Split(strings.Trim(c.text, " *"), -1)
			if len(parts) < 3 || len(parts) > 5 {
				continue
			}
			if !postcodeTown.MatchString(parts[len(parts)-1]) || !streetLine.MatchString(parts[len(parts)-2]) {
				continue
			}
			if sender := strings.TrimSpace(parts[0]); sender != "" && !strings.ContainsAny(sender, "0123456789") {
				return l, sender, true
			}
		}
	}
	return line{}, "", false
}

// senderAddressee reads the addressee's name in the block under a sender line: after
// a salutation line ("Herrn", "Frau") if any, the name over a street line.
func senderAddressee(t *text) (string, evidence.Citation, bool) {
	s, _, ok := senderLine(t)
	if !ok {
		return "", evidence.Citation{}, false
	}
	n, ok := t.next(s)
	if ok && addressee.MatchString(n.f.s) {
		n, ok = t.next(n)
	}
	if !ok {
		return "", evidence.Citation{}, false
	}
	street, ok := t.next(n)
	if !ok || !streetLine.MatchString(leadingCell(street.text)) {
		return "", evidence.Citation{}, false
	}
	name, ok := readName(leadingCell(n.text))
	if !ok {
		return "", evidence.Citation{}, false
	}
	return name, t.cite(s, street), true
}

// registryLine marks a company's legal footer: its register entry, court, directors or
// VAT number ("Amtsgericht Nürnberg HRB 28814", "Geschäftsführer", "Registered in
// England No. 1234567", "RCS Lyon", "Company No").
var registryLine = regexp.MustCompile(`(?i)\b(?:HRB|HRA|amtsgericht|registergericht|handelsregister|geschäftsführer|geschaftsfuhrer|geschäftsführung|vorstand|ust-idnr|ust\.-id|registered in|registered office|company no|company number|rcs|siret|siren|partita iva|registro mercantil|kvk)\b`)

// footerEmployer reads the employer from a company's legal footer on the first page:
// the first part of a line that states the register entry or directors, parts joined
// as a sender line's are, when that part is a company name ("Frankenwerk Maschinenbau
// GmbH · Sitz Nürnberg · Amtsgericht Nürnberg HRB 28814").
func footerEmployer(t *text) (line, string, bool) {
	for _, l := range t.lines {
		if len(t.lines) > 0 && l.page != t.lines[0].page {
			break
		}
		if !registryLine.MatchString(l.text) {
			continue
		}
		parts := senderSep.Split(strings.TrimSpace(l.text), -1)
		if len(parts) < 2 {
			continue
		}
		if name, ok := readEmployer(parts[0]); ok && !bankName.MatchString(name) {
			return l, name, true
		}
	}
	return line{}, "", false
}
