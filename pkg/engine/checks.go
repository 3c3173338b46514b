package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/llm"
	"github.com/doceval/doceval/pkg/engine/mrz"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/doceval/doceval/pkg/engine/reader"
)

// verdict is a check's outcome before it is put into the result's shape.
type verdict struct {
	status     string
	confidence float64
	evidence   []evidence.Fact
	extra      []evidence.Citation // citations not backed by a fact (whole documents)
	reason     string
	// unread: the rule ends open because it could not read what it needs, not because
	// of a finding; with a model configured, the model is asked (assist.go).
	unread bool
	// lean: the verdict what the rule did read points to; "" when nothing decisive.
	lean string
}

// builtinChecks are the deterministic rules of the builtin checks, by key. Each rule is
// documented on its function; the verdict vocabulary is fixed.
var builtinChecks = map[string]func(v *view) verdict{
	"documents_readable":                documentsReadable,
	"required_documents_present":        requiredDocumentsPresent,
	"id_document_valid":                 idDocumentValid,
	"name_consistency":                  nameConsistency,
	"income_documents_recent":           incomeDocumentsRecent,
	"salary_statements_complete":        salaryStatementsComplete,
	"salary_credited_on_bank_statement": salaryCredited,
	"property_data_consistency":         propertyDataConsistency,
	"loan_to_value_within_limit":        loanToValue,
	"additional_risk_notes":             additionalRiskNotes,
}

func (e *Engine) checks(ctx context.Context, v *view, step func(string, int) error) ([]ResultCheck, error) {
	out := make([]ResultCheck, 0, len(v.in.Checks))
	var assist []CheckAssist
	var assistAt []int
	for i, c := range v.in.Checks {
		var vd verdict
		rule, known := builtinChecks[c.Key]
		switch {
		case c.Builtin && known:
			vd = rule(v)
			if vd.status == Critical && vd.confidence < minReadConfidence {
				// A finding needs evidence read with confidence; what rests on a poor
				// reading is a question for a person.
				vd.status = Open
				vd.reason += say(v.lang,
					" The finding rests on text that could not be read with confidence; check it on the original document.",
					" Der Befund beruht auf Text, der nicht sicher gelesen werden konnte; bitte am Originaldokument prüfen.")
			}
		case c.Builtin:
			vd = verdict{status: Failed, reason: say(v.lang,
				"This engine version cannot evaluate this check yet.",
				"Diese Version der Prüflogik kann diese Prüfung noch nicht auswerten.")}
		case e.model == nil:
			vd = verdict{status: Failed, reason: say(v.lang,
				"Custom checks need a language model, and none is configured for this service (DOCEVAL_LLM_BASE_URL); the check was not evaluated.",
				"Eigene Prüfungen benötigen ein Sprachmodell, und für diesen Dienst ist keines konfiguriert (DOCEVAL_LLM_BASE_URL); die Prüfung wurde nicht ausgewertet.")}
		default:
			if err := step(say(v.lang, "Running checks", "Prüfungen laufen"), 75+20*i/len(v.in.Checks)); err != nil {
				return nil, err
			}
			var err error
			if vd, err = e.customCheck(ctx, v, c); err != nil {
				return nil, err
			}
		}
		cites := citations(vd.evidence)
		cites = append(cites, vd.extra...)
		if vd.status == Fulfilled && len(cites) == 0 {
			// A verdict that nothing on the documents supports is no finding either way.
			vd = verdict{status: Open, confidence: 0.5, reason: say(v.lang,
				"Nothing on the documents could be cited for this check; review it by hand.",
				"Für diese Prüfung ließ sich nichts in den Dokumenten belegen; bitte manuell prüfen.")}
		}
		out = append(out, ResultCheck{
			CheckID: c.ID, Key: c.Key, Title: c.Title, Status: vd.status, Confidence: clamp01(vd.confidence),
			Citations: cites, ReasoningSummary: vd.reason,
		})
		if c.Builtin && known && vd.unread {
			assist = append(assist, CheckAssist{Spec: c, Rule: out[len(out)-1], Unread: true, Lean: vd.lean})
			assistAt = append(assistAt, len(out)-1)
		}
	}
	if e.model != nil && len(assist) > 0 {
		docs := AssistDocs{Language: v.lang, Date: v.in.Date, Documents: v.in.Documents, Types: v.types}
		got, _, err := assistChecks(ctx, e.model, assist, docs)
		if err != nil {
			return nil, err
		}
		for n, i := range assistAt {
			out[i] = got[n]
		}
	}
	return out, nil
}

