package catalog

import "fmt"

// ItemKind names one of a template's three item lists.
type ItemKind string

const (
	KindDocumentRequirement ItemKind = "document_requirement"
	KindCheck               ItemKind = "check"
	KindDataField           ItemKind = "data_field"
)

// Family is the catalog family a kind of item references.
func (k ItemKind) Family() Family {
	switch k {
	case KindDocumentRequirement:
		return FamilyDocumentType
	case KindCheck:
		return FamilyCheck
	}
	return FamilyDataField
}

// ItemInput is a template item as a client sends it; nil fields take their defaults
// (required: true for requirements, false for data fields; allow_multiple_files false;
// confidence_threshold 0.8).
type ItemInput struct {
	Ref                 string
	Required            *bool
	AllowMultipleFiles  *bool
	Label               *string
	Description         *string
	ConfidenceThreshold *float64
}

// ItemError is a refused template item: an unknown, archived or repeated reference.
// Index is its position in the list the client sent.
type ItemError struct {
	Kind   ItemKind
	Index  int
	Reason string
}

func (e *ItemError) Error() string { return fmt.Sprintf("%s item %d: %s", e.Kind, e.Index, e.Reason) }

// Reference is what a template item's reference resolved to: whether an entry of the
// family exists for the client, is archived, or was already listed before.
type Reference struct {
	Found, Archived, Repeated bool
}

// CheckItem refuses item index of a kind's list whose reference ref is unknown,
// archived or repeated.
func CheckItem(kind ItemKind, index int, ref string, r Reference) error {
	var reason string
	switch {
	case !r.Found:
		reason = fmt.Sprintf("no %s %q", kind.Family(), ref)
	case r.Archived:
		reason = fmt.Sprintf("%s %q is archived", kind.Family(), ref)
	case r.Repeated:
		reason = fmt.Sprintf("%s %q appears more than once", kind.Family(), ref)
	default:
		return nil
	}
	return &ItemError{Kind: kind, Index: index, Reason: reason}
}
