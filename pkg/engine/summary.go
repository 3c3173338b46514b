package engine

// summarize derives the summary from the checks and the required fields:
//
//   - outcome: outcome_uncertain when no document is readable or more than half of the
//     checks could not be evaluated (failed); else critical_findings when a check is
//     critical; else action_required when a check is open or failed or a required field
//     did not succeed; else passed.
//   - recommendation: passed → proceed; critical_findings → manual_review;
//     action_required → request_documents when documents are missing or unreadable or a
//     required field was not found, else manual_review; outcome_uncertain → unknown.
//   - risk_band: passed → low, action_required → medium, critical_findings → high,
//     outcome_uncertain → unknown.
func summarize(v *view, fields []ResultField, checks []ResultCheck) Summary {
	readable, failed, critical, open := 0, 0, false, false
	documentsMissing := false
	for _, u := range v.uploads {
		if u.readability != ReadabilityFailed {
			readable++
		}
	}
	for _, c := range checks {
		switch c.Status {
		case Failed:
			failed++
		case Critical:
			critical = true
		case Open:
			open = true
			if c.Key == "required_documents_present" || c.Key == "documents_readable" {
				documentsMissing = true
			}
		}
	}
	fieldsMissing := false
	for i, f := range fields {
		if v.in.Fields[i].Required && f.Status != FieldSucceeded {
			open = true
			if f.Status == FieldNotFound {
				fieldsMissing = true
			}
		}
	}
	switch {
	case readable == 0 || (len(checks) > 0 && 2*failed > len(checks)):
		return Summary{Outcome: OutcomeUncertain, Recommendation: RecommendUnknown, RiskBand: RiskUnknown}
	case critical:
		return Summary{Outcome: OutcomeCriticalFindings, Recommendation: RecommendManualReview, RiskBand: RiskHigh}
	case open || failed > 0:
		rec := RecommendManualReview
		if documentsMissing || fieldsMissing {
			rec = RecommendRequestDocuments
		}
		return Summary{Outcome: OutcomeActionRequired, Recommendation: rec, RiskBand: RiskMedium}
	}
	return Summary{Outcome: OutcomePassed, Recommendation: RecommendProceed, RiskBand: RiskLow}
}
