package chartcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Every environment variable the Go services read, by service, and where it is read.
// The chart must make each one reachable in the service's container (env, or envFrom
// of a rendered ConfigMap/Secret). TestEnvListComplete keeps this list honest against
// the code's `env:"…"` tags.
var (
	// config.Common (pkg/config/config.go): every service.
	commonEnv = []string{
		"DATABASE_URL", "NATS_URL", "DOCEVAL_LOG_LEVEL", "DOCEVAL_MIGRATE", "DOCEVAL_STREAM_REPLICAS",
		"DOCEVAL_SHUTDOWN_TIMEOUT", "DOCEVAL_BLOB_URL", "DOCEVAL_OUTBOX_RELAY",
	}
	// DOCEVAL_OPS_ADDR is in config.Common too, but only the workers
	// (pkg/service/worker.go) and the console (pkg/console/server.go) listen on it; the
	// api serves the ops endpoints on DOCEVAL_HTTP_ADDR.
	opsEnv = []string{"DOCEVAL_OPS_ADDR"}

	serviceEnv = map[string][]string{
		// apiserver.Tunables (pkg/apiserver/server.go).
		"api": {
			"DOCEVAL_HTTP_ADDR", "DOCEVAL_RATE_LIMIT", "DOCEVAL_RATE_LIMIT_BURST", "DOCEVAL_MAX_UPLOAD_BYTES",
			"DOCEVAL_INVALID_KEY_RATE", "DOCEVAL_INVALID_KEY_BURST", "DOCEVAL_TRUSTED_PROXIES",
			"DOCEVAL_SECRET_KEY", "DOCEVAL_SECRET_ROTATION_GRACE",
			"DOCEVAL_MAX_CONCURRENT_UPLOADS", "DOCEVAL_UPLOAD_IDLE_TIMEOUT", "DOCEVAL_MAX_UPLOADS_PER_SUBMISSION",
			"DOCEVAL_MAX_PAGES_PER_EVALUATION", "DOCEVAL_MAX_FEED_WAITS", "DOCEVAL_API_KEY_CACHE_TTL",
			"DOCEVAL_PUBLIC_URL",
			// The S3 blob store's credentials (gocloud.dev/blob/s3blob, the AWS SDK's
			// default chain), when given as keys.
			"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		},
		// ingest.Config (pkg/ingest/ingest.go).
		"ingest": {
			"DOCEVAL_INGEST_MAX_PAGES", "DOCEVAL_INGEST_MAX_OCR_PAGES", "DOCEVAL_TOOL_MAX_MEMORY", "DOCEVAL_INGEST_FILE_TIMEOUT", "DOCEVAL_INGEST_CONCURRENCY", "DOCEVAL_INGEST_CLIENT_CONCURRENCY",
			"DOCEVAL_INGEST_MAX_ATTEMPTS", "DOCEVAL_OCR_LANGUAGES", "DOCEVAL_INGEST_ACK_WAIT", "DOCEVAL_INGEST_TEMP_DIR", "DOCEVAL_PARSER_ISOLATION",
			"DOCEVAL_EXTRACTOR_URL", // extractor.Config (pkg/extractor/parser.go)
			"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		},
		// evaluator.Config (pkg/evaluator/evaluator.go) and engine.LLMConfig
		// (pkg/engine/model.go).
		"evaluator": {
			"DOCEVAL_EVALUATOR_CONCURRENCY", "DOCEVAL_EVALUATOR_CLIENT_CONCURRENCY", "DOCEVAL_EVALUATOR_MAX_ATTEMPTS", "DOCEVAL_EVALUATION_TIMEOUT",
			"DOCEVAL_EVALUATION_PROGRESS_INTERVAL", "DOCEVAL_EVALUATION_QUEUE_TIMEOUT", "DOCEVAL_EVALUATOR_ACK_WAIT",
			"DOCEVAL_LLM_BASE_URL", "DOCEVAL_LLM_MODEL", "DOCEVAL_LLM_API_KEY", "DOCEVAL_LLM_TIMEOUT",
			"DOCEVAL_LLM_CONCURRENCY", "DOCEVAL_LLM_MAX_RETRIES", "DOCEVAL_LLM_MAX_CONTEXT_CHARS",
			"DOCEVAL_LLM_AZURE", "DOCEVAL_LLM_AZURE_API_VERSION", "DOCEVAL_LLM_OMIT_TEMPERATURE",
			"DOCEVAL_LLM_MAX_OUTPUT_TOKENS", "DOCEVAL_LLM_BATCH_SIZE",
		},
		// dispatch.Config (pkg/dispatch/dispatch.go).
		"dispatcher": {
			"DOCEVAL_EVENT_RETENTION", "DOCEVAL_EVENT_RETENTION_EVERY", "DOCEVAL_WEBHOOK_RETRY_SCHEDULE",
			"DOCEVAL_WEBHOOK_TIMEOUT", "DOCEVAL_WEBHOOK_ALLOW_PRIVATE", "DOCEVAL_SECRET_KEY",
			"DOCEVAL_FANOUT_ACK_WAIT", "DOCEVAL_WEBHOOK_CONCURRENCY", "DOCEVAL_WEBHOOK_CLIENT_CONCURRENCY",
		},
		// console.Settings (pkg/console/config.go).
		"console": {
			"DOCEVAL_HTTP_ADDR", "DOCEVAL_CONSOLE_PUBLIC_URL", "DOCEVAL_CONSOLE_INSECURE_COOKIES",
			"DOCEVAL_CONSOLE_SESSION_IDLE", "DOCEVAL_CONSOLE_SESSION_MAX", "DOCEVAL_CONSOLE_LOGIN_MAX_FAILURES",
			"DOCEVAL_CONSOLE_LOGIN_WINDOW", "DOCEVAL_CONSOLE_TRUSTED_PROXIES", "DOCEVAL_CONSOLE_OIDC_ISSUER", "DOCEVAL_CONSOLE_OIDC_CLIENT_ID",
			"DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET", "DOCEVAL_CONSOLE_OIDC_SCOPES", "DOCEVAL_CONSOLE_OIDC_BUTTON",
			"DOCEVAL_CONSOLE_RENDER_DPI", "DOCEVAL_TOOL_MAX_MEMORY", "DOCEVAL_EXTRACTOR_URL", "DOCEVAL_PARSER_ISOLATION",
			"DOCEVAL_CONSOLE_HASH_CONCURRENCY", "DOCEVAL_CONSOLE_HASH_WAIT", "DOCEVAL_CONSOLE_SECRET_KEY",
			"DOCEVAL_CONSOLE_REQUIRE_MFA", "DOCEVAL_CONSOLE_MFA_ISSUER",
			"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		},
	}

	// extractor.ServerConfig (pkg/extractor/server.go): the extractor, which reads no
	// config.Common (it connects to nothing), and pkg/extract's setting of the
	// parsers' sandbox, which the chart sets to unconfined there: the pod is the
	// boundary.
	extractorEnv = []string{
		"DOCEVAL_HTTP_ADDR", "DOCEVAL_OPS_ADDR", "DOCEVAL_LOG_LEVEL", "DOCEVAL_SHUTDOWN_TIMEOUT",
		"DOCEVAL_EXTRACTOR_MAX_BODY_BYTES", "DOCEVAL_EXTRACTOR_CONCURRENCY", "DOCEVAL_EXTRACTOR_QUEUE_WAIT",
		"DOCEVAL_EXTRACTOR_MAX_TIMEOUT", "DOCEVAL_TOOL_MAX_MEMORY", "DOCEVAL_EXTRACTOR_TEMP_DIR",
		"DOCEVAL_PARSER_ISOLATION",
	}

	// OpenTelemetry (pkg/tracing, the OpenTelemetry SDK): every service, once an
	// endpoint is set; OTEL_SERVICE_NAME always.
	otelEnv = []string{
		"OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_RESOURCE_ATTRIBUTES",
	}
)

// optionalUnlessSet are the variables the chart leaves out unless their value is given
// (an empty value would not mean the code's default for all of them).
var optionalUnlessSet = []string{
	"DOCEVAL_INGEST_ACK_WAIT", "DOCEVAL_EVALUATOR_ACK_WAIT", "DOCEVAL_LLM_BASE_URL", "DOCEVAL_LLM_MODEL",
	"DOCEVAL_LLM_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"DOCEVAL_PUBLIC_URL", "DOCEVAL_CONSOLE_PUBLIC_URL", "DOCEVAL_CONSOLE_OIDC_ISSUER", "DOCEVAL_CONSOLE_OIDC_CLIENT_ID",
	"DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_SAMPLER",
	"OTEL_TRACES_SAMPLER_ARG", "OTEL_RESOURCE_ATTRIBUTES",
}

// wantEnv is the list for one service.
func wantEnv(svc string) []string {
	want := slices.Concat(commonEnv, serviceEnv[svc], otelEnv)
	if !slices.Contains(opsOnHTTP, svc) {
		want = append(want, opsEnv...)
	}
	return want
}

// checkEnvWired asserts that the container can see every variable its service reads:
// set in env, or a key of a rendered ConfigMap or Secret it takes with envFrom. A
// secretKeyRef to the chart's Secret must name a key that Secret has. Variables the
// chart only renders when their value is given may be missing here; TestEnvWiring
// renders them all.
func checkEnvWired(t *testing.T, r *rendered, d *appsv1.Deployment, svc string) {
	t.Helper()
	have := containerEnv(t, r, d.Spec.Template.Spec.Containers[0])
	for _, name := range wantEnv(svc) {
		if !have[name] && !slices.Contains(optionalUnlessSet, name) {
			t.Errorf("%s: %s is not wired into the container", svc, name)
		}
	}
}

// containerEnv is the set of variable names the container gets.
func containerEnv(t *testing.T, r *rendered, c corev1.Container) map[string]bool {
	t.Helper()
	have := map[string]bool{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			ref := e.ValueFrom.SecretKeyRef
			if s := named[*corev1.Secret](r, ref.Name); s != nil && s.Data[ref.Key] == nil {
				t.Errorf("%s: %s from Secret %s, which has no key %s", c.Name, e.Name, ref.Name, ref.Key)
			}
		}
		have[e.Name] = true
	}
	for _, src := range c.EnvFrom {
		switch {
		case src.ConfigMapRef != nil:
			cm := named[*corev1.ConfigMap](r, src.ConfigMapRef.Name)
			if cm == nil {
				t.Errorf("%s: envFrom ConfigMap %s is not rendered", c.Name, src.ConfigMapRef.Name)
				continue
			}
			for k := range cm.Data {
				have[src.Prefix+k] = true
			}
		case src.SecretRef != nil:
			if s := named[*corev1.Secret](r, src.SecretRef.Name); s != nil {
				for k := range s.Data {
					have[src.Prefix+k] = true
				}
			}
		}
	}
	return have
}

// With every optional setting given, each service's container gets every variable its
// service reads: from the chart's Secret with inline values, and from existing Secrets
// with the production values.
func TestEnvWiring(t *testing.T) {
	t.Parallel()
	all := set(
		"secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey,
		"ingest.config.ackWait=6m", "evaluator.config.ackWait=2m",
		"llm.baseUrl=https://llm.example/v1", "llm.model=m", "llm.apiKey=k",
		"blob.url=s3://bucket?region=eu-central-1", "blob.persistence.enabled=false",
		"blob.s3.accessKeyId=id", "blob.s3.secretAccessKey=secret",
		"otel.endpoint=http://collector:4318", "otel.resourceAttributes=deployment.environment=test",
		"console.publicURL=https://console.example.com", "api.config.publicURL=https://api.example.com", "console.oidc.issuer=https://login.example.com",
		"console.oidc.clientId=doceval-console", "console.oidc.clientSecret=s3cret",
	)
	for name, vals := range map[string]map[string]any{
		"inline": all,
		"production": overlay(production(t), set("ingest.config.ackWait=6m", "evaluator.config.ackWait=2m",
			"console.oidc.issuer=https://login.example.com", "console.oidc.clientId=doceval-console",
			"console.oidc.existingSecret.name=doceval-console-oidc")),
	} {
		r := mustRender(t, vals)
		for _, svc := range services {
			d := deployment(t, r, svc)
			have := containerEnv(t, r, d.Spec.Template.Spec.Containers[0])
			for _, v := range wantEnv(svc) {
				if (strings.HasPrefix(v, "AWS_") || v == "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET") && name == "production" {
					continue // checked below: from the operator's Secrets
				}
				if !have[v] {
					t.Errorf("%s values, %s: %s is not wired", name, svc, v)
				}
			}
		}
		if name == "production" {
			if e := envVar(deployment(t, r, "console"), "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"); e == nil ||
				e.ValueFrom.SecretKeyRef.Name != "doceval-console-oidc" || e.ValueFrom.SecretKeyRef.Key != "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET" {
				t.Errorf("production, console: DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET = %+v", e)
			}
			for _, svc := range blobServices {
				for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
					if e := envVar(deployment(t, r, svc), v); e == nil || e.ValueFrom.SecretKeyRef.Name != "doceval-s3" {
						t.Errorf("production, %s: %s = %+v", svc, v, e)
					}
				}
			}
		}
		if attrs := envVar(deployment(t, r, "api"), "OTEL_RESOURCE_ATTRIBUTES"); attrs == nil ||
			!strings.Contains(attrs.Value, "k8s.pod.name=$(K8S_POD_NAME)") || !strings.Contains(attrs.Value, "deployment.environment=") {
			t.Errorf("%s: OTEL_RESOURCE_ATTRIBUTES = %+v", name, attrs)
		}
	}
	// Secrets go only where they are read.
	r := mustRender(t, all)
	for _, svc := range services {
		d := deployment(t, r, svc)
		for _, secret := range []string{"DOCEVAL_SECRET_KEY", "DOCEVAL_CONSOLE_SECRET_KEY", "DOCEVAL_LLM_API_KEY", "AWS_SECRET_ACCESS_KEY", "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"} {
			if envVar(d, secret) != nil && !slices.Contains(serviceEnv[svc], secret) {
				t.Errorf("%s gets %s, which it does not read", svc, secret)
			}
		}
	}
}

// envTag finds the variable names of the services' configuration structs.
var envTag = regexp.MustCompile(`env:"([A-Z0-9_]+)`)

// Every `env:"NAME"` tag in the services' code is in the list above, so a new setting
// cannot ship without its place in the chart.
func TestEnvListComplete(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, svc := range services {
		for _, v := range wantEnv(svc) {
			known[v] = true
		}
	}
	for _, v := range extractorEnv {
		known[v] = true
	}
	found := 0
	for _, dir := range []string{"../../pkg", "../../services"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range envTag.FindAllStringSubmatch(string(src), -1) {
				found++
				if !known[m[1]] {
					t.Errorf("%s reads %s, which the chart does not set (add it to values.yaml, the templates and this test)", path, m[1])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 40 {
		t.Fatalf("only %d env tags found: is the repository layout still pkg/ and services/?", found)
	}
}
