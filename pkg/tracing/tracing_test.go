package tracing_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/doceval/doceval/pkg/tracing"
)

// otelVars are the variables the tests set; each test starts with all of them empty
// (unset, to the SDK), whatever the environment of the test process.
var otelVars = []string{
	"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE",
}

// setenv sets vars in the process environment for the rest of t (so t and its parents
// cannot be parallel: the exporters read the environment themselves).
func setenv(t *testing.T, vars map[string]string) {
	t.Helper()
	for _, k := range otelVars {
		t.Setenv(k, "")
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
}

// startSpan starts (and never ends, so nothing is exported) a span of a provider built
// from vars.
func startSpan(t *testing.T, vars map[string]string) trace.Span {
	t.Helper()
	setenv(t, vars)
	ctx := context.Background()
	tp, shutdown, err := tracing.New(ctx, "ingest", "1.2.3")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, shutdown(ctx)) })
	_, span := tp.Tracer("test").Start(ctx, "span")
	return span
}

func TestOffByDefault(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"no variables":           {},
		"service name only":      {"OTEL_SERVICE_NAME": "x"},
		"protocol only":          {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		"sdk disabled":           {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
		"exporter none":          {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"},
		"sdk disabled, any case": {"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"},
	} {
		t.Run(name, func(t *testing.T) {
			require.False(t, startSpan(t, vars).IsRecording())
		})
	}
}

func TestOnWithTheEnvironment(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"endpoint":         {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
		"traces endpoint":  {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"},
		"exporter otlp":    {"OTEL_TRACES_EXPORTER": "otlp"},
		"exporter console": {"OTEL_TRACES_EXPORTER": "console"},
		"grpc":             {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		"sdk enabled":      {"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
	} {
		t.Run(name, func(t *testing.T) {
			span := startSpan(t, vars)
			require.True(t, span.IsRecording())
			res := span.(sdktrace.ReadOnlySpan).Resource()
			service, _ := res.Set().Value("service.name")
			version, _ := res.Set().Value("service.version")
			require.Equal(t, attribute.StringValue("doceval-ingest"), service)
			require.Equal(t, attribute.StringValue("1.2.3"), version)
		})
	}
}

func TestServiceNameFromEnvironment(t *testing.T) {
	span := startSpan(t, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SERVICE_NAME": "doceval-ingest-eu"})
	name, _ := span.(sdktrace.ReadOnlySpan).Resource().Set().Value("service.name")
	require.Equal(t, "doceval-ingest-eu", name.AsString())
}

// A setting the service cannot honour stops it at start rather than losing traces.
func TestUnsupportedSettings(t *testing.T) {
	for _, vars := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"},
	} {
		setenv(t, vars)
		_, _, err := tracing.New(context.Background(), "api", "dev")
		require.Error(t, err, "%v", vars)
	}
}

// receiver is an in-process OTLP trace collector: it keeps every export request.
type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	got chan *collectortrace.ExportTraceServiceRequest
}

func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.got <- req
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// ServeHTTP is OTLP over HTTP with protobuf bodies (the path is checked by the test).
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	msg := &collectortrace.ExportTraceServiceRequest{}
	if err != nil || proto.Unmarshal(body, msg) != nil || req.URL.Path != "/v1/traces" {
		http.Error(w, "bad export "+req.URL.Path, http.StatusBadRequest)
		return
	}
	r.got <- msg
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

// Spans reach the collector the environment names, over either OTLP protocol, with
// the service's name and version on their resource.
func TestExportsToTheConfiguredEndpoint(t *testing.T) {
	httpURL := func(t *testing.T, r *receiver) string {
		srv := httptest.NewServer(r)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	grpcURL := func(t *testing.T, r *receiver) string {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		srv := grpc.NewServer()
		collectortrace.RegisterTraceServiceServer(srv, r)
		go func() { _ = srv.Serve(lis) }()
		t.Cleanup(srv.Stop)
		return "http://" + lis.Addr().String()
	}
	for _, tc := range []struct {
		name  string
		serve func(*testing.T, *receiver) string
		vars  func(url string) map[string]string
	}{
		{"http/protobuf by default", httpURL, func(url string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url}
		}},
		{"http/protobuf, traces endpoint", httpURL, func(url string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url + "/v1/traces", "OTEL_TRACES_EXPORTER": "otlp"}
		}},
		{"grpc", grpcURL, func(url string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
		}},
		{"grpc for traces only", grpcURL, func(url string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &receiver{got: make(chan *collectortrace.ExportTraceServiceRequest, 8)}
			setenv(t, tc.vars(tc.serve(t, r)))
			ctx := context.Background()
			tp, shutdown, err := tracing.New(ctx, "dispatcher", "4.5.6")
			require.NoError(t, err)
			_, span := tp.Tracer("test").Start(ctx, "deliver")
			span.End()
			require.NoError(t, shutdown(ctx)) // flushes the batch

			var req *collectortrace.ExportTraceServiceRequest
			select {
			case req = <-r.got:
			case <-time.After(10 * time.Second):
				t.Fatal("the collector received nothing")
			}
			require.Len(t, req.ResourceSpans, 1)
			attrs := map[string]string{}
			for _, kv := range req.ResourceSpans[0].Resource.Attributes {
				attrs[kv.Key] = kv.Value.GetStringValue()
			}
			require.Equal(t, "doceval-dispatcher", attrs["service.name"])
			require.Equal(t, "4.5.6", attrs["service.version"])
			var names []string
			for _, ss := range req.ResourceSpans[0].ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
				}
			}
			require.Equal(t, []string{"deliver"}, names)
		})
	}
}

// Trace context survives the round trip through stored fields; without a span there is
// nothing to store.
func TestFieldsRoundTrip(t *testing.T) {
	t.Parallel()
	require.Nil(t, tracing.Fields(context.Background()))

	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "request")
	defer span.End()
	fields := tracing.Fields(ctx)
	require.Contains(t, fields, "traceparent")

	remote := trace.SpanContextFromContext(tracing.FromFields(context.Background(), fields))
	require.True(t, remote.IsRemote())
	require.Equal(t, span.SpanContext().TraceID(), remote.TraceID())
	require.Equal(t, span.SpanContext().SpanID(), remote.SpanID())
	require.True(t, remote.IsSampled())
}
