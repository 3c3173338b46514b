package reader

import (
	"time"

	"github.com/doceval/doceval/pkg/engine/evidence"
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
