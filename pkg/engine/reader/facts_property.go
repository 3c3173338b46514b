package reader

import (
	"regexp"
	"strings"
	"time"
)

// addressRe matches "Street 12a, 12345 City": a street of words (German compounds,
// "Am Weißen Stein", "Friedrich-Ebert-Straße"), a house number, a five-digit postcode
// and the city up to a comma, a bracket, a full stop at the end or the line's end.
var addressRe = regexp.MustCompile(`((?:[A-ZÄÖÜ][\p{L}.\-]*\s)*?(?:[A-ZÄÖÜ][\p{L}.\-]*|[a-zäöüß]+(?:straße|strasse|weg|allee|platz|gasse)))\s+(\d{1,4}\s?[a-zA-Z]?)\s*,?\s+(\d{5})\s+([A-ZÄÖÜ][\p{L}\-]*(?:\s(?:am|an|im|in|der|bei|ob|a\.|i\.)?\s?[A-ZÄÖÜ][\p{L}\-.]*)*)`)

var (
	splitCapital = regexp.MustCompile(`\b([A-ZÄÖÜ]) ([a-zäöüß]{3,})`)
	eszett       = regexp.MustCompile(`([a-zäöü])B([a-zäöü])`)
)

// readAddress reads a postal address as "Street No, ZIP City".
func readAddress(s string) (string, bool) {
	// OCR splits off a capital ("R osenstraße") and reads ß as B ("StraBe").
	s = splitCapital.ReplaceAllString(s, "$1$2")
	s = eszett.ReplaceAllString(s, "${1}ß$2")
	m := addressRe.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	street := strings.TrimSpace(m[1])
	// A label glued before the street ("Objekt: Lindenstraße") is no part of it.
	if i := strings.LastIndex(street, ":"); i >= 0 {
		street = strings.TrimSpace(street[i+1:])
	}
	for _, w := range []string{"Gebäude- und Freifläche", "Freifläche", "Adresse", "Objektadresse", "Address", "Objekt", "Property", "at"} {
		street = strings.TrimSpace(strings.TrimPrefix(street, w))
	}
	if street == "" {
		return "", false
	}
	city := strings.TrimRight(m[4], ".")
	return street + " " + strings.ReplaceAll(m[2], " ", "") + ", " + m[3] + " " + city, true
}

// propertyAddress finds the property's address: after a label, or anywhere on a line
// that is not about a person (their home address is no property) nor in an estate
// agent's or issuer's block (letterhead, contact, imprint), the street and the city
// on one line or on two, or in prose with the town first ("in 80331 München,
// Musterstraße 5").
func (r *reading) propertyAddress(conf float64, labels string) {
	t := r.t
	skip := labelPattern("wohnhaft|residing|geboren|born|anschrift|herrn|frau|eigentümer|notar")
	blocks := issuerBlocks(t)
	try := func(l line) bool {
		// The object's own label outweighs an agent's cue beside it.
		if skip.MatchString(l.f.s) || blocks[l.idx] && !objectLabel.MatchString(l.f.s) {
			return false
		}
		if a, ok := readAddress(l.text); ok {
			r.add("property_address", a, t.citeLine(l), conf, time.Time{})
			return true
		}
		if a, ok := readTownFirstAddress(l.text); ok {
			r.add("property_address", a, t.citeLine(l), conf-0.05, time.Time{})
			return true
		}
		if n, ok := t.next(l); ok && !skip.MatchString(n.f.s) && !blocks[n.idx] {
			if a, ok := readAddress(strings.TrimRight(l.text, " ,") + ", " + strings.TrimSpace(n.text)); ok {
				r.add("property_address", a, t.cite(l, n), conf-0.05, time.Time{})
				return true
			}
		}
		return false
	}
	if labels != "" {
		for _, h := range t.find(labels) {
			if try(h.l) {
				return
			}
		}
	}
	for _, l := range t.lines {
		if try(l) {
			return
		}
	}
}

