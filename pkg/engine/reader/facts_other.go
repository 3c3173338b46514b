package reader

import (
	"slices"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/layout"
)

// Forms that are none of the builtin types (a loan application, a closing disclosure,
// a tax form) still state an applicant's name, an employer or a price after labels that
// say whose it is. Only such labels are read, never a bare "Name", and less surely than
// on a document of the field's own type: the checks compare the identity, income and
// bank documents, and a field takes a form's value only when no such document states it.
const (
	// "Borrower name" (loan applications), "Name (First, Middle, Last, Suffix)" (the
	// US Uniform Residential Loan Application), "Applicant's name", "Employee's name".
	formNameLabels = "borrower name|borrower's name|name of borrower|applicant name|applicant's name|name of applicant|name (first, middle, last|employee's name|employee name"
	// "Employer or Business Name" (URLA), "Employer's name" (tax forms), "Name of
	// employer".
	formEmployerLabels = "employer or business name|employer's name|employer name|name of employer"
	// "Sale Price" (US Closing Disclosure), "Purchase price", "Contract price".
	formPriceLabels = "sale price|purchase price|contract price|contract sales price"
)

// formConfidence is how sure a value read from such a form is.
const formConfidence = 0.6

func (r *reading) otherForm() {
	if name, c, ok := r.labelledPerson(formNameLabels); ok {
		r.add("applicant_full_name", name, c, formConfidence, time.Time{})
	} else if name, c, ok := splitName(r.t); ok {
		r.add("applicant_full_name", name, c, formConfidence, time.Time{})
	}
	for _, h := range r.t.find(formEmployerLabels) {
		if name, c, ok := valueAfter(r.t, h, readEmployer); ok {
			r.add("employer_name", name, c, formConfidence, time.Time{})
			break
		}
	}
	r.priceAfter(documentLocale(r.t), formPriceLabels, belowVerdict)
}

// labelledPerson reads a person's name after one of the labels, anywhere on its line.
func (r *reading) labelledPerson(spec string) (string, evidence.Citation, bool) {
	for _, h := range r.t.find(spec) {
		if numberLabel.MatchString(foldString(h.rest)) {
			continue
		}
		if name, c, ok := valueAfter(r.t, h, readName); ok {
			return name, c, true
		}
	}
	return "", evidence.Citation{}, false
}

// Labels of a name a form prints in two boxes: the given names ("Employee's first name
// and initial" on a US W-2, "Vorname", "Prénom", "Nombre", "Nome") and the surname
// ("Last name", "Nachname", "Nom de famille", "Apellidos", "Cognome").
var (
	givenNameLabel = labelPattern("first name|given name|given names|forename|vorname|vornamen|prenom|prenoms|nombre|nome")
	surnameLabel   = labelPattern("last name|surname|family name|nachname|familienname|nom de famille|apellidos|apellido|cognome")
)

// splitName reads a person's name from a form's header row that labels the given names
// and the surname in cells of their own, each value under its label: the given names
// then the surname, each one word or a few in capitals or title case.
func splitName(t *text) (string, evidence.Citation, bool) {
	for _, l := range t.lines {
		g, ws := t.lineWords(l)
		if g == nil || len(ws) == 0 {
			continue
		}
		li := g.LineOf(ws[0])
		if li < 0 {
			continue
		}
		var given, surname *layout.Label
		for _, seg := range g.Lines[li].Segments {
			lab, ok := g.LabelOf(seg.Words)
			if !ok {
				continue
			}
			f := fold(seg.Text).s
			switch {
			case surnameLabel.MatchString(f) && surname == nil:
				surname = &lab
			case givenNameLabel.MatchString(f) && given == nil:
				given = &lab
			}
		}
		if given == nil || surname == nil {
			continue
		}
		gv, gok := nameUnder(g, *given)
		sv, sok := nameUnder(g, *surname)
		if !gok || !sok || len(gv.Words) == 0 || len(sv.Words) == 0 || g.LineOf(gv.Words[0]) != g.LineOf(sv.Words[0]) {
			continue
		}
		name, ok := readName(g.Text(gv.Words) + " " + g.Text(sv.Words))
		if !ok {
			continue
		}
		labels := append(slices.Clone(given.Words), surname.Words...)
		if c, ok := g.Cite(t.doc, l.page, labels, append(slices.Clone(gv.Words), sv.Words...)); ok {
			return name, c, true
		}
	}
	return "", evidence.Citation{}, false
}

// nameUnder is the value under a label of a header row that reads as part of a name:
// words of letters only, each starting with a capital, or initials ("Lena M").
func nameUnder(g *layout.Page, l layout.Label) (layout.Candidate, bool) {
	for _, c := range g.Values(l) {
		if c.How == layout.SameLine {
			continue
		}
		words := strings.Fields(c.Text)
		if len(words) == 0 || len(words) > 3 || !slices.ContainsFunc(words, isNameWord) ||
			slices.ContainsFunc(words, func(w string) bool { return !isNameWord(w) && !middleInitial(w) }) {
			continue
		}
		return c, true
	}
	return layout.Candidate{}, false
}