func (e *Engine) customCheck(ctx context.Context, v *view, c CheckSpec) (verdict, error) {
	out, err := e.model.Check(ctx, llm.CheckRequest{
		Key: c.Key, Title: c.Title, Description: c.Description, Prompt: c.Prompt, Language: v.lang,
		Documents: v.in.Documents, Types: v.types,
	})
	if err != nil {
		if ctx.Err() != nil {
			return verdict{}, ctx.Err()
		}
		e.log.WarnContext(ctx, "custom check failed", "key", c.Key, "error", err)
		return verdict{status: Failed, reason: say(v.lang,
			"The language model did not give a usable answer; the check was not evaluated.",
			"Das Sprachmodell hat keine verwertbare Antwort gegeben; die Prüfung wurde nicht ausgewertet.")}, nil
	}
	return verdict{status: out.Status, confidence: out.Confidence, extra: out.Citations, reason: out.Reasoning}, nil
}

// documentsReadable: every input upload readable → fulfilled, citing each upload's
// first line; any only partly readable or unreadable → open (a clearer copy is
// needed). The confidence is the text's own: OCR's word confidence on scans.
func documentsReadable(v *view) verdict {
	var bad []string
	var cites []evidence.Citation
	conf := 0.95
	for _, u := range v.uploads {
		if u.readability != ReadabilityPassed {
			bad = append(bad, fmt.Sprintf("%s (%s)", u.doc.ExternalFileID, u.readability))
			continue
		}
		conf = math.Min(conf, textConfidence(u.doc))
		if c, ok := headline(u.doc); ok {
			cites = append(cites, c)
		}
	}
	if len(bad) > 0 {
		return verdict{status: Open, confidence: 0.9, extra: cites, reason: say(v.lang,
			"Not fully readable: %s. Upload a clearer copy.",
			"Nicht vollständig lesbar: %s. Bitte eine besser lesbare Kopie hochladen.", strings.Join(bad, ", "))}
	}
	if len(v.uploads) == 1 {
		return verdict{status: Fulfilled, confidence: conf, extra: cites, reason: say(v.lang, "The document can be read.", "Das Dokument ist lesbar.")}
	}
	return verdict{status: Fulfilled, confidence: conf, extra: cites, reason: say(v.lang,
		"All %d documents can be read.", "Alle %d Dokumente sind lesbar.", len(v.uploads))}
}

// textConfidence is how far a document's text can be trusted: OCR's mean word
// confidence on scanned pages (0.7 when it gave none), 0.95 for a text layer.
func textConfidence(d *evidence.Document) float64 {
	conf := 0.95
	for _, p := range d.Pages {
		if !p.OCR {
			continue
		}
		c := 0.7
		if p.OCRConfidence != nil {
			c = *p.OCRConfidence
		}
		conf = math.Min(conf, c)
	}
	return conf
}

// requiredDocumentsPresent: every required document type of the template is among the
// readable logical documents by classification (every document of a merged upload
// counts; a passport stands for an ID card and vice versa; for custom document types,
// which only the partner can classify, the slot counts) → fulfilled; else open, naming
// what is missing.
func requiredDocumentsPresent(v *view) verdict {
	var missing []string
	var found []evidence.Citation
	// Confidence: how sure the classification of the documents counted is; a missing
	// type is as sure as the classification of everything else (an unrecognized
	// document might be it).
	conf := 0.95
	for _, r := range v.in.Requirements {
		if !r.Required {
			continue
		}
		d := v.present(r.Type)
		if d == nil {
			missing = append(missing, typeName(v.lang, r.Type))
			continue
		}
		conf = math.Min(conf, d.types[0].Confidence)
		if c, ok := headline(d.doc); ok {
			found = append(found, c)
		}
	}
	if len(missing) > 0 {
		miss := 0.9
		for _, d := range v.docs {
			if d.readability != ReadabilityFailed && d.is("other") {
				miss = math.Min(miss, math.Max(0.5, d.types[0].Confidence))
			}
		}
		return verdict{status: Open, confidence: miss, extra: found, reason: say(v.lang,
			"Missing or unreadable: %s.", "Fehlend oder unlesbar: %s.", strings.Join(missing, ", "))}
	}
	return verdict{status: Fulfilled, confidence: conf, extra: found, reason: say(v.lang,
		"Every required document is present and readable.", "Alle erforderlichen Dokumente liegen lesbar vor.")}
}