// objectLabel labels the property's own address: "Objektadresse", "Adresse des
// Objekts", "Lage des Objekts", "Property address".
var objectLabel = labelPattern("objektadresse|adresse des objekts|lage des objekts|objektanschrift|property address|address of the property")

// issuerCue marks a block of lines as the issuer's or an estate agent's: a contact
// heading ("Ihr Ansprechpartner", "Kontakt", "Your contact"), an imprint ("Impressum",
// "Anbieter"), a phone number or e-mail, a firm ("GmbH", "Immobilien", "Makler",
// "Estate agents", "Realty").
var issuerCue = labelPattern(`re:ansprechpartner|kontakt|contact|impressum|anbieter|\bmakler|immobilien|estate agent|realty|realtor|\btel\b|telefon|phone|\bfax\b|e-mail|email|www\.|@|\bgmbh\b|\bag\b|\bkg\b|\be\.\s?k\.|\bltd\b|\binc\b|\bllc\b|ohne gewahr|without guarantee`)

// issuerBlocks marks the lines of blocks (runs of lines between empty lines) that
// carry an issuer cue: their addresses are the agent's office, not the property.
func issuerBlocks(t *text) map[int]bool {
	out := map[int]bool{}
	var block []line
	flush := func() {
		for k, l := range block {
			if !issuerCue.MatchString(l.f.s) {
				continue
			}
			// A short block is the agent's as a whole; in a long one (a page without
			// empty lines) only the lines around the cue are.
			from, to := 0, len(block)
			if len(block) > 6 {
				from, to = max(0, k-2), min(len(block), k+3)
			}
			for _, b := range block[from:to] {
				out[b.idx] = true
			}
		}
		block = block[:0]
	}
	for i, l := range t.lines {
		if i > 0 && (l.page != t.lines[i-1].page || lineGap(t, t.lines[i-1], l)) {
			flush()
		}
		block = append(block, l)
	}
	flush()
	return out
}

// townFirst is an address in prose with the town first: "80331 München, Musterstraße 5".
var townFirst = regexp.MustCompile(`(\d{5})\s+([A-ZÄÖÜ][\p{L}\-]*(?:\s[A-ZÄÖÜ][\p{L}\-]*)?),\s*((?:[A-ZÄÖÜ][\p{L}.\-]*\s)*?[A-ZÄÖÜ][\p{L}.\-]*)\s+(\d{1,4}\s?[a-zA-Z]?)\b`)

// readTownFirstAddress reads an address with the town first as "Street No, ZIP City".
func readTownFirstAddress(s string) (string, bool) {
	m := townFirst.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[3] + " " + strings.ReplaceAll(m[4], " ", "") + ", " + m[1] + " " + m[2], true
}

// constructionYear reads the construction year after its label ("Baujahr 1998") or,
// in prose, right before it ("dates from 1998 (year of construction)"), skipping the
// heating's.
func (r *reading) constructionYear(conf float64) {
	t := r.t
	heating := labelPattern("wärme|erzeuger|heiz|anlage|heating")
	for _, h := range t.findExact("baujahr|year built|year of construction|built in|erbaut|bj\\.") {
		after := h.rest
		if len(after) > 16 {
			after = after[:16]
		}
		if !heating.MatchString(foldString(after)) {
			if y, ok := readYear(after); ok {
				r.add("year_of_construction", y, t.citeLine(h.l), conf, time.Time{})
				return
			}
		}
		before := h.l.text[:h.start]
		if len(before) > 12 {
			before = before[len(before)-12:]
		}
		if y, ok := readYear(before); ok && !heating.MatchString(foldString(h.l.text[:h.start])) {
			r.add("year_of_construction", y, t.citeLine(h.l), conf-0.05, time.Time{})
			return
		}
		if heating.MatchString(foldString(h.rest)) {
			continue
		}
		if y, c, ok := valueAfter(t, h, readYear); ok {
			r.add("year_of_construction", y, c, conf, time.Time{})
			return
		}
	}
}

