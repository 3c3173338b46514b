package corpus

import (
	"fmt"
	"strings"
)

// Exposés as property portals and agents print them: the figures inside prose or in a
// fact table, distracting figures beside them (price per square metre, a parking space
// sold on top, usable area, service charge), and the agent's office address in a
// contact block, which is not the property's.

type agent struct {
	Firm, Person, Street string
}

var agents = []agent{
	{"Immobilien Weißenberg GmbH", "Jana Weißenberg", "Ringstraße 12"},
	{"Rheinland Wohnbau Makler GmbH", "Tobias Krämer", "Am Markt 4"},
	{"Hansestadt Immobilienkontor e.K.", "Svenja Paulsen", "Neuer Wall 31"},
	{"Südlicht Immobilien GmbH & Co. KG", "Florian Huber", "Bahnhofplatz 7"},
}

// areaText prints an area with one decimal when that is exact, else two.
func areaText(v float64, lang string) string {
	if v*10 == float64(int(v*10)) {
		return decimal(v, 1, lang)
	}
	return decimal(v, 2, lang)
}

func (w *world) portalExpose(lang string, table bool) docSpec {
	r, p := w.r, w.prop
	a := pick(r, agents)
	office := a.Street + ", " + p.ZIP + " " + p.City
	withAddress := chance(r, 0.5)
	location := p.ZIP + " " + p.City + tr(lang, " (Adresse auf Anfrage)", " (address on request)")
	if withAddress {
		location = p.oneLine()
	}
	rooms := fmt.Sprint(int(p.Rooms))
	price := wholeMoney(p.ExposePrice, lang) + " €"
	perSqm := money(int64(float64(p.ExposePrice)/p.Expose), lang) + " €"
	parking := wholeMoney(int64(8+r.IntN(20))*100000, lang) + " €"
	floor := 1 + r.IntN(4)
	kind := tr(lang, "Etagenwohnung", "Flat")
	if p.House {
		kind = tr(lang, "Einfamilienhaus", "Detached house")
	}
	var s sheet
	if table {
		s.add(small+"\t\t"+a.Firm, small+"\t\t"+a.Street, small+"\t\t"+p.ZIP+" "+p.City, "")
		s.add(large+bold+tr(lang, "Exposé Nr. ", "Exposé no. ")+"W-"+digits(r, 4), bold+tr(lang, rooms+"-Zimmer-"+kind+" mit Balkon", rooms+"-room "+strings.ToLower(kind)+" with balcony"), "")
		s.add(bold + tr(lang, "Objektdaten", "Key facts"))
		s.add(tr(lang, "Lage", "Location")+"\t"+location, tr(lang, "Objektart", "Type")+"\t"+kind,
			tr(lang, "Baujahr", "Year of construction")+"\t"+fmt.Sprint(p.Year),
			tr(lang, "Wohnfläche ca.", "Living area approx.")+"\t"+areaText(p.Expose, lang)+" m²",
			tr(lang, "Nutzfläche ca.", "Usable area approx.")+"\t"+fmt.Sprint(8+r.IntN(30))+" m²",
			tr(lang, "Zimmer", "Rooms")+"\t"+rooms)
		if !p.House {
			s.add(tr(lang, "Etage", "Floor") + "\t" + fmt.Sprint(floor) + tr(lang, " von ", " of ") + fmt.Sprint(floor+1+r.IntN(3)))
		} else {
			s.add(tr(lang, "Grundstück ca.", "Plot approx.") + "\t" + fmt.Sprint(p.Plot) + " m²")
		}
		s.add("", bold+tr(lang, "Preise", "Prices"))
		s.add(tr(lang, "Kaufpreis", "Purchase price")+"\t"+money(p.ExposePrice, lang)+" €", tr(lang, "Preis/m²", "Price per m²")+"\t"+perSqm,
			tr(lang, "Stellplatz (optional)", "Parking space (optional)")+"\t"+parking,
			tr(lang, "Käuferprovision", "Buyer's commission")+"\t"+tr(lang, "3,57 % inkl. MwSt.", "3.57 % incl. VAT"), "")
		s.add(bold+tr(lang, "Beschreibung", "Description"), tr(lang, "Gepflegtes Objekt in ruhiger Seitenstraße, Bad mit Fenster, Kellerabteil.", "Well-kept property in a quiet side street, bathroom with window, cellar."))
	} else {
		s.add(large+bold+tr(lang, "Die helle "+rooms+"-Zimmer-Wohnung mit Balkon", "Bright "+rooms+"-room home with balcony"), location, "")
		s.add(bold+tr(lang, "Kaufpreis ", "Price ")+price+"   "+tr(lang, "Zimmer ", "Rooms ")+rooms+"   "+tr(lang, "Wohnfläche ca. ", "Living area approx. ")+areaText(p.Expose, lang)+" m²", "")
		s.add(bold + tr(lang, "Objektbeschreibung", "Description"))
		for _, line := range wrap(tr(lang,
			"Die helle "+rooms+"-Zimmer-Wohnung liegt im "+fmt.Sprint(floor)+". Obergeschoss eines gepflegten Hauses und bietet ca. "+areaText(p.Expose, lang)+" m² Wohnfläche. Das Haus wurde "+fmt.Sprint(p.Year)+" erbaut (Baujahr "+fmt.Sprint(p.Year)+"), die Heizung "+fmt.Sprint(p.HeatingYear)+" erneuert. Ein Tiefgaragenstellplatz kann für "+parking+" zusätzlich erworben werden. Der Kaufpreis beträgt "+price+" zuzüglich 3,57 % Käuferprovision; das entspricht "+perSqm+" pro m².",
			"This bright "+rooms+"-room home on the "+ordinal(floor)+" floor of a well-kept building offers approx. "+areaText(p.Expose, lang)+" m² of living space. The building dates from "+fmt.Sprint(p.Year)+" (year of construction), the heating was renewed in "+fmt.Sprint(p.HeatingYear)+". A garage space is available for an extra "+parking+". The asking price is "+price+" plus 3.57 % buyer's commission, i.e. "+perSqm+" per m²."), 95) {
			s.add(line)
		}
		s.add("", tr(lang, "Hausgeld: ", "Service charge: ")+money(int64(20000+r.IntN(30000)), lang)+tr(lang, " € monatlich", " € per month"))
	}
	s.add("", bold+tr(lang, "Ihr Ansprechpartner", "Your contact"), a.Person+", "+a.Firm, office, "Tel. 0"+digits(r, 3)+" "+digits(r, 6))
	s.add("", small+tr(lang, "Alle Angaben beruhen auf Informationen des Eigentümers und sind ohne Gewähr.", "All information is provided by the owner and without guarantee."))
	f := map[string]any{"purchase_price": eur(p.ExposePrice), "living_area": p.Expose, "year_of_construction": fmt.Sprint(p.Year)}
	if withAddress {
		f["property_address"] = p.oneLine()
	}
	layout := "property_expose/portal_prose"
	if table {
		layout = "property_expose/fact_table"
	}
	d := docSpec{Doc: Doc{Types: []string{"property_expose"}, Language: lang, Layout: layout, Fields: f}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 170, 330)
	return d
}

func ordinal(n int) string {
	return fmt.Sprint(n) + map[int]string{1: "st", 2: "nd", 3: "rd"}[n] + tern(n > 3, "th", "")
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		line = strings.TrimSpace(line + " " + word)
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