// present finds a readable document of the type.
func (v *view) present(typ string) *docView {
	keys := []string{typ}
	switch typ {
	case "id_card", "passport":
		keys = []string{"id_card", "passport"}
	}
	if ds := v.ofType(keys...); len(ds) > 0 {
		return ds[0]
	}
	if _, builtin := typeNames[typ]; !builtin {
		for _, u := range v.uploads {
			if u.readability != ReadabilityFailed && u.doc.SlotType == typ && len(u.docs) > 0 {
				return u.docs[0]
			}
		}
	}
	return nil
}

// headline cites a document by its first line of text.
func headline(d *evidence.Document) (evidence.Citation, bool) {
	for _, p := range d.Pages {
		for _, l := range strings.Split(p.Text, "\n") {
			if l = strings.TrimSpace(l); len([]rune(l)) >= 3 {
				if r := []rune(l); len(r) > 80 {
					l = string(r[:80])
				}
				return d.Cite(p.Number, l), true
			}
		}
	}
	return evidence.Citation{}, false
}

// idDocumentValid: no ID card or passport → open; a complete MRZ with a wrong check
// digit → critical (open when the MRZ came from a poor scan); expired before the
// evaluation date → critical (open when the date was read with little confidence);
// expiry unreadable → open; else fulfilled. With several
// ID documents, the one valid longest counts.
func idDocumentValid(v *view) verdict {
	ids := v.ofType("id_card", "passport")
	if len(ids) == 0 {
		return verdict{status: Open, confidence: 0.9, reason: say(v.lang,
			"No ID card or passport is among the documents.", "Unter den Dokumenten ist kein Personalausweis und kein Reisepass.")}
	}
	var best *verdict
	for _, d := range ids {
		vd := idVerdict(v, d)
		if best == nil || rank(vd.status) < rank(best.status) {
			best = &vd
		}
	}
	return *best
}

// rank orders verdicts from best to worst for picking the best of several documents.
func rank(status string) int {
	return slices.Index([]string{Fulfilled, NotApplicable, Open, Failed, Critical}, status)
}

func idVerdict(v *view, d *docView) verdict {
	var cites []evidence.Fact
	exp, hasExpiry := d.first("id_document_expiry_date")
	expiry, _ := exp.Value.(time.Time)
	if hasExpiry {
		cites = append(cites, exp)
		if expiry.Before(day(v.in.Date)) && exp.Confidence < minReadConfidence {
			return verdict{status: Open, unread: true, lean: Critical, confidence: exp.Confidence, evidence: cites, reason: say(v.lang,
				"The expiry date reads as %s, before the evaluation date, but it could not be read with confidence; check it on the original document.",
				"Das Ablaufdatum lautet dem Scan nach %s und liegt vor dem Prüfdatum, ist aber nicht sicher lesbar; bitte am Originaldokument prüfen.", parse.FormatDate(expiry))}
		}
		if expiry.Before(day(v.in.Date)) {
			return verdict{status: Critical, confidence: exp.Confidence, evidence: cites, reason: say(v.lang,
				"The ID document expired on %s, before the evaluation date %s.",
				"Das Ausweisdokument ist am %s abgelaufen, vor dem Prüfdatum %s.", parse.FormatDate(expiry), parse.FormatDate(v.in.Date))}
		}
	}
	if zone, ok := d.first(evidence.FactMRZ); ok {
		if text, _ := zone.Value.(string); text != "" {
			if valid, complete := mrz.Verify(mrz.Lines(text)); complete && !valid {
				if fromOCR(d.doc, zone) {
					// On a scan a wrong digit is as likely OCR's misreading as a forgery.
					return verdict{status: Open, unread: true, lean: Critical, confidence: math.Min(zone.Confidence, 0.6), evidence: []evidence.Fact{zone}, reason: say(v.lang,
						"The check digits of the machine-readable zone do not match as read from the scan; compare it with the original document.",
						"Die Prüfziffern der maschinenlesbaren Zone stimmen im Scan nicht; bitte mit dem Originaldokument abgleichen.")}
				}
				return verdict{status: Critical, confidence: zone.Confidence, evidence: []evidence.Fact{zone}, reason: say(v.lang,
					"A check digit of the machine-readable zone is wrong: the document may be forged.",
					"Eine Prüfziffer der maschinenlesbaren Zone stimmt nicht: das Dokument könnte gefälscht sein.")}
			}
			cites = append(cites, zone)
		}
	}
	if !hasExpiry {
		return verdict{status: Open, unread: true, confidence: 0.7, evidence: cites, reason: say(v.lang,
			"The expiry date of the ID document could not be read.", "Das Ablaufdatum des Ausweisdokuments ist nicht lesbar.")}
	}
	return verdict{status: Fulfilled, confidence: exp.Confidence, evidence: cites, reason: say(v.lang,
		"The ID document is valid until %s.", "Das Ausweisdokument ist gültig bis %s.", parse.FormatDate(expiry))}
}