// moneyAfter records the amount after the first label of spec that has one. An amount
// without a currency marker takes the document's currency, and is none on a
// document that states no currency.
func (r *reading) moneyAfter(key, spec string, conf float64) bool {
	t := r.t
	loc := documentLocale(t)
	for _, h := range t.find(spec) {
		if v, c, ok := valueAfter(t, h, loc.money); ok && v.Cents > 0 {
			r.add(key, v, c, conf, time.Time{})
			return true
		}
	}
	return false
}

func (r *reading) areaAfter(spec string, conf float64) bool {
	t := r.t
	for _, h := range t.find(spec) {
		if v, c, ok := valueAfter(t, h, readArea); ok {
			r.add("living_area", v, c, conf, time.Time{})
			return true
		}
	}
	return false
}

// notPriceLine marks figures near a price label that are not the purchase price: the
// price per square metre, a parking space sold on top, the commission, the service
// charge, a rent.
var notPriceLine = labelPattern("/m²|/m2|pro m|per m|per sq|stellplatz|parking|garage|provision|commission|hausgeld|service charge|miete|rent")

func (r *reading) expose() {
	r.propertyAddress(0.85, "objektadresse|adresse des objekts|property address|adresse|address|lage|location")
	loc := documentLocale(r.t)
	if !r.priceAfter(loc, "kaufpreis|asking price|purchase price|price guide|offers over", 0.85) {
		r.priceAfter(loc, "preis|price", 0.75)
	}
	if !r.areaAfter("wohnfläche|living space|living area|wohnflache|floor area", 0.85) {
		r.areaBefore("wohnfläche|living space|living area|floor area", 0.8)
	}
	r.constructionYear(0.85)
}

// priceAfter reads the purchase price after a label in the document's currency,
// skipping the lines of other prices.
func (r *reading) priceAfter(loc locale, spec string, conf float64) bool {
	t := r.t
	for _, h := range t.findExact(spec) {
		clause := h.rest
		if len(clause) > 40 {
			clause = clause[:40]
		}
		before := h.l.text[:h.start]
		if len(before) > 15 {
			before = before[len(before)-15:]
		}
		if notPriceLine.MatchString(foldString(clause)) || notPriceLine.MatchString(foldString(before)) {
			continue
		}
		if v, c, ok := valueAfter(t, h, loc.money); ok && v.Cents > 0 {
			r.add("purchase_price", v, c, conf, time.Time{})
			return true
		}
	}
	return false
}

// areaBefore reads the living area in prose, the figure before its label: "ca. 85 m²
// Wohnfläche".
func (r *reading) areaBefore(spec string, conf float64) bool {
	t := r.t
	for _, h := range t.findExact(spec) {
		before := h.l.text[:h.start]
		if len(before) > 20 {
			before = before[len(before)-20:]
		}
		if v, ok := readArea(before); ok {
			r.add("living_area", v, t.citeLine(h.l), conf, time.Time{})
			return true
		}
	}
	return false
}

func (r *reading) purchaseContract() {
	r.propertyAddress(0.85, "")
	if !r.moneyAfter("purchase_price", "kaufpreis beträgt|kaufpreis betragt|purchase price is|purchase price amounts to|kaufpreis von|kaufpreis:", 0.9) {
		r.moneyAfter("purchase_price", "kaufpreis|purchase price", 0.7)
	}
	r.areaAfter("wohnfläche beträgt|living area is|wohnfläche von|wohnfläche", 0.85)
	r.buyer()
}

// buyer reads the buyer's name and birth date: the party marked "Käufer" / "Buyer".
func (r *reading) buyer() {
	t := r.t
	party := regexp.MustCompile(`^\s*\d\.\s*(?:Herr|Frau|Mr\.?|Mrs\.?|Ms\.?)?\s*(.+?),\s*(?:geboren|geb\.|born)\s*(?:am\s*)?(.*)$`)
	buyerMark := labelPattern(`käufer"|buyer"|käufer genannt|"käufer|"buyer|- käufer|the buyer`)
	for i, l := range t.lines {
		m := party.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		isBuyer := false
		for j := i; j < len(t.lines) && j <= i+3; j++ {
			if j > i && party.MatchString(t.lines[j].text) {
				break
			}
			if buyerMark.MatchString(t.lines[j].f.s) {
				isBuyer = true
			}
		}
		if !isBuyer {
			continue
		}
		if name, ok := readName(m[1]); ok {
			r.add("applicant_full_name", name, t.citeLine(l), 0.7, time.Time{})
		}
		if d, ok := readDate(m[2]); ok {
			r.add("applicant_date_of_birth", d, t.citeLine(l), 0.75, time.Time{})
		}
		return
	}
}

