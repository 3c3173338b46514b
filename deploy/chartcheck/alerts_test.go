package chartcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
)

// purgeStalledExpr is the shape of DocevalPurgeStalled's expression: the largest age of
// the oldest waiting purge that the release's ingest reports, over a threshold.
var purgeStalledExpr = regexp.MustCompile(`^max\(([a-z_]+)\{namespace="([^"]+)", job="([^"]+)"\}\) > ([0-9]+)$`)

// With the ServiceMonitors comes a PrometheusRule, selected by the same labels, whose
// DocevalPurgeStalled alert reads the purge age metric ingest exports (the name is looked
// up in pkg/ingest/metrics.go) from the release's ingest Service, which a ServiceMonitor
// scrapes, and fires past an hour unless told otherwise.
func TestPurgeStalledAlert(t *testing.T) {
	t.Parallel()
	metrics, err := os.ReadFile("../../pkg/ingest/metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		vals      map[string]any
		threshold int
	}{
		{"defaults", set("secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey, "serviceMonitor.enabled=true", "serviceMonitor.labels.release=kps"), 3600},
		{"threshold", set("secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey, "serviceMonitor.enabled=true", "serviceMonitor.labels.release=kps", "serviceMonitor.alerts.purgeStalledSeconds=1800"), 1800},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := mustRender(t, tc.vals)
			rules := all[*monitoringv1.PrometheusRule](r)
			if len(rules) != 1 {
				t.Fatalf("PrometheusRules: %d, want 1", len(rules))
			}
			if got := rules[0].Labels["release"]; got != "kps" {
				t.Errorf("rule not selected by the ServiceMonitors' labels: release=%q", got)
			}
			var alert *monitoringv1.Rule
			for _, g := range rules[0].Spec.Groups {
				for i, rule := range g.Rules {
					if rule.Alert == "DocevalPurgeStalled" {
						alert = &g.Rules[i]
					}
				}
			}
			if alert == nil {
				t.Fatalf("no DocevalPurgeStalled alert in %+v", rules[0].Spec.Groups)
			}
			m := purgeStalledExpr.FindStringSubmatch(alert.Expr.String())
			if m == nil {
				t.Fatalf("expression %q", alert.Expr.String())
			}
			metric, namespace, job, threshold := m[1], m[2], m[3], m[4]
			if metric != "doceval_purges_pending_oldest_seconds" || !regexp.MustCompile(`"`+metric+`"`).Match(metrics) {
				t.Errorf("the alert reads %s, which ingest does not export as doceval_purges_pending_oldest_seconds", metric)
			}
			if namespace != "doceval" {
				t.Errorf("namespace %q, want the release's", namespace)
			}
			if svc := named[*corev1.Service](r, job); svc == nil || len(component[*monitoringv1.ServiceMonitor](r, "ingest")) != 1 {
				t.Errorf("job %q is no scraped ingest Service", job)
			}
			if n, _ := strconv.Atoi(threshold); n != tc.threshold {
				t.Errorf("threshold %s, want %d", threshold, tc.threshold)
			}
			if alert.For == nil || alert.Labels["severity"] == "" || alert.Annotations["summary"] == "" {
				t.Errorf("alert %+v: want a for, a severity and a summary", alert)
			}
			// The stalled-purge alert cannot fire where the figure is missing: another
			// one does, on the same series.
			want := "absent(" + metric + `{namespace="` + namespace + `", job="` + job + `"})`
			found := false
			for _, g := range rules[0].Spec.Groups {
				for _, rule := range g.Rules {
					if rule.Alert == "DocevalPurgeUnmeasured" {
						found = rule.Expr.String() == want && rule.For != nil
					}
				}
			}
			if !found {
				t.Errorf("no DocevalPurgeUnmeasured alert on %s with a for", want)
			}
		})
	}

	r := mustRender(t, set("secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey, "serviceMonitor.enabled=true", "serviceMonitor.alerts.enabled=false"))
	if n := len(all[*monitoringv1.PrometheusRule](r)); n != 0 {
		t.Errorf("PrometheusRules with alerts.enabled=false: %d", n)
	}
	if n := len(all[*monitoringv1.PrometheusRule](mustRender(t, defaults()))); n != 0 {
		t.Errorf("PrometheusRules without serviceMonitor.enabled: %d", n)
	}
}

// The alert's threshold is a number of seconds: a duration or a word is refused.
func TestSchemaRejectsBadAlertValues(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"serviceMonitor.alerts.purgeStalledSeconds=1h", "serviceMonitor.alerts.purgeStalledSeconds=5", "serviceMonitor.alerts.purge=true"} {
		_, err := render(t, overlay(defaults(), set(bad)))
		if err == nil || !regexp.MustCompile(`schema`).MatchString(err.Error()) {
			t.Errorf("%s: %v, want a schema error", bad, err)
		}
	}
}

// Every alert of the chart's PrometheusRule reads only metrics the services export (the
// doceval_* names in pkg/, a histogram's _count, _sum and _bucket series included), in
// the release's namespace, and carries a severity and a summary.
func TestAlertsReadExportedMetrics(t *testing.T) {
	t.Parallel()
	exported := exportedMetrics(t)
	r := mustRender(t, set("secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey, "serviceMonitor.enabled=true"))
	rules := all[*monitoringv1.PrometheusRule](r)
	if len(rules) != 1 {
		t.Fatalf("PrometheusRules: %d, want 1", len(rules))
	}
	var alerts []string
	for _, g := range rules[0].Spec.Groups {
		for _, rule := range g.Rules {
			alerts = append(alerts, rule.Alert)
			expr := rule.Expr.String()
			for _, name := range unexported(exported, expr) {
				t.Errorf("%s reads %s, which no service exports", rule.Alert, name)
			}
			for _, sel := range regexp.MustCompile(`doceval_[a-z_]+(\{[^}]*\})?`).FindAllStringSubmatch(expr, -1) {
				if !strings.Contains(sel[1], `namespace="doceval"`) {
					t.Errorf("%s reads %s beyond the release's namespace", rule.Alert, sel[0])
				}
			}
			if rule.Labels["severity"] == "" || rule.Annotations["summary"] == "" {
				t.Errorf("%s: labels %v, annotations %v", rule.Alert, rule.Labels, rule.Annotations)
			}
		}
	}
	for _, want := range []string{"DocevalPurgeStalled", "DocevalOutboxLagging", "DocevalNATSDisconnected", "DocevalQueueBacklog", "DocevalWebhooksAbandoned", "DocevalAPIErrors", "DocevalExtractorBusy"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no %s among %v", want, alerts)
		}
	}
}

// exportedMetrics are the metric names the services export: the "doceval_*" string
// literals of pkg/'s non-test Go files (metric names are written out whole there).
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	exported := map[string]bool{}
	err := filepath.WalkDir("../../pkg", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range regexp.MustCompile(`"(doceval_[a-z_]+)"`).FindAllStringSubmatch(string(b), -1) {
			exported[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return exported
}

var (
	metricName      = regexp.MustCompile(`doceval_[a-z_]+`)
	histogramSeries = regexp.MustCompile(`_(count|sum|bucket)$`)
)

// unexported returns the doceval_* names expr reads that no service exports, a
// histogram's _count, _sum and _bucket series counting as its own.
func unexported(exported map[string]bool, expr string) []string {
	var out []string
	for _, name := range metricName.FindAllString(expr, -1) {
		if !exported[name] && !exported[histogramSeries.ReplaceAllString(name, "")] {
			out = append(out, name)
		}
	}
	return out
}
