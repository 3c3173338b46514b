package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/engine/evidence"
	"github.com/doceval/doceval/pkg/engine/parse"
	"github.com/doceval/doceval/pkg/engine/reader"
)

func TestSameName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"Jürgen Müller-Lüdenscheidt", "JUERGEN MUELLER-LUEDENSCHEIDT", true},
		{"Jürgen Müller-Lüdenscheidt", "Mueller-Luedenscheidt, Jürgen", true},
		{"Björn Weiß", "Bjoern Weiss", true},
		{"Björn Weiß", "Bjorn Weiss", true},
		{"Ömer Şahin", "Oemer Sahin", true},
		{"Dr. Anna Maria Schmidt", "Anna Schmidt", true},
		{"Herr Jürgen Müller", "Jürgen Müller", true},
		{"Jürgen Müller", "Jürgen Meier", false},
		{"Jürgen Müller", "Anna Müller", false},
		{"Müller", "Jürgen Müller", false}, // a surname alone says nothing
		{"", "Jürgen Müller", false},
	} {
		if got := sameName(tc.a, tc.b); got != tc.same {
			t.Errorf("sameName(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func TestReadability(t *testing.T) {
	t.Parallel()
	conf := func(x float64) *float64 { return &x }
	text := "Gehaltsabrechnung Oktober 2026 Muster GmbH"
	for name, tc := range map[string]struct {
		pages []evidence.Page
		want  string
	}{
		"text":        {[]evidence.Page{{Number: 1, Text: text, Chars: 60}}, ReadabilityPassed},
		"good scan":   {[]evidence.Page{{Number: 1, Chars: 400, OCR: true, OCRConfidence: conf(0.91)}}, ReadabilityPassed},
		"blurry scan": {[]evidence.Page{{Number: 1, Chars: 400, OCR: true, OCRConfidence: conf(0.41)}}, ReadabilityFailed},
		"one of two":  {[]evidence.Page{{Number: 1, Chars: 400}, {Number: 2, Chars: 300, OCR: true, OCRConfidence: conf(0.3)}}, ReadabilityPartial},
		"empty":       {[]evidence.Page{{Number: 1, Chars: 0}}, ReadabilityFailed},
		"almost none": {[]evidence.Page{{Number: 1, Chars: 30}}, ReadabilityFailed},
		"no pages":    {nil, ReadabilityFailed},
	} {
		if got := readability(&evidence.Document{Pages: tc.pages}); got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
}

// testView builds a view of documents with given primary types and facts, without the
// reader, to test the check rules on their own.
type testDoc struct {
	typ   string
	facts []evidence.Fact
}

func testView(date time.Time, template string, docs ...testDoc) *view {
	v := &view{in: Input{Language: "en", Date: date, Template: template}, lang: "en", types: map[uuid.UUID][]string{}}
	for _, td := range docs {
		d := &evidence.Document{UploadID: uuid.New(), ExternalFileID: td.typ, Pages: []evidence.Page{{Number: 1, Text: "Dokument x", Chars: 100}}}
		u := &uploadView{doc: d, readability: ReadabilityPassed}
		dv := &docView{doc: d, upload: u, readability: ReadabilityPassed, types: []evidence.TypeScore{{Type: td.typ, Confidence: 0.9}}}
		u.docs = []*docView{dv}
		v.uploads = append(v.uploads, u)
		for _, f := range td.facts {
			f.Citation = d.Cite(1, "x")
			if f.Confidence == 0 {
				f.Confidence = 0.9
			}
			dv.facts = append(dv.facts, f)
		}
		v.docs = append(v.docs, dv)
		v.facts = append(v.facts, dv.facts...)
		v.types[d.UploadID] = []string{td.typ}
	}
	return v
}

func fact(key string, value any) evidence.Fact { return evidence.Fact{Key: key, Value: value} }

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func eur(cents int64) parse.Money { return parse.Money{Cents: cents, Currency: "EUR"} }

func TestCheckRules(t *testing.T) {
	t.Parallel()
	now := date(2026, 11, 23)
	payslip := func(month time.Month, net int64, extra ...evidence.Fact) testDoc {
		return testDoc{"salary_statement", append([]evidence.Fact{fact(evidence.FactPayPeriod, date(2026, month, 1)), fact("net_monthly_income", eur(net)), fact("applicant_full_name", "Jürgen Müller")}, extra...)}
	}
	ledger := func(reconciled bool, from, to time.Time) evidence.Fact {
		return fact(evidence.FactLedger, evidence.Ledger{Currency: "EUR", HasOpening: true, HasClosing: true, From: from, To: to, Reconciled: reconciled})
	}
	// A reconciled statement of a month whose bookings need not reach its end.
	monthLedger := func(period, from, to time.Time) evidence.Fact {
		f := ledger(true, from, to)
		f.Period = period
		return f
	}
	bank := func(credit int64, balance int64, name string, extra ...evidence.Fact) testDoc {
		fs := []evidence.Fact{fact(evidence.FactBankCredit, evidence.Transaction{AmountCents: credit, Currency: "EUR"}), fact("account_balance", eur(balance)), fact("applicant_full_name", name)}
		return testDoc{"bank_statement", append(fs, extra...)}
	}
	id := func(expiry time.Time, name string, extra ...evidence.Fact) testDoc {
		return testDoc{"id_card", append([]evidence.Fact{fact("id_document_expiry_date", expiry), fact("applicant_full_name", name)}, extra...)}
	}
	expose := func(price int64, area float64) testDoc {
		return testDoc{"property_expose", []evidence.Fact{fact("purchase_price", eur(price)), fact("living_area", area)}}
	}
	contract := func(price int64, area float64) testDoc {
		return testDoc{"purchase_contract", []evidence.Fact{fact("purchase_price", eur(price)), fact("living_area", area)}}
	}
	for _, tc := range []struct {
		name  string
		check func(*view) verdict
		docs  []testDoc
		want  string
	}{
		{"id valid", idDocumentValid, []testDoc{id(date(2030, 1, 1), "Jürgen Müller")}, Fulfilled},
		{"id expires today is valid", idDocumentValid, []testDoc{id(now, "Jürgen Müller")}, Fulfilled},
		{"id expired yesterday", idDocumentValid, []testDoc{id(date(2026, 11, 22), "Jürgen Müller")}, Critical},
		{"id missing", idDocumentValid, []testDoc{payslip(10, 250000)}, Open},
		{"id without expiry", idDocumentValid, []testDoc{{"passport", nil}}, Open},
		{"id with bad mrz", idDocumentValid, []testDoc{id(date(2030, 1, 1), "A B", fact(evidence.FactMRZ, "I<UTOD231458908<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"))}, Critical},
		{"one valid id of two", idDocumentValid, []testDoc{id(date(2020, 1, 1), "A B"), id(date(2030, 1, 1), "A B")}, Fulfilled},

		{"names match", nameConsistency, []testDoc{id(date(2030, 1, 1), "JÜRGEN MÜLLER"), bank(250000, 100, "Juergen Mueller")}, Fulfilled},
		{"names differ", nameConsistency, []testDoc{id(date(2030, 1, 1), "Jürgen Müller"), bank(250000, 100, "Anna Schmidt")}, Critical},
		{"one name only", nameConsistency, []testDoc{id(date(2030, 1, 1), "Jürgen Müller")}, Open},

		{"recent payslip", incomeDocumentsRecent, []testDoc{payslip(9, 1)}, Fulfilled},
		{"old payslip", incomeDocumentsRecent, []testDoc{payslip(8, 1)}, Open},
		{"no payslip", incomeDocumentsRecent, nil, Open},

		{"three months", salaryStatementsComplete, []testDoc{payslip(10, 1), payslip(9, 1), payslip(8, 1)}, Fulfilled},
		{"gap", salaryStatementsComplete, []testDoc{payslip(10, 1), payslip(8, 1), payslip(7, 1)}, Open},
		{"two months", salaryStatementsComplete, []testDoc{payslip(10, 1), payslip(9, 1)}, Open},
		{"the same month twice", salaryStatementsComplete, []testDoc{payslip(10, 1), payslip(10, 1), payslip(9, 1)}, Open},

		{"credited exactly", salaryCredited, []testDoc{payslip(10, 287643), bank(287643, 1, "x")}, Fulfilled},
		{"credited within 1 %", salaryCredited, []testDoc{payslip(10, 287643), bank(287643+2876, 1, "x")}, Fulfilled},
		{"beyond 1 %, ledger not read", salaryCredited, []testDoc{payslip(10, 287643), bank(287643+2900, 1, "x")}, Open},
		{"beyond 1 %, ledger reconciled", salaryCredited, []testDoc{payslip(10, 287643), bank(287643+2900, 1, "x", ledger(true, date(2026, 10, 1), date(2026, 10, 31)))}, Critical},
		{"beyond 1 %, ledger does not add up", salaryCredited, []testDoc{payslip(10, 287643), bank(287643+2900, 1, "x", ledger(false, date(2026, 10, 1), date(2026, 10, 31)))}, Open},
		{"beyond 1 %, ledger of another month", salaryCredited, []testDoc{payslip(10, 287643), bank(287643+2900, 1, "x", ledger(true, date(2026, 8, 1), date(2026, 8, 31)))}, Open},
		{"beyond 1 %, statement of the pay month", salaryCredited, []testDoc{payslip(10, 287643), bank(287643+2900, 1, "x", monthLedger(date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 20)))}, Critical},
		{"credit naming the employer", salaryCredited, []testDoc{payslip(10, 287643, fact("employer_name", "Muster GmbH")), bank(1, 1, "x", monthLedger(date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 29)),
			fact(evidence.FactBankCredit, evidence.Transaction{Date: date(2026, 10, 29), AmountCents: 250000, Currency: "EUR", Text: "SEPA-Gutschrift MUSTER GMBH"}))}, Open},
		{"salary credit above the net pay", salaryCredited, []testDoc{payslip(10, 287643, fact("employer_name", "Muster GmbH")), bank(1, 1, "x", monthLedger(date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 29)),
			fact(evidence.FactBankCredit, evidence.Transaction{Date: date(2026, 10, 29), AmountCents: 310000, Currency: "EUR", Text: "SEPA-Gutschrift MUSTER GMBH"}))}, Critical},
		{"one salary credit below the net pay, one above", salaryCredited, []testDoc{payslip(10, 287643, fact("employer_name", "Muster GmbH")), bank(1, 1, "x", monthLedger(date(2026, 10, 1), date(2026, 9, 2), date(2026, 10, 29)),
			fact(evidence.FactBankCredit, evidence.Transaction{Date: date(2026, 9, 29), AmountCents: 270000, Currency: "EUR", Text: "SEPA-Gutschrift MUSTER GMBH"}),
			fact(evidence.FactBankCredit, evidence.Transaction{Date: date(2026, 10, 29), AmountCents: 310000, Currency: "EUR", Text: "Lohn/Gehalt MUSTER GMBH"}))}, Critical},
		{"salary credit above the net pay, another currency", salaryCredited, []testDoc{payslip(10, 287643, fact("employer_name", "Muster GmbH")), bank(1, 1, "x", monthLedger(date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 29)),
			fact(evidence.FactBankCredit, evidence.Transaction{Date: date(2026, 10, 29), AmountCents: 310000, Currency: "", Text: "SEPA-Gutschrift MUSTER GMBH"}))}, Open},
		{"payout credited", salaryCredited, []testDoc{payslip(10, 287643, fact(reader.FactPayout, eur(237643))), bank(237643, 1, "x", ledger(true, date(2026, 10, 1), date(2026, 10, 31)))}, Fulfilled},
		{"salary booking of another amount", salaryCredited, []testDoc{payslip(10, 287643), bank(1, 1, "x", ledger(true, date(2026, 10, 1), date(2026, 10, 31)),
			fact(evidence.FactBankCredit, evidence.Transaction{Date: date(2026, 10, 30), AmountCents: 237643, Currency: "EUR", Text: "Lohn/Gehalt 10/2026 Muster GmbH"}))}, Open},
		{"no bank statement", salaryCredited, []testDoc{payslip(10, 287643)}, Open},
		{"payslip in pounds, reconciled euro account", salaryCredited, []testDoc{
			{"salary_statement", []evidence.Fact{fact(evidence.FactPayPeriod, date(2026, 10, 1)), fact("net_monthly_income", parse.Money{Cents: 287643, Currency: "GBP"})}},
			bank(1, 1, "x", ledger(true, date(2026, 10, 1), date(2026, 10, 31)))}, Open},
		{"a credit of the amount in another currency", salaryCredited, []testDoc{
			{"salary_statement", []evidence.Fact{fact(evidence.FactPayPeriod, date(2026, 10, 1)), fact("net_monthly_income", parse.Money{Cents: 287643, Currency: "GBP"})}},
			bank(287643, 1, "x")}, Open},

		{"no property documents", propertyDataConsistency, []testDoc{payslip(10, 1)}, NotApplicable},
		{"one source", propertyDataConsistency, []testDoc{expose(45000000, 95)}, Open},
		{"consistent", propertyDataConsistency, []testDoc{expose(45000000, 95), contract(44000000, 94.5)}, Fulfilled},
		{"price differs", propertyDataConsistency, []testDoc{expose(45000000, 95), contract(40000000, 95)}, Critical},
		{"area differs", propertyDataConsistency, []testDoc{expose(45000000, 110), contract(45000000, 95)}, Critical},

		{"ltv stated low", loanToValue, []testDoc{{"other", []evidence.Fact{fact("loan_to_value", 75.0)}}, expose(1, 1)}, Fulfilled},
		{"ltv computed 90", loanToValue, []testDoc{{"other", []evidence.Fact{fact("loan_amount", eur(36000000))}}, contract(40000000, 90)}, Open},
		{"ltv above 100", loanToValue, []testDoc{{"other", []evidence.Fact{fact("loan_to_value", 105.0)}}, expose(1, 1)}, Critical},
		{"ltv unknown", loanToValue, []testDoc{expose(40000000, 90)}, Open},

		{"no risks", additionalRiskNotes, []testDoc{bank(1, 500, "x")}, Fulfilled},
		{"garnishment", additionalRiskNotes, []testDoc{bank(1, 500, "x", fact(evidence.FactGarnishment, "Lohnpfändung"))}, Critical},
		{"returned debit", additionalRiskNotes, []testDoc{bank(1, 500, "x", fact(evidence.FactReturnedDebit, "Rücklastschrift"))}, Critical},
		{"negative balance", additionalRiskNotes, []testDoc{bank(1, -500, "x")}, Open},
		{"probation running", additionalRiskNotes, []testDoc{{"employment_contract", []evidence.Fact{fact(evidence.FactProbation, date(2027, 1, 31))}}}, Open},
		{"probation over", additionalRiskNotes, []testDoc{{"employment_contract", []evidence.Fact{fact(evidence.FactProbation, date(2026, 1, 31))}}}, Fulfilled},
		{"fixed term", additionalRiskNotes, []testDoc{{"employment_contract", []evidence.Fact{fact(evidence.FactFixedTerm, "befristet")}}}, Open},
	} {
		v := testView(now, "personal_real_estate_financing", tc.docs...)
		got := tc.check(v)
		if got.status != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got.status, got.reason, tc.want)
		}
		if got.reason == "" || got.confidence < 0 || got.confidence > 1 {
			t.Errorf("%s: reason %q confidence %v", tc.name, got.reason, got.confidence)
		}
		if (got.status == Critical || got.status == Fulfilled) && len(got.evidence) == 0 && tc.name != "no risks" && tc.name != "probation over" {
			t.Errorf("%s: %s without evidence", tc.name, got.status)
		}
	}
	// A wrong check digit read by OCR may be OCR's: open, not critical.
	badMRZ := fact(evidence.FactMRZ, "I<UTOD231458908<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<")
	v := testView(now, "personal_loan", id(date(2030, 1, 1), "A B", badMRZ))
	v.docs[0].doc.Pages[0].OCR = true
	if got := idDocumentValid(v); got.status != Open {
		t.Errorf("bad MRZ from a scan: %s", got.status)
	}
	// An expired document is critical whatever its MRZ.
	v = testView(now, "personal_loan", id(date(2020, 1, 1), "A B", badMRZ))
	v.docs[0].doc.Pages[0].OCR = true
	if got := idDocumentValid(v); got.status != Critical {
		t.Errorf("expired with a bad MRZ from a scan: %s", got.status)
	}
	// A name garbled by OCR is close to the other: open; another person stays critical.
	for _, tc := range []struct {
		printed, scanned, want string
	}{{"Anna Strauß", "Anna Straub", Open}, {"Björn Strauß", "Bj Orn Strauß", Open}, {"Anna Strauß", "Jürgen Müller", Critical}} {
		v = testView(now, "personal_loan", id(date(2030, 1, 1), tc.printed), bank(1, 1, tc.scanned))
		v.docs[1].doc.Pages[0].OCR = true
		if got := nameConsistency(v); got.status != tc.want {
			t.Errorf("scanned name %q: %s, want %s", tc.scanned, got.status, tc.want)
		}
	}
	if got := nameConsistency(testView(now, "personal_loan", id(date(2030, 1, 1), "Anna Strauß"), bank(1, 1, "Anna Straub"))); got.status != Critical {
		t.Errorf("a close but different name on a digital document: %s", got.status)
	}
	// Not found on a statement whose bookings could not be reconciled: open, and the
	// reason says what could not be read, in the submission's language.
	v = testView(now, "personal_loan", payslip(10, 287643), bank(100, 1, "x"))
	v.lang = "de"
	if got := salaryCredited(v); got.status != Open || !strings.Contains(got.reason, "nicht vollständig lesen") {
		t.Errorf("salary not found on an unreconciled statement: %s (%s)", got.status, got.reason)
	}
	// A payout credited is named as the payout, not as the net pay.
	v = testView(now, "personal_loan", payslip(10, 287643, fact(reader.FactPayout, eur(237643))), bank(237643, 1, "x"))
	if got := salaryCredited(v); got.status != Fulfilled || !strings.Contains(got.reason, "payout of 2376.43 EUR") {
		t.Errorf("payout credited: %s (%s)", got.status, got.reason)
	}
	// An expiry date in the past read with little confidence is no finding.
	lowExpiry := fact("id_document_expiry_date", date(2020, 1, 1))
	lowExpiry.Confidence = 0.4
	if got := idDocumentValid(testView(now, "personal_loan", testDoc{"id_card", []evidence.Fact{lowExpiry}})); got.status != Open {
		t.Errorf("an expiry read with little confidence: %s", got.status)
	}
	// A differing name read with little confidence is no finding.
	low := fact("applicant_full_name", "Gehalt Oktober")
	low.Confidence = 0.4
	if got := nameConsistency(testView(now, "personal_loan", id(date(2030, 1, 1), "Anna Strauß"), testDoc{"salary_statement", []evidence.Fact{low}})); got.status != Open {
		t.Errorf("a name read with little confidence: %s", got.status)
	}
	// A personal loan without property has no loan-to-value.
	if got := loanToValue(testView(now, "personal_loan", payslip(10, 1))); got.status != NotApplicable {
		t.Errorf("personal loan ltv: %s", got.status)
	}
}

func TestRequiredDocuments(t *testing.T) {
	t.Parallel()
	v := testView(date(2026, 11, 23), "personal_loan", testDoc{"passport", nil}, testDoc{"salary_statement", nil})
	v.in.Requirements = []Requirement{{Type: "id_card", Required: true}, {Type: "salary_statement", Required: true}, {Type: "bank_statement", Required: true}, {Type: "energy_certificate"}}
	got := requiredDocumentsPresent(v)
	if got.status != Open || got.reason != "Missing or unreadable: bank statement." {
		t.Errorf("missing bank statement: %+v", got)
	}
	v = testView(date(2026, 11, 23), "personal_loan", testDoc{"id_card", nil}, testDoc{"salary_statement", nil}, testDoc{"bank_statement", nil})
	v.in.Requirements = []Requirement{{Type: "id_card", Required: true}, {Type: "salary_statement", Required: true}, {Type: "bank_statement", Required: true}}
	if got := requiredDocumentsPresent(v); got.status != Fulfilled || len(got.extra) != 3 {
		t.Errorf("all present: %+v", got)
	}
	// A custom document type counts by its slot.
	v = testView(date(2026, 11, 23), "personal_loan", testDoc{"other", nil})
	v.docs[0].doc.SlotType = "schufa_report"
	v.in.Requirements = []Requirement{{Type: "schufa_report", Required: true}}
	if got := requiredDocumentsPresent(v); got.status != Fulfilled {
		t.Errorf("custom type by slot: %+v", got)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	v := testView(date(2026, 11, 23), "personal_loan", testDoc{"id_card", nil})
	v.in.Fields = []FieldSpec{{Key: "iban", Required: true}, {Key: "employer_name"}}
	ok := []ResultField{{Key: "iban", Status: FieldSucceeded}, {Key: "employer_name", Status: FieldNotFound}}
	checks := func(statuses ...string) []ResultCheck {
		var out []ResultCheck
		for i, s := range statuses {
			key := "c"
			if i == 0 {
				key = "required_documents_present"
			}
			out = append(out, ResultCheck{Key: key, Status: s})
		}
		return out
	}
	for name, tc := range map[string]struct {
		fields []ResultField
		checks []ResultCheck
		want   Summary
	}{
		"passed":             {ok, checks(Fulfilled, NotApplicable), Summary{OutcomePassed, RecommendProceed, RiskLow}},
		"critical":           {ok, checks(Open, Critical), Summary{OutcomeCriticalFindings, RecommendManualReview, RiskHigh}},
		"missing documents":  {ok, checks(Open, Fulfilled), Summary{OutcomeActionRequired, RecommendRequestDocuments, RiskMedium}},
		"open otherwise":     {ok, checks(Fulfilled, Open), Summary{OutcomeActionRequired, RecommendManualReview, RiskMedium}},
		"failed check":       {ok, checks(Fulfilled, Fulfilled, Failed), Summary{OutcomeActionRequired, RecommendManualReview, RiskMedium}},
		"mostly failed":      {ok, checks(Failed, Failed, Fulfilled), Summary{OutcomeUncertain, RecommendUnknown, RiskUnknown}},
		"required not found": {[]ResultField{{Key: "iban", Status: FieldNotFound}, ok[1]}, checks(Fulfilled), Summary{OutcomeActionRequired, RecommendRequestDocuments, RiskMedium}},
		"required low":       {[]ResultField{{Key: "iban", Status: FieldLowConfidence}, ok[1]}, checks(Fulfilled), Summary{OutcomeActionRequired, RecommendManualReview, RiskMedium}},
	} {
		if got := summarize(v, tc.fields, tc.checks); got != tc.want {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
	}
	v.docs[0].readability = ReadabilityFailed
	v.uploads[0].readability = ReadabilityFailed
	if got := summarize(v, ok, checks(Fulfilled)); got.Outcome != OutcomeUncertain {
		t.Errorf("nothing readable: %+v", got)
	}
}

// name_consistency compares every name with the identity document's surest reading (a
// name its zone confirms), not with the first upload's: a payslip uploaded first with a
// misread name is the one that differs, and the verdict cites the ID card's name first.
func TestNameConsistencyReferenceIsTheIdentityDocument(t *testing.T) {
	t.Parallel()
	now := date(2026, 11, 23)
	name := func(typ, value string, conf float64) testDoc {
		return testDoc{typ, []evidence.Fact{{Key: "applicant_full_name", Value: value, Confidence: conf}}}
	}
	v := testView(now, "", name("salary_statement", "Anna Schmidt", 0.9), name("passport", "Jürgen Müller", 0.6), name("id_card", "Jürgen Müller", 0.95), name("bank_statement", "Jürgen Müller", 0.9))
	got := nameConsistency(v)
	if got.status != Critical {
		t.Fatalf("status %s, want critical: %s", got.status, got.reason)
	}
	if got.evidence[0].Confidence != 0.95 || !strings.Contains(got.reason, `"Anna Schmidt" differs from "Jürgen Müller"`) {
		t.Errorf("reference %v (%.2f), reason %q: want the ID card's name", got.evidence[0].Value, got.evidence[0].Confidence, got.reason)
	}
}