// fromOCR reports whether a fact was read from a page whose text came from OCR.
func fromOCR(d *evidence.Document, f evidence.Fact) bool {
	if d == nil {
		return false
	}
	for _, n := range f.Citation.Pages {
		if p := d.Page(n); p != nil && p.OCR {
			return true
		}
	}
	return false
}

// nameConsistency: the applicant's name on the ID document, salary statements and bank
// statements (at least two of them must state one, else open) denotes one person →
// fulfilled; a name that clearly differs (read with confidence, not a near spelling
// from a scan) → critical; a differing name read with little confidence → open.
func nameConsistency(v *view) verdict {
	var names []evidence.Fact
	for _, d := range v.ofType("id_card", "passport") {
		if f, ok := d.first("applicant_full_name"); ok {
			names = append(names, f)
		}
	}
	// The reference is the identity document's name read with the most confidence (a
	// name its machine-readable zone confirms), not the first upload's.
	slices.SortStableFunc(names, func(a, b evidence.Fact) int { return cmp.Compare(b.Confidence, a.Confidence) })
	for _, d := range v.ofType("salary_statement", "bank_statement") {
		if f, ok := d.first("applicant_full_name"); ok {
			names = append(names, f)
		}
	}
	if len(names) < 2 {
		return verdict{status: Open, unread: true, confidence: 0.7, evidence: names, reason: say(v.lang,
			"Fewer than two of the ID, salary and bank documents state the applicant's name, so it cannot be compared.",
			"Weniger als zwei der Ausweis-, Gehalts- und Kontodokumente nennen den Namen, daher ist kein Abgleich möglich.")}
	}
	ref := names[0]
	for _, n := range names[1:] {
		a, _ := ref.Value.(string)
		b, _ := n.Value.(string)
		if !sameName(a, b) && nearName(a, b) && (fromOCR(v.docOf(ref).doc, ref) || fromOCR(v.docOf(n).doc, n)) {
			// Close, and one side came from a scan: OCR garbles names (ß read as b, a
			// split word), so a person compares instead of a forgery alarm.
			return verdict{status: Open, unread: true, confidence: 0.5, evidence: []evidence.Fact{ref, n}, reason: say(v.lang,
				"The name %q as read from a scan is close to but not the same as %q; compare the documents.",
				"Der Name %q im Scan ähnelt %q, stimmt aber nicht überein; bitte die Dokumente vergleichen.", n.Value, ref.Value)}
		}
		if !sameName(a, b) && math.Min(ref.Confidence, n.Confidence) < minReadConfidence {
			return verdict{status: Open, unread: true, lean: Critical, confidence: math.Min(ref.Confidence, n.Confidence), evidence: []evidence.Fact{ref, n}, reason: say(v.lang,
				"The name %q differs from %q, but one of them could not be read with confidence; compare the documents.",
				"Der Name %q weicht von %q ab, einer der beiden ist aber nicht sicher lesbar; bitte die Dokumente vergleichen.", n.Value, ref.Value)}
		}
		if !sameName(a, b) {
			return verdict{status: Critical, confidence: math.Min(ref.Confidence, n.Confidence), evidence: []evidence.Fact{ref, n}, reason: say(v.lang,
				"The name %q differs from %q.", "Der Name %q weicht von %q ab.", n.Value, ref.Value)}
		}
	}
	return verdict{status: Fulfilled, confidence: minConfidence(names), evidence: names, reason: say(v.lang,
		"The applicant's name matches on %d documents.", "Der Name stimmt auf %d Dokumenten überein.", len(names))}
}

