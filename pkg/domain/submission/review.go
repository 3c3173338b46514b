package submission

import (
	"errors"
	"strings"
)

// Advisor decisions on a slot (SlotReview.decision).
const (
	DecisionAccepted    = "accepted"
	DecisionRejected    = "rejected"
	DecisionNeedsReview = "needs_review"
)

// MaxReasonLength bounds a decision's reason, in characters.
const MaxReasonLength = 2000

// Refusals of a decision the console shows to the advisor.
var (
	ErrDecisionUnknown = errors.New("unknown decision")
	ErrReasonRequired  = errors.New("a reason is required for rejected and needs_review")
	ErrReasonTooLong   = errors.New("the reason is too long")
)

// CheckDecision refuses an unknown decision, a rejection or needs_review without a
// reason, and a reason that is too long; "" clears the decision that stands. It returns
// the reason trimmed.
func CheckDecision(decision, reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	switch decision {
	case "", DecisionAccepted:
	case DecisionRejected, DecisionNeedsReview:
		if reason == "" {
			return "", ErrReasonRequired
		}
	default:
		return "", ErrDecisionUnknown
	}
	if len([]rune(reason)) > MaxReasonLength {
		return "", ErrReasonTooLong
	}
	return reason, nil
}

// CheckDecidable refuses a decision on a submission being deleted or canceled.
func CheckDecidable(purging bool, status string) error {
	if err := CheckLive(purging); err != nil {
		return err
	}
	if status == StatusCanceled {
		return ErrCanceled
	}
	return nil
}
