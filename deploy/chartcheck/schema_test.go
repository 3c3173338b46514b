package chartcheck

import (
	"strings"
	"testing"
)

// values.schema.json rejects values of the wrong type or format before anything is
// rendered, naming the offending value.
func TestSchemaRejectsBadValues(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"replicas as a word":           {map[string]any{"api": map[string]any{"replicas": "two"}}, "replicas"},
		"a misspelt key":               {set("api.replica=2"), "replica"},
		"an unknown log level":         {set("logLevel=verbose"), "logLevel"},
		"a short secret key":           {set("secretKey.value=c2hvcnQ="), "secretKey"},
		"a duration without unit":      {set("dispatcher.config.eventRetention=720"), "eventRetention"},
		"a blob URL of no store":       {set("blob.url=gs://bucket"), "blob"},
		"an unsupported OTLP protocol": {set("otel.protocol=http/json"), "protocol"},
		"a render DPI as a word":       {set("console.config.renderDPI=high"), "renderDPI"},
		"a session without unit":       {set("console.config.sessionIdle=30"), "sessionIdle"},
		"a public URL without scheme":  {set("console.publicURL=console.example.com"), "publicURL"},
		"OIDC scopes without openid":   {set("console.oidc.scopes=email profile"), "scopes"},
		"a misspelt console key":       {set("console.ingres.enabled=true"), "ingres"},
		// The extractor takes no extra env, envFrom or volumes: nothing may hand it a
		// credential.
		"env for the extractor":     {map[string]any{"extractor": map[string]any{"env": []any{map[string]any{"name": "DATABASE_URL", "value": "x"}}}}, "env"},
		"envFrom for the extractor": {map[string]any{"extractor": map[string]any{"envFrom": []any{map[string]any{"secretRef": map[string]any{"name": "doceval"}}}}}, "envFrom"},
		"no extractor slots":        {set("extractor.config.concurrency=0"), "concurrency"},
		"a queue wait without unit": {set("extractor.config.queueWait=30"), "queueWait"},
	} {
		_, err := render(t, overlay(defaults(), tc.vals))
		if err == nil || !strings.Contains(err.Error(), "schema") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a schema error naming %q", name, err, tc.want)
		}
	}
}