func (r *reading) landRegister() {
	// The parcel's own address column ("GST-ADRESSE" of an Austrian extract), read by
	// the page's geometry; it may print a street without postcode.
	for _, h := range r.t.find("gst-adresse|grundstucksadresse|grundstuckadresse|lage des grundstucks|property address") {
		if a, c, ok := valueAfter(r.t, h, readStreet); ok {
			r.add("property_address", a, c, 0.75, time.Time{})
			return
		}
	}
	// Owners' addresses follow the parcels: an extract lists the land first, then its
	// owners with their shares, then the charges. Only the part before the owners holds
	// the property's address.
	all := r.t
	for _, l := range all.lines {
		if ownersSection.MatchString(l.f.s) {
			r.t = all.before(l.idx)
			break
		}
	}
	r.propertyAddress(0.8, "freifläche|lage|flurstück")
	r.t = all
}

// ownersSection opens a land register's owners: the first share ("ANTEIL: 1/1"), the
// owners' part's heading.
var ownersSection = labelPattern(`re:\banteil\s*:|eigentumer|erste abteilung|proprietorship register|proprietor`)

// readStreet reads a street with its house number as a cell holds it ("Winkl 41").
func readStreet(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !streetCell.MatchString(s) || !strings.ContainsAny(s, "0123456789") {
		return "", false
	}
	return s, true
}

func (r *reading) livingAreaCalculation() {
	r.propertyAddress(0.85, "objekt|property|adresse|address")
	t := r.t
	labelled := r.areaAfter("gesamtwohnfläche|gesamtwohnflache|total living area|summe wohnfläche|wohnfläche gesamt|wohnfläche insgesamt", 0.9)
	if labelled && !t.ocr {
		return
	}
	// The total is the largest area of the calculation. On OCR pages it checks the
	// labelled total, which OCR's separated columns may have paired wrongly.
	if labelled {
		last := r.facts[len(r.facts)-1]
		if m, ok := maxAreaOf(t); !ok || m <= last.Value.(float64) {
			return
		}
		r.facts = r.facts[:len(r.facts)-1]
	}
	best, at := 0.0, -1
	for i, l := range t.lines {
		if a, ok := maxArea(l.text); ok && a > best && a < 1000 {
			best, at = a, i
		}
	}
	if at >= 0 {
		r.add("living_area", best, t.citeLine(t.lines[at]), 0.6, time.Time{})
	}
}

func maxAreaOf(t *text) (float64, bool) {
	best := 0.0
	for _, l := range t.lines {
		if a, ok := maxArea(l.text); ok && a < 1000 {
			best = max(best, a)
		}
	}
	return best, best > 0
}

func maxArea(s string) (float64, bool) {
	s = fixAreaUnit(s)
	var most float64
	found := false
	for {
		a, end, ok := parseArea(s)
		if !ok {
			break
		}
		most, found = max(most, a), true
		s = s[end:]
	}
	return most, found
}

func (r *reading) energyCertificate() {
	if !r.partsAddress(0.8) {
		r.propertyAddress(0.8, "adresse|address|gebäude")
	}
	r.constructionYear(0.8)
}

// Labels of an address's parts on forms that print them in separate cells (an
// Austrian energy certificate's "Straße", "PLZ/Ort"; "Ort" and "Postleitzahl" apart;
// "Street", "City", "ZIP"), in the languages of the EU and the US.
const (
	streetPartLabels   = "#straße#|#street#|#rue#|#via#|#calle#|#straat#|#ulica#|#rua#|street address"
	postcodePartLabels = "plz/ort|plz, ort|plz ort|#plz#|postleitzahl|zip code|#zip#|postcode|post code|postal code|code postal|#cap#|codigo postal|postcode/plaats|kod pocztowy"
	cityPartLabels     = "#ort#|#city#|#town#|#ville#|#localita#|#comune#|#ciudad#|#localidad#|#plaats#|#miejscowosc#|#gemeinde#"
)