// minReadConfidence is the confidence below which a value read is no ground for a
// critical verdict: a differing name may be a label or a company the reader took for
// the name, an expiry date a misread digit.
const minReadConfidence = 0.6

// payPeriods lists the salary statements' periods, newest first, one fact per month.
func payPeriods(v *view) []evidence.Fact {
	var out []evidence.Fact
	seen := map[time.Time]bool{}
	for _, d := range v.ofType("salary_statement") {
		for _, f := range d.factsOf(evidence.FactPayPeriod) {
			if m, ok := f.Value.(time.Time); ok && !seen[month(m)] {
				seen[month(m)] = true
				out = append(out, f)
			}
		}
	}
	slices.SortFunc(out, func(a, b evidence.Fact) int { return b.Value.(time.Time).Compare(a.Value.(time.Time)) })
	return out
}

// incomeDocumentsRecent: the newest salary statement is for a month at most two months
// before the evaluation's month → fulfilled; older or none → open.
func incomeDocumentsRecent(v *view) verdict {
	periods := payPeriods(v)
	if len(periods) == 0 {
		return verdict{status: Open, unread: true, confidence: 0.8, reason: say(v.lang,
			"No salary statement with a readable pay period.", "Keine Gehaltsabrechnung mit lesbarem Abrechnungszeitraum.")}
	}
	newest := periods[0].Value.(time.Time)
	label := newest.Format("2006-01")
	if monthsBetween(newest, v.in.Date) <= 2 {
		return verdict{status: Fulfilled, confidence: periods[0].Confidence, evidence: periods[:1], reason: say(v.lang,
			"The newest salary statement is for %s.", "Die neueste Gehaltsabrechnung ist für %s.", label)}
	}
	return verdict{status: Open, confidence: periods[0].Confidence, evidence: periods[:1], reason: say(v.lang,
		"The newest salary statement is for %s, more than two months ago; request current ones.",
		"Die neueste Gehaltsabrechnung ist für %s, älter als zwei Monate; aktuelle anfordern.", label)}
}

// salaryStatementsComplete: salary statements for three consecutive months ending with
// the newest → fulfilled; fewer → open.
func salaryStatementsComplete(v *view) verdict {
	periods := payPeriods(v)
	if len(periods) == 0 {
		return verdict{status: Open, unread: true, confidence: 0.8, reason: say(v.lang,
			"No salary statement with a readable pay period.", "Keine Gehaltsabrechnung mit lesbarem Abrechnungszeitraum.")}
	}
	run := 1
	for i := 1; i < len(periods) && run < 3; i++ {
		if monthsBetween(periods[i].Value.(time.Time), periods[i-1].Value.(time.Time)) != 1 {
			break
		}
		run++
	}
	if run >= 3 {
		return verdict{status: Fulfilled, confidence: minConfidence(periods[:3]), evidence: periods[:3], reason: say(v.lang,
			"Salary statements cover three consecutive months.", "Die Gehaltsabrechnungen decken drei aufeinanderfolgende Monate ab.")}
	}
	return verdict{status: Open, confidence: minConfidence(periods[:run]), evidence: periods[:run], reason: say(v.lang,
		"Salary statements cover %d consecutive month(s); three are needed.",
		"Die Gehaltsabrechnungen decken %d aufeinanderfolgende(n) Monat(e) ab; drei sind nötig.", run)}
}

