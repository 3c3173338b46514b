package corpus

import (
	"fmt"
)

func (p *property) oneLine() string { return p.Street + ", " + p.ZIP + " " + p.City }

// area prints square meters: "84,50 m²", "84,5 qm", "84.5 sq m".
func area(v float64, lang string, style int) string {
	if style == 1 && v*10 != float64(int(v*10)) {
		style = 0 // one decimal would round it
	}
	switch {
	case lang == "de" && style == 1:
		return decimal(v, 1, "de") + " qm"
	case lang == "de":
		return decimal(v, 2, "de") + " m²"
	case style == 1:
		return decimal(v, 1, "en") + " sq m"
	}
	return decimal(v, 2, "en") + " m²"
}

func (w *world) expose() docSpec {
	r, p, lang := w.r, w.prop, w.docLang()
	if chance(r, 0.7) {
		return w.portalExpose(lang, chance(r, 0.5))
	}
	var s sheet
	kind := tr(lang, "Eigentumswohnung", "Apartment")
	if p.House {
		kind = tr(lang, "Einfamilienhaus", "Detached house")
	}
	style := randomKV(r)
	st := r.IntN(2)
	withAddress := chance(r, 0.8)
	s.add(large + bold + tr(lang, "Exposé", "Property exposé"))
	s.add(bold+pick(r, []string{
		tr(lang, "Helle "+fmt.Sprint(int(p.Rooms))+"-Zimmer-Wohnung in ruhiger Lage", "Bright "+fmt.Sprint(int(p.Rooms))+"-room home in a quiet location"),
		tr(lang, "Charmantes Zuhause mit Balkon und Stellplatz", "Charming home with balcony and parking space"),
		tr(lang, "Modernisiertes Wohnen nahe dem Stadtzentrum", "Modernised living close to the city centre"),
	}), "")
	if withAddress {
		s.kv(style, tr(lang, "Objektadresse", "Address"), p.oneLine())
	} else {
		s.kv(style, tr(lang, "Lage", "Location"), p.City+tr(lang, " (genaue Adresse auf Anfrage)", " (exact address on request)"))
	}
	s.kv(style, tr(lang, "Objektart", "Property type"), kind)
	s.kv(style, tr(lang, "Kaufpreis", "Asking price"), pick(r, []string{wholeMoney(p.ExposePrice, lang) + " €", "EUR " + wholeMoney(p.ExposePrice, lang), money(p.ExposePrice, lang) + " EUR"}))
	s.kv(style, tr(lang, "Wohnfläche", "Living space"), tr(lang, "ca. ", "approx. ")+area(p.Expose, lang, st))
	if p.House {
		s.kv(style, tr(lang, "Grundstücksfläche", "Plot size"), fmt.Sprint(p.Plot)+" m²")
	}
	s.kv(style, tr(lang, "Zimmer", "Rooms"), decimal(p.Rooms, 1, lang))
	s.kv(style, tr(lang, "Baujahr", "Year built"), fmt.Sprint(p.Year))
	if !p.House {
		s.kv(style, tr(lang, "Hausgeld", "Service charge"), money(int64(20000+r.IntN(30000)), lang)+tr(lang, " € monatlich", " EUR per month"))
	}
	s.kv(style, tr(lang, "Käuferprovision", "Buyer's commission"), tr(lang, "3,57 % inkl. MwSt.", "3.57 % incl. VAT"))
	s.kv(style, tr(lang, "Energieausweis", "Energy certificate"), tr(lang, "Bedarfsausweis, ", "demand certificate, ")+decimal(60+float64(r.IntN(1500))/10, 1, lang)+" kWh/(m²a), "+tr(lang, "Klasse ", "class ")+string("ABCDEFG"[r.IntN(7)]))
	s.add("", bold+tr(lang, "Objektbeschreibung", "Description"))
	s.add(tr(lang, "Die Immobilie überzeugt durch einen durchdachten Grundriss, einen Balkon", "The property offers a well-designed floor plan, a balcony facing"),
		tr(lang, "in Südausrichtung und eine moderne Einbauküche. Ein Kellerabteil gehört dazu.", "south and a modern fitted kitchen. A cellar compartment is included."))
	s.add("", bold+tr(lang, "Lage", "Location"), tr(lang, "Schulen, Kindergärten und Einkaufsmöglichkeiten sind fußläufig erreichbar.", "Schools, nurseries and shops are within walking distance."))
	s.add("", small+tr(lang, "Alle Angaben ohne Gewähr. Immobilien Weißenberg GmbH, Tel. 0221 123456", "All information without guarantee. Weissenberg Real Estate GmbH"))
	f := map[string]any{"purchase_price": eur(p.ExposePrice), "living_area": p.Expose, "year_of_construction": fmt.Sprint(p.Year)}
	if withAddress {
		f["property_address"] = p.oneLine()
	}
	d := docSpec{Doc: Doc{Types: []string{"property_expose"}, Language: lang, Layout: "property_expose/classic", Fields: f}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 160)
	return d
}

func (w *world) purchaseContract() docSpec {
	r, p := w.r, w.prop
	lang := w.lang
	if chance(r, 0.08) {
		lang = tr(lang, "en", "de")
	}
	seller := newPerson(r, w.now)
	buyerName, _ := w.app.name(nameStyle{Middle: true})
	_, buyerTruth := w.app.name(nameStyle{Middle: true})
	notar := pick(r, []string{"Dr. Friedrich Weißkopf", "Dr. Anna Jäger", "Matthias Brückner"})
	deed := fmt.Sprintf("%d/%d", 100+r.IntN(2000), w.now.Year())
	signed := w.now.AddDate(0, 0, -5-r.IntN(40))
	showArea := chance(r, 0.7)
	var s sheet
	if lang == "de" {
		s.add("UR-Nr. "+deed, "", large+bold+"Kaufvertrag", bold+"über Wohnungseigentum", "")
		s.add("Verhandelt zu "+p.City+" am "+date(signed, "de", 1), "Vor mir, dem unterzeichnenden Notar "+notar+" mit dem Amtssitz in "+p.City+", erschienen:", "")
		s.add("1. "+tr0(seller.Female, "Frau ", "Herr ")+seller.fullName()+", geboren am "+date(seller.DOB, "de", 0)+",", "   wohnhaft "+seller.Street+", "+seller.ZIP+" "+seller.City+",", "   - nachstehend \"Verkäufer\" genannt -")
		s.add("2. "+tr0(w.app.Female, "Frau ", "Herr ")+buyerName+", geboren am "+date(w.app.DOB, "de", 0)+",", "   wohnhaft "+w.app.Street+", "+w.app.ZIP+" "+w.app.City+",", "   - nachstehend \"Käufer\" genannt -", "")
		s.add(bold+"§ 1 Grundbuch- und Sachstand", "Im Grundbuch des Amtsgerichts "+p.City+" von "+p.City+" Blatt "+fmt.Sprint(1000+r.IntN(9000))+" ist folgender Grundbesitz eingetragen:")
		s.add("Flur " + fmt.Sprint(1+r.IntN(30)) + ", Flurstück " + fmt.Sprint(10+r.IntN(900)) + ", Gebäude- und Freifläche, " + p.oneLine() + ".")
		if showArea {
			s.add("Die Wohnfläche beträgt ca. " + area(p.ContractArea, "de", 0) + ".")
		}
		s.add("", bold+"§ 2 Kaufgegenstand", "Der Verkäufer verkauft dem Käufer den vorstehend bezeichneten Grundbesitz mit allen Rechten und Pflichten.")
		s.newPage()
		s.add(bold+"§ 3 Kaufpreis", "Der Kaufpreis beträgt", bold+"EUR "+money(p.Price, "de"), "(in Worten: Euro "+words(p.Price/100)+").")
		s.add("Im Kaufpreis enthalten ist ein Betrag von EUR "+money(int64(3000+r.IntN(9000))*100, "de")+" für die mitverkaufte Einbauküche.", "")
		s.add(bold+"§ 4 Fälligkeit", "Der Kaufpreis ist innerhalb von 14 Tagen nach Zugang der Fälligkeitsmitteilung des Notars zu zahlen.")
		s.add("", bold+"§ 5 Kosten und Steuern", "Die Kosten dieses Vertrages und die Grunderwerbsteuer (6,5 %) trägt der Käufer.", "")
		s.add("Vorgelesen vom Notar, von den Beteiligten genehmigt und eigenhändig unterschrieben.", "", "gez. "+seller.fullName()+"     gez. "+buyerName+"     gez. "+notar+", Notar")
	} else {
		s.add("Deed no. "+deed, "", large+bold+"Purchase Agreement", bold+"(convenience translation of the notarial deed)", "")
		s.add("Recorded in "+p.City+" on "+date(signed, "en", 1)+" before notary "+notar+". Present were:", "")
		s.add("1. "+seller.fullName()+", born "+date(seller.DOB, "en", 1)+", residing at "+seller.Street+", "+seller.ZIP+" "+seller.City, "   - hereinafter the \"Seller\" -")
		s.add("2. "+buyerName+", born "+date(w.app.DOB, "en", 1)+", residing at "+w.app.Street+", "+w.app.ZIP+" "+w.app.City, "   - hereinafter the \"Buyer\" -", "")
		s.add(bold+"1. Property", "The Seller sells to the Buyer the property at "+p.oneLine()+",", "registered in the land register of "+p.City+".")
		if showArea {
			s.add("The living area is approximately " + area(p.ContractArea, "en", 0) + ".")
		}
		s.newPage()
		s.add(bold+"2. Purchase price", "The purchase price is EUR "+money(p.Price, "en")+".", "It includes EUR "+money(int64(3000+r.IntN(9000))*100, "en")+" for the fitted kitchen.", "")
		s.add(bold+"3. Costs", "The Buyer bears the notary's fees and the real estate transfer tax (6.5 %).", "")
		s.add("signed " + seller.fullName() + "     signed " + buyerName + "     signed " + notar)
	}
	f := map[string]any{"purchase_price": eur(p.Price), "property_address": p.oneLine(), "applicant_full_name": buyerTruth, "applicant_date_of_birth": w.app.DOB}
	if showArea {
		f["living_area"] = p.ContractArea
	}
	d := docSpec{Doc: Doc{Types: []string{"purchase_contract"}, Language: lang, Layout: "purchase_contract", Fields: f}}
	d.Pages = s.pages
	d.layout = layoutFor(r)
	return d
}

// words writes small whole numbers in German words, roughly, as contracts do.
func words(n int64) string {
	if n >= 1000 {
		t := n / 1000
		rest := n % 1000
		s := fmt.Sprint(t) + "tausend"
		if rest > 0 {
			s += fmt.Sprint(rest)
		}
		return s
	}
	return fmt.Sprint(n)
}

func (w *world) landRegister() docSpec {
	r, p := w.r, w.prop
	owner := newPerson(r, w.now)
	var s sheet
	s.add(small + "Amtsgericht " + p.City + "\t\tAbruf vom " + date(w.now.AddDate(0, 0, -r.IntN(20)), "de", 0))
	s.add(large+bold+"Grundbuch von "+p.City, "Blatt "+fmt.Sprint(1000+r.IntN(9000)), "")
	s.add(bold+"Bestandsverzeichnis", "Lfd. Nr. 1\tGemarkung "+p.City+", Flur "+fmt.Sprint(1+r.IntN(30))+", Flurstück "+fmt.Sprint(10+r.IntN(900)))
	s.add("\tGebäude- und Freifläche, "+p.Street, "\t"+p.ZIP+" "+p.City)
	plot := p.Plot
	if plot == 0 {
		plot = 600 + r.IntN(1500)
	}
	s.add("\tGröße: "+fmt.Sprint(plot)+" m²", "")
	s.add(bold+"Erste Abteilung", "Eigentümer: "+owner.fullName()+", geb. "+date(owner.DOB, "de", 0))
	s.add("", bold+"Zweite Abteilung", "Lasten und Beschränkungen: keine", "")
	s.add(bold+"Dritte Abteilung", "Lfd. Nr. 1\t"+money(int64(50+r.IntN(250))*100000, "de")+" EUR Grundschuld ohne Brief für die Sparkasse "+p.City+";")
	s.add("\t" + fmt.Sprint(12+r.IntN(6)) + " % Zinsen jährlich; vollstreckbar nach § 800 ZPO.")
	d := docSpec{Doc: Doc{Types: []string{"land_register_extract"}, Language: "de", Layout: "land_register_extract",
		Fields: map[string]any{"property_address": p.oneLine()}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 80, -520)
	return d
}

func (w *world) livingAreaCalc() docSpec {
	r, p, lang := w.r, w.prop, w.docLang()
	rooms := [][2]string{{"Wohnzimmer", "Living room"}, {"Schlafzimmer", "Bedroom"}, {"Küche", "Kitchen"}, {"Bad", "Bathroom"}, {"Flur", "Hallway"}, {"Kinderzimmer", "Children's room"}, {"Arbeitszimmer", "Study"}}
	n := 4 + r.IntN(3)
	balcony := float64(4 + 2*r.IntN(4)) // even: half of it stays a whole number
	rest := p.Area - balcony/2
	var s sheet
	st := r.IntN(2)
	s.add(large+bold+tr(lang, "Wohnflächenberechnung", "Living area calculation"), tr(lang, "nach der Wohnflächenverordnung (WoFlV)", "according to the German Living Space Ordinance (WoFlV)"), "")
	s.add(tr(lang, "Objekt: ", "Property: ")+p.oneLine(), "")
	s.add(bold + tr(lang, "Raum\tFläche\tAnrechnung\tWohnfläche", "Room\tArea\tFactor\tLiving area"))
	var used float64
	for i := range n {
		a := roundQuarter(rest / float64(n) * (0.7 + 0.6*float64(i%3)/2))
		if i == n-1 {
			a = roundQuarter(rest - used)
		}
		used += a
		s.add(tr(lang, rooms[i][0], rooms[i][1]) + "\t" + area(a, lang, st) + "\t100 %\t" + area(a, lang, st))
	}
	s.add(tr(lang, "Balkon", "Balcony") + "\t" + area(balcony, lang, st) + "\t50 %\t" + area(balcony/2, lang, st))
	total := used + balcony/2
	s.add("", bold+tr(lang, "Gesamtwohnfläche", "Total living area")+"\t\t\t"+area(total, lang, st))
	s.add("", small+tr(lang, "Aufgestellt: Architekturbüro Groß & Partner, ", "Prepared by Gross & Partner Architects, ")+date(w.now.AddDate(0, -2, 0), lang, 0))
	d := docSpec{Doc: Doc{Types: []string{"living_area_calculation"}, Language: lang, Layout: "living_area_calculation",
		Fields: map[string]any{"property_address": p.oneLine(), "living_area": total}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 150, 250, 330)
	return d
}

func (w *world) energyCertificate() docSpec {
	r, p := w.r, w.prop
	var s sheet
	valid := w.now.AddDate(5+r.IntN(5), r.IntN(12), 0)
	s.add(large+bold+"ENERGIEAUSWEIS für Wohngebäude", "gemäß den §§ 79 ff. Gebäudeenergiegesetz (GEG)", "")
	s.add("Gültig bis:\t"+date(valid, "de", 0), "Registriernummer:\tBE-2023-"+fmt.Sprint(100000+r.IntN(899999)), "")
	s.add(bold + "Gebäude")
	s.add("Gebäudetyp\t"+tr0(p.House, "Einfamilienhaus", "Mehrfamilienhaus"), "Adresse\t"+p.oneLine())
	s.add("Baujahr Gebäude\t"+fmt.Sprint(p.Year), "Baujahr Wärmeerzeuger\t"+fmt.Sprint(p.HeatingYear))
	s.add("Anzahl der Wohnungen\t"+fmt.Sprint(tern(p.House, 1, 4+r.IntN(20))), "Gebäudenutzfläche (AN)\t"+fmt.Sprint(int(p.Area*1.2)+r.IntN(400))+" m²")
	s.add("Wesentliche Energieträger\t"+pick(r, []string{"Erdgas", "Fernwärme", "Heizöl", "Strom (Wärmepumpe)"}), "")
	s.add("Endenergiebedarf dieses Gebäudes\t"+decimal(40+float64(r.IntN(1800))/10, 1, "de")+" kWh/(m²·a)", "Energieeffizienzklasse\t"+string("ABCDEFGH"[r.IntN(8)]))
	d := docSpec{Doc: Doc{Types: []string{"energy_certificate"}, Language: "de", Layout: "energy_certificate",
		Fields: map[string]any{"property_address": p.oneLine(), "year_of_construction": fmt.Sprint(p.Year)}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 190)
	return d
}

func tern[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func (w *world) floorPlan() docSpec {
	r, lang := w.r, w.docLang()
	var s sheet
	s.add(large+bold+tr(lang, "Grundriss Erdgeschoss", "Floor plan ground floor"), tr(lang, "Maßstab 1:100", "Scale 1:100"), "")
	rooms := [][2]string{{"Wohnen/Essen", "Living/Dining"}, {"Küche", "Kitchen"}, {"Schlafen", "Bedroom"}, {"Bad", "Bath"}, {"Diele", "Hall"}}
	for _, rm := range rooms {
		s.add("\t" + tr(lang, rm[0], rm[1]) + "\t" + area(roundQuarter(5+float64(r.IntN(25))), lang, 0))
		s.add("\t" + fmt.Sprintf("%.2f x %.2f", 2+float64(r.IntN(400))/100, 2+float64(r.IntN(500))/100))
	}
	s.add("", small+tr(lang, "Alle Maße sind ca.-Angaben. Keine Gewähr.", "All dimensions approximate."))
	d := docSpec{Doc: Doc{Types: []string{"floor_plan"}, Language: lang, Layout: "floor_plan", Fields: map[string]any{}}}
	d.Pages = s.pages
	d.layout = layoutFor(r, 150, 300)
	return d
}
