package chartcheck

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// dashboard is the part of Grafana's dashboard model the chart's dashboard must have.
type dashboard struct {
	Title         string `json:"title"`
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type panel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	} `json:"datasource"`
	GridPos struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// panelTypes are the Grafana panel types the dashboard may use (all built in).
var panelTypes = []string{"row", "timeseries", "stat", "gauge", "table", "bargauge"}

// dashboardConfigMap renders the chart with vals and returns the ConfigMaps Grafana's
// sidecar would load (label grafana_dashboard: "1").
func dashboardConfigMaps(t *testing.T, vals map[string]any) []*corev1.ConfigMap {
	t.Helper()
	var out []*corev1.ConfigMap
	for _, cm := range all[*corev1.ConfigMap](mustRender(t, vals)) {
		if cm.Labels["grafana_dashboard"] == "1" {
			out = append(out, cm)
		}
	}
	return out
}

// With grafana.dashboard.enabled the chart renders one ConfigMap, labelled for Grafana's
// dashboard sidecar, holding a dashboard JSON that Grafana can load: a title, a uid, a
// schema version, panels with unique ids inside the 24-column grid, each of a built-in
// type and reading the data source variable, and every panel but the rows with PromQL.
// Every doceval_* name in its PromQL (the variables' queries too) is one the services
// export, and every selector is kept to the chosen namespace; the figures the brief of
// an operator needs are all there.
func TestDashboardReadsExportedMetrics(t *testing.T) {
	t.Parallel()
	exported := exportedMetrics(t)
	cms := dashboardConfigMaps(t, set("secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey,
		"grafana.dashboard.enabled=true", "grafana.dashboard.annotations.grafana_folder=doceval"))
	if len(cms) != 1 {
		t.Fatalf("dashboard ConfigMaps: %d, want 1", len(cms))
	}
	cm := cms[0]
	if cm.Annotations["grafana_folder"] != "doceval" || cm.Namespace != "" {
		t.Errorf("annotations %v, namespace %q: want the folder annotation, the release's namespace", cm.Annotations, cm.Namespace)
	}
	if len(cm.Data) != 1 || cm.Data["doceval.json"] == "" {
		t.Fatalf("data keys %v, want doceval.json", slices.Collect(func(yield func(string) bool) {
			for k := range cm.Data {
				if !yield(k) {
					return
				}
			}
		}))
	}
	dec := json.NewDecoder(strings.NewReader(cm.Data["doceval.json"]))
	var d dashboard
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	if dec.More() {
		t.Fatal("dashboard JSON: more than one value")
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 36 || len(d.Panels) == 0 {
		t.Fatalf("title %q, uid %q, schemaVersion %d, %d panels", d.Title, d.UID, d.SchemaVersion, len(d.Panels))
	}

	variables := map[string]string{}
	var exprs []string
	for _, v := range d.Templating.List {
		variables[v.Name] = v.Type
		if q, err := json.Marshal(v.Query); err == nil {
			exprs = append(exprs, string(q))
		}
	}
	if variables["datasource"] != "datasource" || variables["namespace"] != "query" {
		t.Errorf("variables %v, want datasource (a data source) and namespace (a query)", variables)
	}

	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Title == "" || !slices.Contains(panelTypes, p.Type) {
			t.Errorf("panel %d: title %q, type %q", p.ID, p.Title, p.Type)
		}
		if g := p.GridPos; g.W <= 0 || g.H <= 0 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
			t.Errorf("%s: gridPos %+v outside the 24-column grid", p.Title, g)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || p.Datasource.UID != "${datasource}" {
			t.Errorf("%s: datasource %+v, want the datasource variable", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: no queries", p.Title)
		}
		for _, target := range p.Targets {
			if target.Expr == "" || target.RefID == "" {
				t.Errorf("%s: target %+v", p.Title, target)
			}
			exprs = append(exprs, target.Expr)
			for _, sel := range regexp.MustCompile(`doceval_[a-z_]+(\{[^}]*\})?`).FindAllStringSubmatch(target.Expr, -1) {
				if !strings.Contains(sel[1], `namespace="$namespace"`) {
					t.Errorf("%s reads %s beyond the chosen namespace", p.Title, sel[0])
				}
			}
		}
	}

	read := map[string]bool{}
	for _, expr := range exprs {
		for _, name := range unexported(exported, expr) {
			t.Errorf("the dashboard reads %s, which no service exports", name)
		}
		for _, name := range metricName.FindAllString(expr, -1) {
			read[histogramSeries.ReplaceAllString(name, "")] = true
		}
	}
	for _, want := range []string{
		"doceval_http_request_duration_seconds", "doceval_outbox_lag_seconds", "doceval_jetstream_consumer_pending_messages",
		"doceval_extractor_in_flight", "doceval_webhook_deliveries_total", "doceval_nats_connected", "doceval_build_info",
	} {
		if !read[want] {
			t.Errorf("no panel reads %s", want)
		}
	}
}

// The dashboard is off by default; its labels and namespace follow the values, and the
// schema refuses what Grafana's sidecar could not use.
func TestDashboardValues(t *testing.T) {
	t.Parallel()
	base := []string{"secretKey.value=" + testSecretKey, "console.secretKey.value=" + testConsoleSecretKey}
	if n := len(dashboardConfigMaps(t, set(base...))); n != 0 {
		t.Errorf("dashboard ConfigMaps by default: %d", n)
	}
	r := mustRender(t, set(append(base, "grafana.dashboard.enabled=true", "grafana.dashboard.namespace=monitoring",
		"grafana.dashboard.labels.grafana_dashboard=doceval")...))
	cm := named[*corev1.ConfigMap](r, "doceval-dashboard")
	if cm == nil || cm.Namespace != "monitoring" || cm.Labels["grafana_dashboard"] != "doceval" {
		t.Errorf("dashboard ConfigMap %+v: want namespace monitoring, label grafana_dashboard=doceval", cm)
	}
	for _, bad := range []string{"grafana.dashboard.enabled=yes", "grafana.dashboard.namespace=Monitoring", "grafana.dashboard.folder=x", "grafana.dashboards=true"} {
		_, err := render(t, overlay(defaults(), set(bad)))
		if err == nil || !regexp.MustCompile(`schema`).MatchString(err.Error()) {
			t.Errorf("%s: %v, want a schema error", bad, err)
		}
	}
}
