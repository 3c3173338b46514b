package reader

import (
	"regexp"
	"slices"
	"strings"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/mrz"
)

// cue is a phrase that speaks for a document type. A title cue counts double in the
// first lines of the document, where titles stand.
type cue struct {
	spec   string
	re     keyedPattern
	weight float64
	title  bool
}

func cues(title float64, titles string, rest ...any) []cue {
	out := []cue{{spec: titles, re: keyed(titles), weight: title, title: true}}
	for i := 0; i+1 < len(rest); i += 2 {
		spec := rest[i].(string)
		out = append(out, cue{spec: spec, re: keyed(spec), weight: rest[i+1].(float64)})
	}
	return out
}

// typeCues are the phrases of each builtin document type in folded form (see
// labelPattern): German and English, and the titles and strongest cues of the types
// lenders see from other EU countries in their own languages.
var typeCues = map[string][]cue{
	"id_card": cues(4, "personalausweis|identity card|carte d'identit|carta d'identit|carta di identit|documento nacional de identidad|documento de identidad|cartao de cidadao|bilhete de identidade|identiteitskaart|dowod osobisty|identitetskort|henkilokortti|obcansky prukaz|osobna iskaznica|national id card|passport card|driver license|driver's license|drivers license|driving licence|permis de conduire|patente di guida|permiso de conducir|rijbewijs|prawo jazdy|carta de conducao|korkort|fuhrerschein",
		`re:(?:^|\s)i[dc][a-z<]{1,3}[a-z0-9<]{9}\d?<`, 3.0, "ausweis", 1.0),
	"passport": cues(4, "reisepass|passport|passeport|pasaporte|passaporto|passaporte|paspoort|paszport|cestovni pas|putovnica",
		`re:(?:^|\s)p<[a-z]{3}[a-z]`, 3.0, "pass-nr|passport no", 2.0),
	"salary_statement": cues(4, "gehaltsabrechnung|lohnabrechnung|abrechnung der brutto|entgeltabrechnung|payslip|pay slip|salary statement|earnings statement|pay statement|statement of earnings|pay stub|paystub|bulletin de paie|bulletin de salaire|fiche de paie|recibo de salarios|#nomina#|busta paga|cedolino|loonstrook|salarisstrook|pasek wynagrodzen|recibo de vencimento|lonebesked|lonespecifikation",
		"nettoverdienst|netto-verdienst|nettobezug|nettolohn|net pay|net salary|auszahlungsbetrag|net a payer|netto a pagare|liquido a percibir|nettoloon|netto te betalen|do wyplaty|vencimento liquido", 2.0,
		"gesamtbrutto|gesamt-brutto|bruttolohn|bruttobezug|gross pay|total gross|salaire brut|retribuzione lorda|total devengado|brutoloon|wynagrodzenie brutto", 2.0,
		"lohnsteuer|income tax", 1.0, "rentenversicherung|pension insurance", 1.0, "steuerklasse|tax class", 1.0),
	"bank_statement": cues(4, "kontoauszug|account statement|bank statement|statement of account|releve de compte|releve bancaire|extrait de compte|extracto de cuenta|extracto bancario|estratto conto|rekeningafschrift|dagafschrift|wyciag z rachunku|wyciag bankowy|extrato bancario|extrato de conta|kontoutdrag",
		"kontostand|saldo|opening balance|closing balance|balance brought forward|balance carried forward|previous balance|new balance|beginning balance|ending balance|ancien solde|nouveau solde|solde crediteur|solde debiteur", 2.0,
		"verwendungszweck|money out|money in|paid in|paid out|buchung|deposits and|withdrawals and", 1.0, "kontoinhaber|account holder|titulaire du compte|titular de la cuenta|intestatario|rekeninghouder", 1.0,
		"sort code|checking account|savings account|routing number", 1.0,
		"lastschrift|direct debit|kartenzahlung|card payment|gutschrift", 1.0),
	"property_expose": cues(4, "expose",
		"kauferprovision|buyer's commission|provision", 2.0, "objektbeschreibung|objektart|property type", 1.5,
		"zimmer|rooms", 1.0, "asking price|kaufpreis", 1.0, "hausgeld|service charge", 1.0, "year built", 1.0),
	"purchase_contract": cues(4, "kaufvertrag|purchase agreement|purchase contract|compromis de vente|acte de vente|contrato de compraventa|contratto di compravendita|koopovereenkomst|koopakte|umowa sprzedazy|contrato de compra e venda",
		"notar", 2.0, "ur-nr|urkundenrolle|deed no", 2.0, "verkäufer|seller", 1.0, "kaufpreis beträgt|purchase price is", 1.0),
	"land_register_extract": cues(4, "grundbuch von|grundbuchauszug|land register extract|auszug aus dem hauptbuch|#grundbuch#|land registry|title register|registro de la propiedad|nota simple|visura catastale|kadaster|ksiega wieczysta|certidao predial|livre foncier|fastighetsregister",
		"bestandsverzeichnis|einlagezahl|katastralgemeinde|grundstucksverzeichnis", 3.0, "erste abteilung|zweite abteilung|dritte abteilung", 2.0, "grundschuld", 1.0, "amtsgericht", 1.0),
	"floor_plan": cues(4, "grundriss|floor plan",
		"maßstab 1:|scale 1:", 2.0, "wohnen/essen|living/dining|diele", 1.0),
	"living_area_calculation": cues(4, "wohnflächenberechnung|living area calculation|wohnflachenberechnung",
		"wohnflächenverordnung|woflv", 3.0, "gesamtwohnfläche|total living area", 2.0, "anrechnung", 1.0),
	"energy_certificate": cues(4, "energieausweis für|energy performance certificate|diagnostic de performance energetique|certificado de eficiencia energetica|attestato di prestazione energetica|energielabel|swiadectwo charakterystyki energetycznej|certificado energetico|energideklaration",
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
	financingOverview: cues(4, "finanzierungsübersicht|finanzierungsvorschlag|finanzierungsangebot|finanzierungsplan|finanzierungskonzept|financing overview|financing proposal|financing summary|financing plan|mortgage illustration|mortgage summary|kreditanfrage|darlehensanfrage|loan application|plan de financement|piano di finanziamento|plan de financiacion|financieringsvoorstel",
		"beleihungsauslauf|loan-to-value|loan to value", 2.0, "sollzinsbindung|zinsbindung|fixed interest period|fixed-rate period|initial rate fixed", 2.0,
		"darlehensbetrag|loan amount|nettodarlehensbetrag|darlehenssumme|mortgage amount", 1.0, "tilgung|repayment", 1.0, `re:effektiver\s*jahreszins|\bapr\b`, 1.0),
}

// financingOverview is the reader's own type of a financing overview or proposal (a
// broker's or bank's plan of the financing applied for). The contract has no such
// document type: results report it as "other", but only a document whose own cues say
// it is one is read for loan amount, equity, loan-to-value and fixed interest period.
// Any other unrecognized document (a car-loan letter, a generic letter) is "other" and
// gives no loan facts.
const financingOverview = "financing_overview"

// publicType is the contract's document type key of a reader type.
func publicType(typ string) string {
	if typ == financingOverview || typ == residenceOrVisa {
		return "other"
	}
	return typ
}

// titleLines is how many lines from the top of a page count as its title region.
const titleLines = 8

// titleLike reports whether the cue on line l stands as a title: on a short line, or
// at the start of a column ("Sparkasse KölnBonn     Kontoauszug 10/2026"), not inside
// a sentence ("Die Gehaltsabrechnung erfolgt monatlich …").
func titleLike(l line, re *regexp.Regexp) bool {
	if len(strings.Fields(l.text)) <= 6 {
		return true
	}
	loc := re.FindStringIndex(l.f.s)
	if loc == nil {
		return false
	}
	before := l.text[:l.f.orig[loc[0]]]
	return strings.TrimSpace(before) == "" || strings.HasSuffix(before, "  ") || strings.HasSuffix(before, "\t")
}

// pageScore is how strongly one page speaks for each document type.
type pageScore struct {
	scores map[string]float64
	// titled are the types whose title cue stands in the page's title region: the page
	// starts a document of that type rather than continuing one.
	titled map[string]bool
	// ledgerAdds: the page's rows are a ledger whose running balances follow from row
	// to row (see ledgerShape), a statement's structure whatever its words.
	ledgerAdds bool
}

// scorePage scores the lines of one page (or a whole document); the first titleLines
// lines of the first page are the title region. On OCR pages a cue no line spells
// counts, at half its weight, where OCR garbled it (see fuzzyMatchWords).
func scorePage(t *text) pageScore {
	lines := t.lines
	title := 0
	for title < len(lines) && title < titleLines && lines[title].page == lines[0].page {
		title++
	}
	ps := pageScore{scores: map[string]float64{}, titled: map[string]bool{}}
	for typ, cs := range typeCues {
		for _, c := range cs {
			found := false
			for i, l := range lines {
				if !c.re.match(l) {
					continue
				}
				w := c.weight
				if c.title && i < title {
					w *= 2
					if titleLike(l, c.re.re) {
						ps.titled[typ] = true
					}
				}
				ps.scores[typ] += w
				found = true
				break // a cue counts once
			}
			if found || !t.ocr {
				continue
			}
			for i, l := range lines {
				if pageIsOCR(t, l.page) && fuzzyFound(c.spec, l) {
					w := c.weight / 2
					if c.title && i < title {
						w *= 2
					}
					ps.scores[typ] += w
					break
				}
			}
		}
	}
	structureScores(structureLines(t), &ps)
	// Structure before words: a machine-readable zone whose check digits hold says what
	// the document is, however OCR garbled its title.
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.text
	}
	zoneKind := ""
	for _, z := range mrz.Find(texts) {
		typ := z.Kind()
		switch typ {
		case "passport", "id_card":
		case "":
			continue
		default:
			typ = residenceOrVisa
		}
		ps.scores[typ] += zoneWeight
		ps.titled[typ] = true
		if zoneKind == "" {
			zoneKind = typ
		}
	}
	// Structure: the labelled fields of an identity document's data page or back
	// (names, birth, validity, issuer) say it is one whatever its title; its zone's
	// document code says which, else a card's word.
	if kinds, validity := identityFields(t); kinds >= 3 && validity && len(lines) <= identityPageLines {
		typ := zoneKind
		switch {
		case typ != "":
		case ps.scores["passport"] > 0 && !slices.ContainsFunc(lines, func(l line) bool { return cardWord.MatchString(l.f.s) }):
			typ = "passport"
		default:
			typ = "id_card"
		}
		ps.scores[typ] += float64(kinds) + 1
	}
	return ps
}

