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
// that is not about a person (their home address is no property), the street and the
// city on one line or on two.
func (r *reading) propertyAddress(conf float64, labels string) {
	t := r.t
	skip := labelPattern("wohnhaft|residing|geboren|born|anschrift|herrn|frau|eigentümer|notar")
	try := func(l line) bool {
		if skip.MatchString(l.f.s) {
			return false
		}
		if a, ok := readAddress(l.text); ok {
			r.add("property_address", a, t.citeLine(l), conf, time.Time{})
			return true
		}
		if n, ok := t.next(l); ok && !skip.MatchString(n.f.s) {
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

// yearAfter reads the construction year after the label, skipping the heating's.
func (r *reading) constructionYear(conf float64) {
	t := r.t
	heating := labelPattern("wärme|erzeuger|heiz|anlage|heating")
	for _, h := range t.find("baujahr|year built|year of construction|built in") {
		if heating.MatchString(foldString(h.rest)) {
			continue
		}
		if y, c, ok := valueAfter(t, h, readYear); ok {
			r.add("year_of_construction", y, c, conf, time.Time{})
			return
		}
	}
}

func (r *reading) moneyAfter(key, spec string, conf float64) bool {
	t := r.t
	for _, h := range t.find(spec) {
		if v, c, ok := valueAfter(t, h, readMoney); ok && v.Cents > 0 {
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

func (r *reading) expose() {
	r.propertyAddress(0.85, "objektadresse|adresse|address|lage|location")
	r.moneyAfter("purchase_price", "kaufpreis|asking price|purchase price|preis|price", 0.85)
	r.areaAfter("wohnfläche|living space|living area|wohnflache", 0.85)
	r.constructionYear(0.85)
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
	r.propertyAddress(0.8, "freifläche|lage|flurstück")
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
	r.propertyAddress(0.8, "adresse|address|gebäude")
	r.constructionYear(0.8)
}
