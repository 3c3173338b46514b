package chartcheck

import (
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint/support"
)

// helm lint, through the SDK, passes for the default and the production values: errors
// fail the test, warnings and notes are printed.
func TestLint(t *testing.T) {
	t.Parallel()
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	for name, vals := range map[string]map[string]any{
		"default":    defaults(),
		"production": production(t),
	} {
		lint := action.NewLint()
		lint.Namespace = "doceval"
		lint.KubeVersion = kv
		res := lint.Run([]string{chartDir}, vals)
		for _, m := range res.Messages {
			if m.Severity > support.InfoSev || testing.Verbose() {
				t.Logf("%s values: %s", name, m)
			}
		}
		if res.TotalChartsLinted != 1 || len(res.Errors) > 0 {
			t.Errorf("%s values: lint errors: %v", name, res.Errors)
		}
	}
}