// identityPageLines is the most lines an identity document's page has: a longer page
// that labels a name, a birth date and a validity is a form about a person.
const identityPageLines = 60

// cardWord names a card in the languages of the EU and the US: an identity document
// called a card is no passport, even a "passport card".
var cardWord = labelPattern("#card#|#carte#|#karte#|#carta#|#tarjeta#|#kaart#|#karta#|#kort#|#cartao#|ausweis")

// zoneWeight is what a machine-readable zone adds to its document type's score: more
// than a title cue read twice, so that a zone decides unless the words agree on another
// type.
const zoneWeight = 10

// residenceOrVisa is the reader's type of a residence permit or visa (an identity
// document with a zone that is neither an ID card nor a passport); results report it as
// "other".
const residenceOrVisa = "residence_permit"

// Classify returns the builtin document types the document is, best first, each with
// a confidence in [0,1]; never empty ("other" when nothing fits). The slot type is a
// strong hint, not the truth: it decides only when the text says little. The title
// region is the top of the document; ClassifyPages reads every page on its own.
func Classify(doc *evidence.Document) []evidence.TypeScore {
	return publicScores(classify(doc))
}

// ClassifyPage returns the types page n of the document is by its own cues, best
// first, as Classify does for a whole document: the top of the page is its title
// region, and the slot is no hint (a page of a merged upload need not be what the slot
// asked for). "other" when the page says too little.
func ClassifyPage(doc *evidence.Document, n int) []evidence.TypeScore {
	t := newText(doc).onPage(n)
	return publicScores(rankTypes(scorePage(t).scores, "", len(t.lines)))
}

// classify is Classify with the reader's own types (financingOverview).
func classify(doc *evidence.Document) []evidence.TypeScore {
	t := newText(doc)
	ps := scorePage(t)
	return rankTypes(ps.scores, doc.SlotType, len(t.lines))
}

// rankTypes turns raw scores into the sorted, calibrated type list.
func rankTypes(scores map[string]float64, slot string, lines int) []evidence.TypeScore {
	if slot != "" {
		if slot == "other" && scores[financingOverview] > 0 {
			slot = financingOverview
		}
		scores[slot] += 2
		if slot == "id_card" && scores["passport"] > 0 {
			scores["passport"] += 1 // the ID slot holds passports too
		}
	}
	var out []evidence.TypeScore
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
	if best < 3 && lines < 3 {
		out[0].Confidence = 0.2
	}
	return out
}

// publicScores maps reader types to the contract's, keeping the first of duplicates.
func publicScores(in []evidence.TypeScore) []evidence.TypeScore {
	out := make([]evidence.TypeScore, 0, len(in))
	for _, s := range in {
		s.Type = publicType(s.Type)
		if !slices.ContainsFunc(out, func(o evidence.TypeScore) bool { return o.Type == s.Type }) {
			out = append(out, s)
		}
	}
	return out
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }
