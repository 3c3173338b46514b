// Package evidence holds what the evaluation engine reads and what it points back to:
// the input documents with their text per page, the facts found on them, and citations
// that anyone can check against the stored page text.
package evidence

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/document"
)

// Document is one input upload of an evaluation with the text ingest extracted.
type Document struct {
	UploadID       uuid.UUID
	FileID         uuid.UUID
	ExternalFileID string
	SlotID         *uuid.UUID
	// SlotType is the document type key of the slot the upload is in ("" when
	// unassigned): a strong hint for classification, not the truth.
	SlotType string
	Filename string
	Pages    []Page
}

// Page, Word and Box are the page as extraction made it and ingest stored it (see
// pkg/document): the engine reads it as it is, without a copy.
type (
	Page = document.Page
	Word = document.Word
	Box  = document.Box
)

// Region is where a citation's excerpt stands on one of its pages, as a box relative to
// the page (see the Citation schema's regions).
type Region struct {
	Page   int     `json:"page"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Page returns the page with number n, or nil.
func (d *Document) Page(n int) *Page {
	for i := range d.Pages {
		if d.Pages[i].Number == n {
			return &d.Pages[i]
		}
	}
	return nil
}

// Cite returns a citation of excerpt on page n of the document. The excerpt is stored
// whitespace-normalized; callers pass text copied from the page.
func (d *Document) Cite(n int, excerpt string) Citation {
	return Citation{UploadID: d.UploadID, ExternalFileID: d.ExternalFileID, Pages: []int{n}, Excerpt: Normalize(excerpt)}
}

// Verify reports whether the citation points into this document and its excerpt
// appears verbatim (whitespace-normalized) on one of the cited pages or across them in
// order. An empty excerpt or an unknown page never verifies.
func (d *Document) Verify(c Citation) bool {
	if c.UploadID != d.UploadID || len(c.Pages) == 0 {
		return false
	}
	excerpt := Normalize(c.Excerpt)
	if excerpt == "" {
		return false
	}
	pages := slices.Clone(c.Pages)
	slices.Sort(pages)
	var joined []string
	for _, n := range pages {
		p := d.Page(n)
		if p == nil {
			return false
		}
		text := Normalize(p.Text)
		if strings.Contains(text, excerpt) {
			return true
		}
		joined = append(joined, text)
	}
	return len(joined) > 1 && strings.Contains(strings.Join(joined, " "), excerpt)
}

// Normalize collapses every run of white space to one space and trims the ends: the
// form in which excerpts are compared.
func Normalize(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// Citation points at the evidence for a value or verdict.
type Citation struct {
	UploadID       uuid.UUID `json:"upload_id"`
	ExternalFileID string    `json:"external_file_id"`
	Pages          []int     `json:"pages"`
	Excerpt        string    `json:"excerpt"`
	// Regions are the boxes of the excerpt's words on the cited pages, when the page has
	// geometry; empty otherwise.
	Regions []Region `json:"regions,omitempty"`
}

// TypeScore is one document type a document was classified as.
type TypeScore struct {
	Type       string  // builtin document type key
	Confidence float64 // in [0, 1]
}

// Fact is one value found on one document, with the line it was read from.
//
// Key is a builtin data field key (applicant_full_name, gross_monthly_income, …) or one
// of the Fact* keys below. Value has the Go type that the key's value_format implies:
// parse.Money for currency, a time.Time (UTC midnight) for dates, float64 for years,
// percent and square_meters, string for free text; the Fact* keys document theirs.
type Fact struct {
	Key        string
	Value      any
	Confidence float64 // in [0, 1]: how sure the reader is of this value on this page
	Citation   Citation
	// Period is the month a salary statement's values belong to (first day, UTC), when
	// known; zero otherwise.
	Period time.Time
}

// Keys of facts that are not data fields but feed the checks.
const (
	// FactPayPeriod: the month a salary statement covers. Value: time.Time, first day.
	FactPayPeriod = "pay_period"
	// FactBankCredit: one incoming transaction on a bank statement. Value: Transaction.
	FactBankCredit = "bank_credit"
	// FactMRZ: the machine-readable zone of an ID card or passport. Value: string, the
	// MRZ lines joined by "\n" as read (OCR errors included).
	FactMRZ = "mrz"
	// FactGarnishment: a wage or account garnishment is mentioned. Value: string phrase.
	FactGarnishment = "risk_garnishment"
	// FactReturnedDebit: a returned direct debit on a bank statement. Value: Transaction
	// (Amount positive) or string phrase.
	FactReturnedDebit = "risk_returned_debit"
	// FactProbation: the employment is in a probation period. Value: time.Time (the end
	// of the probation period) when stated, else string phrase.
	FactProbation = "risk_probation"
	// FactFixedTerm: the employment is fixed-term. Value: time.Time (end) when stated,
	// else string phrase.
	FactFixedTerm = "risk_fixed_term"
	// FactLedger: a bank statement's ledger read over all its pages. Value: Ledger. Its
	// citation quotes the closing balance (or the opening one when no closing was read).
	FactLedger = "bank_ledger"
)

// Ledger is what a bank statement's bookings add up to. Reconciled says the statement
// proves itself: opening balance + credits − debits = closing balance to the cent, so
// no booking was lost or read with the wrong sign; only then may the absence of a
// booking count as a finding.
type Ledger struct {
	Currency                   string // ISO 4217, from the document; "" when it states none
	OpeningCents, ClosingCents int64
	HasOpening, HasClosing     bool
	CreditsCents, DebitsCents  int64 // sums of the bookings read, both positive
	Bookings                   int   // bookings read
	From, To                   time.Time
	Reconciled                 bool
}

// Transaction is one booking on a bank statement.
type Transaction struct {
	Date        time.Time // booking date, UTC midnight; zero when not read
	AmountCents int64     // positive for credits
	Currency    string    // ISO 4217
	Text        string    // booking text as printed
}
