package corpus

import "math/rand/v2"

// Scenario variations: each case gets zero or more; the expected check verdicts follow
// from the documents they shape (checks.go).
const (
	scenExpiredID         = "expired_id"
	scenBadMRZ            = "mrz_wrong_check_digit"
	scenPassport          = "passport_instead_of_id_card"
	scenOtherName         = "bank_statement_other_name"
	scenTwoPayslips       = "only_two_payslips"
	scenPayslipGap        = "payslip_gap_month"
	scenOldPayslips       = "old_payslips"
	scenNotCredited       = "salary_not_credited"
	scenCreditDiffers     = "salary_credit_differs"
	scenPriceMismatch     = "price_mismatch"
	scenAreaMismatch      = "area_mismatch"
	scenPropertyTolerance = "property_within_tolerance"
	scenLTV80             = "ltv_above_80"
	scenLTV100            = "ltv_above_100"
	scenGarnishment       = "garnishment"
	scenReturnedDebit     = "returned_direct_debit"
	scenProbation         = "probation_running"
	scenFixedTerm         = "fixed_term_contract"
	scenNegativeBalance   = "negative_closing_balance"
	scenMissingDoc        = "missing_required_document"
	scenUnreadable        = "unreadable_upload"
	scenMultiPayslipDoc   = "payslips_in_one_file"
	scenMergedUpload      = "merged_upload" // ID, payslips and a bank statement scanned into one file (by focus only: OCR of seven pages is slow)
)

type scenarioOdds struct {
	name       string
	p          float64
	realEstate bool     // only for real estate financing
	excludes   []string // not together with these
}

var scenarios = []scenarioOdds{
	{name: scenExpiredID, p: 0.08},
	{name: scenBadMRZ, p: 0.07},
	{name: scenPassport, p: 0.2},
	{name: scenOtherName, p: 0.07},
	{name: scenTwoPayslips, p: 0.06},
	{name: scenPayslipGap, p: 0.05, excludes: []string{scenTwoPayslips}},
	{name: scenOldPayslips, p: 0.06},
	{name: scenNotCredited, p: 0.05},
	{name: scenCreditDiffers, p: 0.05, excludes: []string{scenNotCredited}},
	{name: scenPriceMismatch, p: 0.08, realEstate: true},
	{name: scenAreaMismatch, p: 0.07, realEstate: true},
	{name: scenPropertyTolerance, p: 0.1, realEstate: true, excludes: []string{scenPriceMismatch, scenAreaMismatch}},
	{name: scenLTV80, p: 0.12, realEstate: true},
	{name: scenLTV100, p: 0.06, realEstate: true, excludes: []string{scenLTV80}},
	{name: scenGarnishment, p: 0.06},
	{name: scenReturnedDebit, p: 0.07},
	{name: scenProbation, p: 0.07},
	{name: scenFixedTerm, p: 0.07},
	{name: scenNegativeBalance, p: 0.07},
	{name: scenMissingDoc, p: 0.07},
	{name: scenUnreadable, p: 0.07},
	{name: scenMultiPayslipDoc, p: 0.15, excludes: []string{scenTwoPayslips, scenPayslipGap}},
}

func drawScenarios(r *rand.Rand, tmpl string) map[string]bool {
	on := map[string]bool{}
	for _, s := range scenarios {
		if s.realEstate && tmpl != TemplateRealEstate {
			continue
		}
		if !chance(r, s.p) {
			continue
		}
		blocked := false
		for _, x := range s.excludes {
			blocked = blocked || on[x]
		}
		if !blocked {
			on[s.name] = true
		}
	}
	if on[scenGarnishment] && chance(r, 0.5) {
		on[scenGarnishment+":payslip"] = true
	}
	return on
}
