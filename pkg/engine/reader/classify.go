package reader

import (
	"regexp"
	"slices"
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
)

// cue is a phrase that speaks for a document type. A title cue counts double in the
// first lines of the document, where titles stand.
type cue struct {
	re     *regexp.Regexp
	weight float64
	title  bool
}

func cues(title float64, titles string, rest ...any) []cue {
	out := []cue{{re: labelPattern(titles), weight: title, title: true}}
	for i := 0; i+1 < len(rest); i += 2 {
		out = append(out, cue{re: labelPattern(rest[i].(string)), weight: rest[i+1].(float64)})
	}
	return out
}

// typeCues are the phrases of each builtin document type, German and English, in folded
// form (see labelPattern).
var typeCues = map[string][]cue{
	"id_card": cues(4, "personalausweis|identity card|carte d'identit",
		`re:(?:^|\s)i[dc][a-z<]{1,3}[a-z0-9<]{9}\d?<`, 3.0, "ausweis", 1.0),
	"passport": cues(4, "reisepass|passport|passeport",
		`re:(?:^|\s)p<[a-z]{3}[a-z]`, 3.0, "pass-nr|passport no", 2.0),
	"salary_statement": cues(4, "gehaltsabrechnung|lohnabrechnung|abrechnung der brutto|entgeltabrechnung|payslip|pay slip|salary statement|earnings statement",
		"nettoverdienst|netto-verdienst|nettobezug|nettolohn|net pay|net salary|auszahlungsbetrag", 2.0,
		"gesamtbrutto|gesamt-brutto|bruttolohn|bruttobezug|gross pay|total gross", 2.0,
		"lohnsteuer|income tax", 1.0, "rentenversicherung|pension insurance", 1.0, "steuerklasse|tax class", 1.0),
	"bank_statement": cues(4, "kontoauszug|account statement|bank statement",
		"kontostand|saldo|opening balance|closing balance|balance brought forward|balance carried forward|previous balance|new balance", 2.0,
		"verwendungszweck|money out|money in|buchung", 1.0, "kontoinhaber|account holder", 1.0,
		"lastschrift|direct debit|kartenzahlung|card payment|gutschrift", 1.0),
	"property_expose": cues(4, "expose",
		"kauferprovision|buyer's commission|provision", 2.0, "objektbeschreibung|objektart|property type", 1.5,
		"zimmer|rooms", 1.0, "asking price|kaufpreis", 1.0, "hausgeld|service charge", 1.0, "year built", 1.0),
	"purchase_contract": cues(4, "kaufvertrag|purchase agreement|purchase contract",
		"notar", 2.0, "ur-nr|urkundenrolle|deed no", 2.0, "verkäufer|seller", 1.0, "kaufpreis beträgt|purchase price is", 1.0),
	"land_register_extract": cues(4, "grundbuch von|grundbuchauszug|land register extract",
		"bestandsverzeichnis", 3.0, "erste abteilung|zweite abteilung|dritte abteilung", 2.0, "grundschuld", 1.0, "amtsgericht", 1.0),
	"floor_plan": cues(4, "grundriss|floor plan",
		"maßstab 1:|scale 1:", 2.0, "wohnen/essen|living/dining|diele", 1.0),
	"living_area_calculation": cues(4, "wohnflächenberechnung|living area calculation|wohnflachenberechnung",
		"wohnflächenverordnung|woflv", 3.0, "gesamtwohnfläche|total living area", 2.0, "anrechnung", 1.0),
	"energy_certificate": cues(4, "energieausweis für|energy performance certificate",
		"gebäudeenergiegesetz|geg\\)", 3.0, "endenergiebedarf|endenergieverbrauch", 2.0, "energieeffizienzklasse", 2.0, "wärmeerzeuger|registriernummer", 1.0),
	"self_disclosure": cues(4, "selbstauskunft|self-disclosure|self disclosure",
		"personal and financial statement|für darlehensnehmer", 2.0, "familienstand|marital status", 2.0,
		"pfändungen\\?|garnishments\\?", 1.0, "beschäftigt seit|employed since", 1.0),
	"employment_contract": cues(4, "arbeitsvertrag|employment contract|contract of employment",
		"probezeit|probationary", 2.0, "arbeitnehmer|the employee", 1.0, "urlaubsanspruch|arbeitszeit|notice", 1.0, "beginn des arbeitsverh|commencement", 1.0),
	"tax_assessment": cues(4, "steuerbescheid|bescheid für|tax assessment",
		"finanzamt", 3.0, "einkommensteuer", 2.0, "steuernummer", 2.0, "zu versteuernde", 1.0),
	"pension_statement": cues(4, "renteninformation|rentenbescheid|rentenauskunft|pension statement",
		"deutsche rentenversicherung", 3.0, "regelaltersrente|altersrente", 2.0, "versicherungsnummer", 1.0),
	"other": cues(4, "finanzierungsübersicht|finanzierungsvorschlag|financing overview|financing proposal|kreditanfrage|loan application",
		"beleihungsauslauf|loan-to-value", 2.0, "sollzinsbindung|zinsbindung|fixed interest period|fixed-rate period", 2.0,
		"darlehensbetrag|loan amount|nettodarlehensbetrag", 1.0, "tilgung|repayment", 1.0, "effektiver jahreszins|apr", 1.0),
}

// titleLines is how many lines from the top count as the title region.
const titleLines = 8

// Classify returns the builtin document types the document is, best first, each with
// a confidence in [0,1]; never empty ("other" when nothing fits). The slot type is a
// strong hint, not the truth: it decides only when the text says little.
func Classify(doc *evidence.Document) []evidence.TypeScore {
	t := newText(doc)
	scores := map[string]float64{}
	for typ, cs := range typeCues {
		for _, c := range cs {
			for i, l := range t.lines {
				if !c.re.MatchString(l.f.s) {
					continue
				}
				w := c.weight
				if c.title && i < titleLines {
					w *= 2
				}
				scores[typ] += w
				break // a cue counts once
			}
		}
	}
	slot := doc.SlotType
	if slot != "" {
		scores[slot] += 2
		if slot == "id_card" && scores["passport"] > 0 {
			scores["passport"] += 1 // the ID slot holds passports too
		}
	}
	var out []evidence.TypeScore
	total := 0.0
	for _, s := range scores {
		total += s
	}
	for typ, s := range scores {
		if s >= 4 || (typ == slot && s > 0) {
			out = append(out, evidence.TypeScore{Type: typ, Confidence: s})
		}
	}
	slices.SortFunc(out, func(a, b evidence.TypeScore) int {
		if a.Confidence != b.Confidence {
			if a.Confidence > b.Confidence {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Type, b.Type)
	})
	if len(out) == 0 {
		return []evidence.TypeScore{{Type: "other", Confidence: 0.3}}
	}
	// Confidence: the best score's share against the runner-up, scaled by how much text
	// supported it (a lone slot hint on an empty page is weak).
	best := out[0].Confidence
	second := 0.0
	if len(out) > 1 {
		second = out[1].Confidence
	}
	strength := min(1, best/10)
	for i := range out {
		share := out[i].Confidence / (best + second + 0.5)
		out[i].Confidence = round2(min(0.99, max(0.05, share*(0.5+0.5*strength)*1.5)))
	}
	if best < 3 && len(t.lines) < 3 {
		out[0].Confidence = 0.2
	}
	return out
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }
