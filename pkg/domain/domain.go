// Package domain holds what the aggregates' packages beneath it (webhook, catalog,
// submission, evaluation) share: the refusal of one request field's value and the
// refusal naming a thing that does not exist. Each aggregate's package holds its types,
// the data of its events, its statuses and transitions, and its own refusals as
// sentinel errors; pkg/store maps database rows to those types. Nothing here knows
// HTTP, the database or the queue: the edge (apierr.FromDomain) chooses each refusal's
// status and error code in one table.
package domain

import "fmt"

// FieldError is a refusal of the value of one request field: Field names it as the
// request does (document_slot_id, items[2].check_id), Err says why. The edge answers it
// with invalid_field.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// OnField refuses field's value for the reason err (often a sentinel of an aggregate).
func OnField(field string, err error) error {
	return &FieldError{Field: field, Err: err}
}

// Fieldf refuses field's value with a formatted reason.
func Fieldf(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// NotFoundError is a refusal naming what the request referred to that does not exist
// (a slot of another submission); the edge answers it with not_found and its message.
type NotFoundError struct {
	Message string
}

func (e *NotFoundError) Error() string { return e.Message }

// NotFoundf builds a NotFoundError with a formatted message.
func NotFoundf(format string, args ...any) error {
	return &NotFoundError{Message: fmt.Sprintf(format, args...)}
}

// LimitError is a refusal because the request would take a tenant past a documented cap
// (uploads per submission, pages per evaluation); the edge answers it with
// invalid_request (422) and its message, which names the cap.
type LimitError struct {
	Message string
}

func (e *LimitError) Error() string { return e.Message }
