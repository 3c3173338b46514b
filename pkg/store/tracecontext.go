package store

import (
	"context"
	"encoding/json"

	"github.com/doceval/doceval/pkg/tracing"
)

// traceContext encodes the trace context of ctx for a trace_context column: NULL when
// ctx carries none (tracing off).
func traceContext(ctx context.Context) []byte {
	fields := tracing.Fields(ctx)
	if fields == nil {
		return nil
	}
	b, _ := json.Marshal(fields) // a map of strings always encodes
	return b
}

// traceFields decodes a trace_context column. A value that does not decode only costs
// the trace its link, never the message or the delivery.
func traceFields(raw []byte) map[string]string {
	var fields map[string]string
	if len(raw) > 0 && json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	return fields
}
