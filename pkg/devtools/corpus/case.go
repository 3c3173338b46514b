package corpus

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/testkit/samplepdf"
)

// templateSlots are the document types each template has slots for.
var templateSlots = map[string][]string{
	TemplateRealEstate: {"id_card", "salary_statement", "bank_statement", "property_expose", "purchase_contract", "land_register_extract", "living_area_calculation", "energy_certificate", "self_disclosure"},
	TemplateLoan:       {"id_card", "salary_statement", "bank_statement"},
}

// RequiredTypes are the document types a template requires.
var RequiredTypes = map[string][]string{
	TemplateRealEstate: {"id_card", "salary_statement", "bank_statement", "property_expose"},
	TemplateLoan:       {"id_card", "salary_statement", "bank_statement"},
}

// formatOdds: per document type, the chances of text PDF, DOCX, scanned PDF, PNG, JPEG.
var formatOdds = map[string][5]float64{
	"id_card":                 {0.15, 0, 0.3, 0.2, 0.35},
	"passport":                {0.1, 0, 0.3, 0.2, 0.4},
	"salary_statement":        {0.65, 0, 0.2, 0.05, 0.1},
	"bank_statement":          {0.8, 0, 0.15, 0.05, 0},
	"property_expose":         {0.85, 0.1, 0.05, 0, 0},
	"purchase_contract":       {0.45, 0.1, 0.45, 0, 0},
	"land_register_extract":   {0.5, 0, 0.5, 0, 0},
	"living_area_calculation": {0.5, 0.2, 0.2, 0.1, 0},
	"energy_certificate":      {0.6, 0, 0.3, 0.1, 0},
	"floor_plan":              {0.5, 0, 0.3, 0.1, 0.1},
	"self_disclosure":         {0.35, 0.45, 0.1, 0, 0.1},
	"employment_contract":     {0.4, 0.3, 0.3, 0, 0},
	"tax_assessment":          {0.5, 0, 0.4, 0, 0.1},
	"pension_statement":       {0.6, 0, 0.3, 0.1, 0},
	"other":                   {0.7, 0.3, 0, 0, 0},
}

var formatsInOrder = []string{FormatTextPDF, FormatDOCX, FormatScanPDF, FormatScanPNG, FormatScanJPEG}

func drawFormat(r *rand.Rand, typ string) string {
	odds := formatOdds[typ]
	x := r.Float64()
	for i, p := range odds {
		if x < p {
			return formatsInOrder[i]
		}
		x -= p
	}
	return FormatTextPDF
}

func generateCase(r *rand.Rand, id string, now time.Time, f focus, scans bool) Case {
	w := newWorld(r, now, f)
	missing := ""
	if w.scen[scenMissingDoc] {
		missing = pick(r, RequiredTypes[w.tmpl])
	}
	var specs []docSpec
	if missing != "id_card" {
		switch {
		case w.scen[scenPassport] || w.country != "de":
			specs = append(specs, w.passport())
		case chance(r, 0.15):
			specs = append(specs, w.residencePermit())
		default:
			specs = append(specs, w.idCard())
		}
	}
	if missing != "salary_statement" {
		specs = append(specs, w.payslips(r)...)
	}
	if missing != "bank_statement" {
		specs = append(specs, w.bankStatements()...)
	}
	if w.prop != nil {
		if missing != "property_expose" {
			specs = append(specs, w.expose())
		}
		// Documents that each compare price or area come before the calculation, which
		// is the reference.
		if chance(r, 0.65) || w.scen[scenPriceMismatch] || w.scen[scenPropertyTolerance] {
			specs = append(specs, w.purchaseContract())
		}
		if chance(r, 0.35) {
			specs = append(specs, w.landRegister())
		}
		if chance(r, 0.4) || w.scen[scenAreaMismatch] {
			specs = append(specs, w.livingAreaCalc())
		}
		if chance(r, 0.4) {
			specs = append(specs, w.energyCertificate())
		}
		if chance(r, 0.2) {
			specs = append(specs, w.floorPlan())
		}
		if chance(r, 0.75) || w.scen[scenLTV80] || w.scen[scenLTV100] {
			specs = append(specs, w.financingOverview())
		}
	} else if chance(r, 0.6) {
		specs = append(specs, w.financingOverview())
	}
	if chance(r, 0.45) {
		specs = append(specs, w.selfDisclosure())
	}
	if chance(r, 0.3) || w.scen[scenProbation] || w.scen[scenFixedTerm] {
		specs = append(specs, w.employmentContract())
	}
	if chance(r, 0.12) {
		specs = append(specs, w.taxAssessment())
	}
	if chance(r, 0.2) {
		specs = append(specs, w.carLoanOffer())
	}
	if chance(r, 0.2) {
		specs = append(specs, w.genericLetter())
	}
	if chance(r, 0.08) {
		specs = append(specs, w.pensionStatement())
	}
	if w.scen[scenMergedUpload] {
		specs = mergeUploads(specs)
	}
	c := Case{ID: id, Language: w.lang, Now: now, Template: w.tmpl}
	photographed := map[string]bool{}
	for i := range specs {
		d := &specs[i]
		d.Readable = true
		if len(d.parts) > 0 {
			d.Slot = drawSlot(r, w.tmpl, d.Types[0])
			renderMerged(r, &d.Doc, d.parts, scans)
			d.Name = fileName(r, d.Doc, i)
			c.Docs = append(c.Docs, d.Doc)
			continue
		}
		d.Format = drawFormat(r, d.Types[0])
		if f == focusPhoto && len(d.Pages) == 1 && !photographed[d.Types[0]] && slices.Contains([]string{"id_card", "passport", "salary_statement"}, d.Types[0]) {
			d.Format, photographed[d.Types[0]] = FormatScanJPEG, true
		}
		if len(d.Pages) > 1 && (d.Format == FormatScanPNG || d.Format == FormatScanJPEG) {
			d.Format = FormatScanPDF // an image holds one page
		}
		d.Photo = d.Format == FormatScanJPEG && (f == focusPhoto || chance(r, 0.4))
		d.Slot = drawSlot(r, w.tmpl, d.Types[0])
		render(r, &d.Doc, d.layout, scans)
		d.Name = fileName(r, d.Doc, i)
		c.Docs = append(c.Docs, d.Doc)
	}
	if w.scen[scenUnreadable] {
		c.Docs = append(c.Docs, unreadableDoc(r, w.tmpl, len(c.Docs)))
	}
	r.Shuffle(len(c.Docs), func(i, j int) { c.Docs[i], c.Docs[j] = c.Docs[j], c.Docs[i] })
	for s := range w.scen {
		if !strings.Contains(s, ":") {
			c.Scenarios = append(c.Scenarios, s)
		}
	}
	if missing != "" {
		c.Scenarios = append(c.Scenarios, "missing:"+missing)
	}
	slices.Sort(c.Scenarios)
	c.Fields, c.FieldSources = pickFields(c.Docs)
	c.Checks = expectedChecks(c)
	c.ChecksAlso = alsoAccepted(c)
	return c
}

// drawSlot puts an upload in its slot (65 %), in none (30 %) or a wrong one (5 %).
func drawSlot(r *rand.Rand, tmpl, typ string) string {
	slots := templateSlots[tmpl]
	if typ == "passport" {
		typ = "id_card" // templates have no passport slot: it goes in the ID slot
	}
	x := r.Float64()
	switch {
	case x < 0.05:
		others := slices.DeleteFunc(slices.Clone(slots), func(s string) bool { return s == typ })
		return pick(r, others)
	case x < 0.35 || !slices.Contains(slots, typ):
		return ""
	}
	return typ
}

var fileStems = map[string][]string{
	"id_card":                 {"Personalausweis", "Ausweis_Vorder_Rueckseite", "ID"},
	"passport":                {"Reisepass", "Passport"},
	"salary_statement":        {"Gehaltsabrechnung", "Lohnabrechnung", "Payslip"},
	"bank_statement":          {"Kontoauszug", "Statement", "Umsaetze"},
	"property_expose":         {"Expose", "Objektbeschreibung"},
	"purchase_contract":       {"Kaufvertrag_Entwurf", "Kaufvertrag"},
	"land_register_extract":   {"Grundbuchauszug", "Grundbuch"},
	"living_area_calculation": {"Wohnflaechenberechnung", "WFL"},
	"energy_certificate":      {"Energieausweis"},
	"floor_plan":              {"Grundriss_EG", "Grundriss"},
	"self_disclosure":         {"Selbstauskunft", "Selbstauskunft_ausgefuellt"},
	"employment_contract":     {"Arbeitsvertrag", "Contract"},
	"tax_assessment":          {"Steuerbescheid"},
	"pension_statement":       {"Renteninformation"},
	"other":                   {"Finanzierung", "Uebersicht", "Anfrage"},
}

func fileName(r *rand.Rand, d Doc, i int) string {
	ext := map[string]string{FormatTextPDF: ".pdf", FormatScanPDF: ".pdf", FormatDOCX: ".docx", FormatScanPNG: ".png", FormatScanJPEG: ".jpg"}[d.Format]
	stem := pick(r, fileStems[d.Types[0]])
	if !d.Period.IsZero() {
		stem += d.Period.Format("_2006_01")
	}
	switch {
	case chance(r, 0.3) && IsScan(d.Format):
		stem = fmt.Sprintf("IMG_%04d", 1000+r.IntN(9000))
	case chance(r, 0.15):
		stem = fmt.Sprintf("Dokument%d", i+1)
	case chance(r, 0.1):
		stem = fmt.Sprintf("scan_%03d", 1+r.IntN(300))
	}
	return fmt.Sprintf("%02d_%s%s", i+1, stem, ext)
}

// unreadableDoc is an upload nobody can read: a blurred photo or an empty page.
func unreadableDoc(r *rand.Rand, tmpl string, i int) Doc {
	slot := ""
	if chance(r, 0.6) {
		slot = pick(r, RequiredTypes[tmpl])
	}
	typ := slot
	if typ == "" {
		typ = "other"
	}
	d := Doc{Slot: slot, Types: []string{typ}, Readable: false, Layout: "unreadable", Fields: map[string]any{}}
	empty := chance(r, 0.5)
	img := noiseImage(r, 1240, 1754, empty)
	var b bytes.Buffer
	switch r.IntN(3) {
	case 0:
		png.Encode(&b, img)
		d.Format, d.ContentType = FormatScanPNG, ctPNG
	case 1:
		jpeg.Encode(&b, img, &jpeg.Options{Quality: 70})
		d.Format, d.ContentType = FormatScanJPEG, ctJPEG
	default:
		jpeg.Encode(&b, img, &jpeg.Options{Quality: 70})
		scan := b.Bytes()
		b = bytes.Buffer{}
		b.Write(samplepdf.Scan([][]byte{scan}, 1240, 1754, 150))
		d.Format, d.ContentType = FormatScanPDF, ctPDF
	}
	d.Bytes = b.Bytes()
	d.Name = fmt.Sprintf("%02d_%s", i+1, map[string]string{FormatScanPNG: "IMG_0001.png", FormatScanJPEG: "Foto.jpg", FormatScanPDF: "scan.pdf"}[d.Format])
	return d
}

// mergeUploads replaces the ID document, the payslips and the first bank statement by
// one upload holding them all, as a partner who scans a stack of papers sends it. The
// truth stays per part (Doc.Parts); the upload's own Fields are the ID document's,
// which the ID check reads.
func mergeUploads(specs []docSpec) []docSpec {
	idx := map[string][]int{}
	for i, s := range specs {
		idx[s.Types[0]] = append(idx[s.Types[0]], i)
	}
	ids := append(idx["id_card"], idx["passport"]...)
	if len(ids) == 0 || len(idx["salary_statement"]) == 0 || len(idx["bank_statement"]) == 0 {
		return specs
	}
	order := append(append([]int{ids[0]}, idx["salary_statement"]...), idx["bank_statement"][0])
	var m docSpec
	m.Types = []string{"salary_statement", specs[ids[0]].Types[0], "bank_statement"}
	m.Language, m.Layout, m.Fields = specs[order[1]].Language, "merged", specs[ids[0]].Fields
	m.RiskEnds = map[string]timeT{}
	taken := map[int]bool{}
	for _, i := range order {
		p := specs[i]
		taken[i] = true
		part := Part{Type: p.Types[0], Layout: p.Layout, Fields: p.Fields, Period: p.Period}
		for range p.Pages {
			part.Pages = append(part.Pages, len(m.Pages)+len(part.Pages)+1)
		}
		m.Parts = append(m.Parts, part)
		m.Pages = append(m.Pages, p.Pages...)
		m.parts = append(m.parts, p)
		m.PayPeriods = append(m.PayPeriods, p.PayPeriods...)
		m.NetPays = append(m.NetPays, p.NetPays...)
		m.Payouts = append(m.Payouts, p.Payouts...)
		m.Credits = append(m.Credits, p.Credits...)
		m.Names = append(m.Names, p.Names...)
		m.Risks = append(m.Risks, p.Risks...)
		for k, v := range p.RiskEnds {
			m.RiskEnds[k] = v
		}
		if len(p.MRZ) > 0 {
			m.MRZ, m.MRZValid = p.MRZ, p.MRZValid
		}
		if p.ClosingCents != nil {
			m.ClosingCents = p.ClosingCents
		}
		if p.Types[0] == "salary_statement" && p.Period.After(m.Period) {
			m.Period = p.Period
		}
	}
	out := []docSpec{m}
	for i, s := range specs {
		if !taken[i] {
			out = append(out, s)
		}
	}
	return out
}