var postcodeCell = regexp.MustCompile(`^(?:[A-Z]{1,2}-)?(\d{4,5})(?:\s+(\p{Lu}[\p{L}\-. ]*))?$`)

// partsAddress composes an address a form prints in labelled parts: the street cell
// after its label, then within the next lines a postcode and a city, in one cell
// ("7000 Eisenstadt"), in two ("6900", "Bregenz") or under labels of their own. The
// street must read as one (letters, at most a house number or range after them).
func (r *reading) partsAddress(conf float64) bool {
	t := r.t
	for _, h := range t.find(streetPartLabels) {
		cells := cellsOf(strings.TrimLeft(h.rest, " :\t"))
		if len(cells) == 0 || !streetCell.MatchString(cells[0].text) || strings.TrimSpace(h.l.text[:h.start]) != "" {
			continue
		}
		street := strings.TrimSpace(cells[0].text)
		code, city := "", ""
		last := h.l
		for l, k := h.l, 0; k < 4; k++ {
			n, ok := t.next(l)
			if !ok {
				break
			}
			l = n
			if c, y, ok := postcodeAfter(t, n); ok && code == "" {
				code, last = c, n
				if city == "" {
					city = y
				}
				continue
			}
			if y, ok := cellAfter(n, cityPartLabels); ok && city == "" && !strings.ContainsAny(y, "0123456789") {
				city, last = y, n
			}
		}
		if code == "" || city == "" {
			continue
		}
		r.add("property_address", street+", "+code+" "+city, t.cite(h.l, last), conf, time.Time{})
		return true
	}
	return false
}

// streetCell is a street as a cell holds it: words, then perhaps a house number or a
// range ("Musterstraße 17", "Breitenfurter Straße 535-537", "Münzgrabenstrasse /
// Klosterwiesgasse").
var streetCell = regexp.MustCompile(`^\p{L}[\p{L}.' /\-]*(?:\s\d{1,4}[a-zA-Z]?(?:\s?[-/]\s?\d{1,4}[a-zA-Z]?)?)?$`)

// postcodeAfter reads a postcode, and the city beside it when there is one, after a
// postcode label at the start of the line.
func postcodeAfter(t *text, l line) (code, city string, ok bool) {
	loc := keyed(postcodePartLabels).re.FindStringIndex(l.f.s)
	if loc == nil || strings.TrimSpace(l.f.s[:loc[0]]) != "" {
		return "", "", false
	}
	cells := cellsOf(strings.TrimLeft(l.text[l.f.orig[loc[1]]:], " :\t"))
	if len(cells) == 0 {
		return "", "", false
	}
	m := postcodeCell.FindStringSubmatch(strings.TrimSpace(cells[0].text))
	if m == nil {
		return "", "", false
	}
	city = strings.TrimSpace(m[2])
	if city == "" && len(cells) > 1 && cityCell.MatchString(cells[1].text) {
		city = strings.TrimSpace(cells[1].text)
	}
	return m[1], city, true
}

var cityCell = regexp.MustCompile(`^\p{Lu}[\p{L}\-. ]*$`)

// cellAfter is the first cell after a label at the start of the line.
func cellAfter(l line, spec string) (string, bool) {
	loc := keyed(spec).re.FindStringIndex(l.f.s)
	if loc == nil || strings.TrimSpace(l.f.s[:loc[0]]) != "" {
		return "", false
	}
	cells := cellsOf(strings.TrimLeft(l.text[l.f.orig[loc[1]]:], " :\t"))
	if len(cells) == 0 || !cityCell.MatchString(cells[0].text) {
		return "", false
	}
	return strings.TrimSpace(cells[0].text), true
}
