package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/logging"
)

func TestTraceIDs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := logging.New(&buf, slog.LevelInfo, "ingest", nil)
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled,
	})
	log.InfoContext(trace.ContextWithSpanContext(context.Background(), sc), "traced")
	log.InfoContext(context.Background(), "untraced")

	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	require.Len(t, lines, 2)
	var traced, untraced map[string]any
	require.NoError(t, json.Unmarshal(lines[0], &traced))
	require.NoError(t, json.Unmarshal(lines[1], &untraced))
	require.Equal(t, sc.TraceID().String(), traced["trace_id"])
	require.Equal(t, sc.SpanID().String(), traced["span_id"])
	require.NotContains(t, untraced, "trace_id")
}