// propertyDataConsistency: no property documents → not_applicable; neither price nor
// living area stated by two documents → open; exposé and purchase contract differ by
// more than 5 % in price, or any two documents in living area → critical; else
// fulfilled.
func propertyDataConsistency(v *view) verdict {
	docs := v.ofType("property_expose", "purchase_contract", "land_register_extract", "living_area_calculation")
	if len(docs) == 0 {
		return verdict{status: NotApplicable, confidence: 0.9, reason: say(v.lang,
			"No property documents were submitted.", "Es wurden keine Immobilienunterlagen eingereicht.")}
	}
	var prices, areas []evidence.Fact
	for _, d := range docs {
		if d.is("property_expose", "purchase_contract") {
			if f, ok := d.first("purchase_price"); ok {
				prices = append(prices, f)
			}
		}
		if f, ok := d.first("living_area"); ok {
			areas = append(areas, f)
		}
	}
	if len(prices) < 2 && len(areas) < 2 {
		return verdict{status: Open, unread: true, confidence: 0.8, evidence: append(prices, areas...), reason: say(v.lang,
			"Price and living area are each stated by at most one document, so they cannot be compared.",
			"Kaufpreis und Wohnfläche stehen jeweils in höchstens einem Dokument und lassen sich nicht abgleichen.")}
	}
	for _, pair := range [][]evidence.Fact{prices, areas} {
		for i := range pair {
			for j := i + 1; j < len(pair); j++ {
				a, b := amountOf(pair[i].Value), amountOf(pair[j].Value)
				if relDiff(a, b) > 0.05 {
					return verdict{status: Critical, confidence: math.Min(pair[i].Confidence, pair[j].Confidence), evidence: []evidence.Fact{pair[i], pair[j]},
						reason: say(v.lang, "%s and %s differ by more than 5 %%.", "%s und %s weichen um mehr als 5 %% voneinander ab.",
							display(pair[i].Value), display(pair[j].Value))}
				}
			}
		}
	}
	all := append(prices, areas...)
	return verdict{status: Fulfilled, confidence: minConfidence(all), evidence: all, reason: say(v.lang,
		"Purchase price and living area agree across the property documents (within 5 %%).",
		"Kaufpreis und Wohnfläche stimmen in den Immobilienunterlagen überein (innerhalb von 5 %%).")}
}

// loanToValue: the stated loan-to-value, else loan amount / purchase price: ≤ 80 % →
// fulfilled, ≤ 100 % → open, above → critical; not determinable → open; a personal loan
// without property documents → not_applicable.
func loanToValue(v *view) verdict {
	property := v.ofType("property_expose", "purchase_contract", "land_register_extract", "living_area_calculation")
	if len(property) == 0 && v.in.Template == "personal_loan" {
		return verdict{status: NotApplicable, confidence: 0.9, reason: say(v.lang,
			"A personal loan without property has no loan-to-value.", "Ein Privatkredit ohne Immobilie hat keinen Beleihungsauslauf.")}
	}
	var ltv float64
	var cites []evidence.Fact
	if f, support, ok := reader.FieldBy("loan_to_value", v.facts, v.typesOf); ok {
		ltv, cites = f.Value.(float64), append([]evidence.Fact{f}, support...)
	} else {
		loan, _, okL := reader.FieldBy("loan_amount", v.facts, v.typesOf)
		price, _, okP := reader.FieldBy("purchase_price", v.facts, v.typesOf)
		lm, _ := loan.Value.(parse.Money)
		pm, _ := price.Value.(parse.Money)
		if !okL || !okP || pm.Cents <= 0 {
			return verdict{status: Open, unread: true, confidence: 0.7, reason: say(v.lang,
				"The loan-to-value cannot be determined: loan amount or purchase price is missing.",
				"Der Beleihungsauslauf ist nicht bestimmbar: Darlehensbetrag oder Kaufpreis fehlt.")}
		}
		ltv, cites = 100*float64(lm.Cents)/float64(pm.Cents), []evidence.Fact{loan, price}
	}
	conf := minConfidence(cites)
	pct := math.Round(ltv*10) / 10
	switch {
	case ltv <= 80:
		return verdict{status: Fulfilled, confidence: conf, evidence: cites, reason: say(v.lang,
			"Loan-to-value %.1f %% is within the 80 %% limit.", "Beleihungsauslauf %.1f %% liegt innerhalb der Grenze von 80 %%.", pct)}
	case ltv <= 100:
		return verdict{status: Open, confidence: conf, evidence: cites, reason: say(v.lang,
			"Loan-to-value %.1f %% exceeds 80 %%; review the financing.", "Beleihungsauslauf %.1f %% liegt über 80 %%; Finanzierung prüfen.", pct)}
	}
	return verdict{status: Critical, confidence: conf, evidence: cites, reason: say(v.lang,
		"Loan-to-value %.1f %% exceeds the property's value.", "Beleihungsauslauf %.1f %% übersteigt den Wert der Immobilie.", pct)}
}

