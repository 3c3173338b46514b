// Package corpus generates synthetic credit submissions with ground truth: the uploads
// of an applicant (ID card, payslips, bank statements, property papers, …) as text
// PDFs, Word documents and scans, German and English, in varied layouts and wordings,
// together with the document types, the data field values they state and the check
// verdicts that follow. Tests of the evaluation engine measure themselves against it;
// services/corpus (doceval-corpus) writes it to disk for people to look at.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Formats of a generated upload.
const (
	FormatTextPDF  = "text_pdf"  // a PDF with a text layer
	FormatDOCX     = "docx"      // a Word document
	FormatScanPDF  = "scan_pdf"  // a PDF whose pages are only scanned images
	FormatScanPNG  = "scan_png"  // a scanned page as PNG
	FormatScanJPEG = "scan_jpeg" // a scanned page or photo as JPEG
)

// IsScan reports whether a format's text has to come from OCR.
func IsScan(format string) bool {
	return format == FormatScanPDF || format == FormatScanPNG || format == FormatScanJPEG
}

// Templates.
const (
	TemplateRealEstate = "personal_real_estate_financing"
	TemplateLoan       = "personal_loan"
)

// Case is one synthetic submission with its ground truth.
type Case struct {
	ID        string    `json:"id"`
	Language  string    `json:"language"` // "de" or "en"
	Now       time.Time `json:"now"`      // the submission date the truth refers to
	Template  string    `json:"template"`
	Scenarios []string  `json:"scenarios"` // the variations applied (see scenario.go)
	Docs      []Doc     `json:"docs"`
	// Fields is the value of every builtin data field that the documents print, picked
	// by the catalog's product rule (the data fields' read_from, see pickFields). Go
	// types: Money, time.Time (UTC midnight), float64, string. A field not in the map
	// has no truth: nothing in the submission prints it.
	Fields map[string]any `json:"fields"`
	// FieldSources names, per field, the document (Doc.Name) the value comes from.
	FieldSources map[string]string `json:"field_sources"`
	// Checks is the expected verdict per builtin check key of the template.
	Checks map[string]string `json:"checks"`
	// ChecksAlso are further verdicts accepted per check: `open` where the printed
	// documents do not let a reader decide (OCR, a pay frequency other than monthly).
	ChecksAlso map[string][]string `json:"checks_also,omitempty"`
}

// AcceptsCheck reports whether a verdict for the check agrees with the truth.
func (c Case) AcceptsCheck(key, verdict string) bool {
	return c.Checks[key] == verdict || slices.Contains(c.ChecksAlso[key], verdict)
}

// Clean reports whether the truth has no critical verdict: a critical one the engine
// gives for such a case is a false alarm.
func (c Case) Clean() bool {
	for _, v := range c.Checks {
		if v == Critical {
			return false
		}
	}
	return true
}

// Doc is one upload of a case.
type Doc struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Format      string `json:"format"`
	Bytes       []byte `json:"-"`
	// Slot is the builtin document type of the slot the partner put the upload in, ""
	// when unassigned (and sometimes a wrong one).
	Slot string `json:"slot"`
	// Types are the true document types, the main one first.
	Types    []string `json:"types"`
	Language string   `json:"language"`
	Layout   string   `json:"layout"` // which layout family printed it, "type/family"
	// Photo is set for a phone photo of the page: at an angle, in perspective, lit
	// unevenly (Format is scan_jpeg).
	Photo bool `json:"photo,omitempty"`
	// Readable is false for an upload whose text cannot be read (noise, an empty scan).
	Readable bool `json:"readable"`
	// Fields are the data field values this document states (for documents covering
	// several months, those of the newest); Period is that month (payslips, bank
	// statements), zero otherwise.
	Fields map[string]any `json:"fields"`
	Period time.Time      `json:"period"`
	// PayPeriods are the months of the payslips in the document.
	PayPeriods []time.Time `json:"pay_periods,omitempty"`
	// NetPays are the net pay amounts of those payslips, in cents.
	NetPays []int64 `json:"net_pays,omitempty"`
	// Payouts are the amounts paid out where they differ from the net pay (a
	// garnishment or savings deducted after it): a salary credit may match either.
	Payouts []int64 `json:"payouts,omitempty"`
	// Credits are the incoming transactions of a bank statement.
	Credits []Transaction `json:"credits,omitempty"`
	// Names are the applicant's names the document states, in natural order; a bank
	// statement of somebody else states that person's name.
	Names []string `json:"names,omitempty"`
	// MRZ are the machine-readable zone lines printed; MRZValid whether all their check
	// digits are right.
	MRZ      []string `json:"mrz,omitempty"`
	MRZValid bool     `json:"mrz_valid,omitempty"`
	// Risks are the risk facts (risk_garnishment, …) the document states, with the end
	// date of probation or fixed term in RiskEnds when printed or derivable.
	Risks    []string             `json:"risks,omitempty"`
	RiskEnds map[string]time.Time `json:"risk_ends,omitempty"`
	// ClosingCents is a bank statement's closing balance.
	ClosingCents *int64 `json:"closing_cents,omitempty"`
	// Parts are the documents a merged upload holds (several documents scanned into one
	// file), each with its own pages and truth; empty for an upload of one document.
	Parts []Part `json:"parts,omitempty"`
	// Pages is the source text per page, before rendering.
	Pages [][]string `json:"-"`
}

// Part is one document inside a merged upload.
type Part struct {
	Type   string         `json:"type"`
	Layout string         `json:"layout"`
	Pages  []int          `json:"pages"` // 1-based page numbers in the upload
	Fields map[string]any `json:"fields"`
	Period time.Time      `json:"period"`
}

// LayoutFamily is the layout the accuracy figures are grouped by: for a merged upload
// "merged", else the layout.
func (d Doc) LayoutFamily() string {
	if len(d.Parts) > 0 {
		return "merged"
	}
	return d.Layout
}

// Transaction is one booking on a generated bank statement.
type Transaction struct {
	Date  time.Time `json:"date"`
	Cents int64     `json:"cents"` // positive for credits
	Text  string    `json:"text"`
}

// Generate returns n cases for the seed, dated relative to now: the same seed, now and
// n give the same cases, and case i does not depend on n. Cases take turns at a focus
// (British, American, merged upload, photos), so that ten cases hold every layout
// family of payroll and bank. Scans are rendered with
// pdftoppm; without it they stay text PDFs (Format says so).
func Generate(seed int64, now time.Time, n int) []Case {
	return generate(seed, now, n, pdftoppmOnce())
}

// generate is Generate; without scans every scan stays a text PDF (quick, for tests of
// the truth).
func generate(seed int64, now time.Time, n int, scans bool) []Case {
	now = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	cases := make([]Case, n)
	// Cases are independent (each has its own random source): render them in parallel.
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(i)*0x9E3779B97F4A7C15+1))
			cases[i] = generateCase(r, fmt.Sprintf("case-%03d", i+1), now, focus(i%int(focusCount)), scans)
		}()
	}
	wg.Wait()
	return cases
}
