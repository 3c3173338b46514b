package chartcheck

import (
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
)

// helm lint, through the SDK's linter (what `helm lint` runs), passes for the default
// and the production values: errors fail the test, warnings and notes are printed.
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
		res := lint.AllWithKubeVersion(chartDir, vals, "doceval", kv)
		errors := 0
		for _, m := range res.Messages {
			if m.Severity == support.ErrorSev {
				errors++
				t.Errorf("%s values: %s", name, m)
			} else if m.Severity > support.InfoSev || testing.Verbose() {
				t.Logf("%s values: %s", name, m)
			}
		}
		if res.ChartDir == "" || (errors == 0) != (res.HighestSeverity < support.ErrorSev) {
			t.Errorf("%s values: the linter did not run as expected: %+v", name, res)
		}
	}
}