// additionalRiskNotes: a garnishment or a returned direct debit → critical; a probation
// period still running on the evaluation date, fixed-term employment or a negative
// account balance → open; else fulfilled.
func additionalRiskNotes(v *view) verdict {
	var critical, open []evidence.Fact
	var critReasons, openReasons []string
	for _, f := range v.facts {
		switch f.Key {
		case evidence.FactGarnishment:
			critical, critReasons = append(critical, f), append(critReasons, say(v.lang, "garnishment", "Pfändung"))
		case evidence.FactReturnedDebit:
			critical, critReasons = append(critical, f), append(critReasons, say(v.lang, "returned direct debit", "Rücklastschrift"))
		case evidence.FactProbation:
			if end, ok := f.Value.(time.Time); ok && end.Before(day(v.in.Date)) {
				continue // the probation period is over
			}
			open, openReasons = append(open, f), append(openReasons, say(v.lang, "probation period", "Probezeit"))
		case evidence.FactFixedTerm:
			open, openReasons = append(open, f), append(openReasons, say(v.lang, "fixed-term employment", "befristete Beschäftigung"))
		case "account_balance":
			if m, ok := f.Value.(parse.Money); ok && m.Cents < 0 && v.docOf(f).is("bank_statement") {
				open, openReasons = append(open, f), append(openReasons, say(v.lang, "negative account balance", "negativer Kontostand"))
			}
		}
	}
	switch {
	case len(critical) > 0:
		return verdict{status: Critical, confidence: minConfidence(critical), evidence: append(critical, open...), reason: say(v.lang,
			"Risk notes: %s.", "Risikohinweise: %s.", strings.Join(unique(append(critReasons, openReasons...)), ", "))}
	case len(open) > 0:
		return verdict{status: Open, confidence: minConfidence(open), evidence: open, reason: say(v.lang,
			"Risk notes: %s.", "Risikohinweise: %s.", strings.Join(unique(openReasons), ", "))}
	}
	// Nothing found: the verdict rests on the documents searched, which it cites, and is
	// as sure as their text.
	var searched []evidence.Citation
	conf := 0.9
	for _, d := range v.ofType("salary_statement", "bank_statement", "employment_contract", "self_disclosure") {
		if c, ok := headline(d.doc); ok {
			searched = append(searched, c)
			conf = math.Min(conf, textConfidence(d.doc))
		}
	}
	if len(searched) == 0 {
		return verdict{status: Open, confidence: 0.6, reason: say(v.lang,
			"No salary statement, bank statement, employment contract or self-disclosure could be read, so risk notes could not be searched for.",
			"Keine Gehaltsabrechnung, kein Kontoauszug, Arbeitsvertrag oder Selbstauskunft war lesbar, daher konnte nicht nach Risikohinweisen gesucht werden.")}
	}
	return verdict{status: Fulfilled, confidence: conf, extra: searched, reason: say(v.lang,
		"No garnishment, returned debit, probation, fixed-term employment or negative balance found.",
		"Keine Pfändung, Rücklastschrift, Probezeit, Befristung oder negativer Kontostand gefunden.")}
}

func minConfidence(fs []evidence.Fact) float64 {
	if len(fs) == 0 {
		return 0.5
	}
	m := 1.0
	for _, f := range fs {
		m = math.Min(m, f.Confidence)
	}
	return m
}

func amountOf(v any) float64 {
	switch x := v.(type) {
	case parse.Money:
		return float64(x.Cents) / 100
	case float64:
		return x
	}
	return math.NaN()
}

func display(v any) string {
	switch x := v.(type) {
	case parse.Money:
		return x.String()
	case float64:
		return fmt.Sprintf("%.2f m²", x)
	}
	return fmt.Sprint(v)
}

// relDiff is |a−b| relative to the larger of the two.
func relDiff(a, b float64) float64 {
	m := math.Max(math.Abs(a), math.Abs(b))
	if m == 0 || math.IsNaN(m) {
		return 0
	}
	return math.Abs(a-b) / m
}

func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func month(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// monthsBetween counts calendar months from a to b (b later: positive).
func monthsBetween(a, b time.Time) int {
	ya, ma, _ := a.UTC().Date()
	yb, mb, _ := b.UTC().Date()
	return (yb-ya)*12 + int(mb) - int(ma)
}

func unique(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
