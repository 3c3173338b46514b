package chartcheck

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// chartDir is the chart under test, relative to this package.
const chartDir = "../helm/doceval"

// kubeVersion is the cluster the chart is rendered for: a recent one, so the
// version-gated parts (the preStop sleep action, ≥1.30) are rendered too.
const kubeVersion = "v1.33.0"

// services are the chart's Deployments (the console's with console.enabled, the default).
var services = []string{"api", "ingest", "evaluator", "dispatcher", "console"}

// httpServices serve HTTP on DOCEVAL_HTTP_ADDR behind a Service on port 80; the others
// are workers with an ops port.
var httpServices = []string{"api", "console"}

// opsOnHTTP serve /healthz, /readyz and /metrics on their HTTP listener; every other
// service (the workers, the console) serves them on an internal ops port
// (DOCEVAL_OPS_ADDR, the container port "metrics", 9090).
var opsOnHTTP = []string{"api"}

// blobServices read or write the blob store: they mount a file:// store's volume and get
// the S3 credentials.
var blobServices = []string{"api", "ingest", "console"}

// testSecretKey is a syntactically valid DOCEVAL_SECRET_KEY (32 bytes in base64);
// testConsoleSecretKey another, for DOCEVAL_CONSOLE_SECRET_KEY.
const (
	testSecretKey        = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	testConsoleSecretKey = "Y29uc29sZS1rZXktMDEyMzQ1Njc4OWFiY2RlZjAxMjM="
)

// newObject returns an empty object of the API type of apiVersion/kind. Every kind the
// chart may render is listed; an unknown one fails the test, so a new template comes
// with its strict decoding.
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + "/" + kind {
	case "v1/ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1/Secret":
		return &corev1.Secret{}, true
	case "v1/Service":
		return &corev1.Service{}, true
	case "v1/ServiceAccount":
		return &corev1.ServiceAccount{}, true
	case "v1/PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, true
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}, true
	case "batch/v1/Job":
		return &batchv1.Job{}, true
	case "autoscaling/v2/HorizontalPodAutoscaler":
		return &autoscalingv2.HorizontalPodAutoscaler{}, true
	case "policy/v1/PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, true
	case "networking.k8s.io/v1/NetworkPolicy":
		return &networkingv1.NetworkPolicy{}, true
	case "networking.k8s.io/v1/Ingress":
		return &networkingv1.Ingress{}, true
	case "monitoring.coreos.com/v1/ServiceMonitor":
		return &monitoringv1.ServiceMonitor{}, true
	case "monitoring.coreos.com/v1/PrometheusRule":
		return &monitoringv1.PrometheusRule{}, true
	case "keda.sh/v1alpha1/ScaledObject":
		return &scaledObject{}, true
	}
	return nil, false
}

// object is one rendered and decoded manifest.
type object struct {
	Source string // the template it came from
	Kind   string
	Name   string
	Hook   *release.Hook // nil for the release's ordinary resources
	Value  any           // *corev1.ConfigMap, *appsv1.Deployment, …
}

// rendered is a release as `helm install` would create it.
type rendered struct {
	Values  map[string]any // the user-supplied values
	Objects []object
	Notes   string
}

// loadChart loads the chart from its directory, as helm install ./deploy/helm/doceval.
func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	return c
}

// valuesFile reads a values file of the chart (a -f argument).
func valuesFile(t *testing.T, name string) map[string]any {
	t.Helper()
	v, err := chartutil.ReadValuesFile(filepath.Join(chartDir, name))
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return v.AsMap()
}

// overlay merges src into dst recursively (as a later -f or --set would) and returns dst.
func overlay(dst, src map[string]any) map[string]any {
	for k, sv := range src {
		if sm, ok := sv.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				dst[k] = overlay(maps.Clone(dm), sm)
				continue
			}
		}
		dst[k] = sv
	}
	return dst
}

// set parses "a.b.c=value" pairs into a values tree, a minimal --set (numbers and
// booleans typed, the rest strings).
func set(pairs ...string) map[string]any {
	out := map[string]any{}
	for _, p := range pairs {
		path, raw, _ := strings.Cut(p, "=")
		var v any = raw
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			v = n
		} else if b, err := strconv.ParseBool(raw); err == nil {
			v = b
		}
		keys := strings.Split(path, ".")
		m := out
		for _, k := range keys[:len(keys)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[keys[len(keys)-1]] = v
	}
	return out
}

// render renders the chart as `helm install` does (values coalesced with the chart's
// defaults and checked against values.schema.json, templates rendered, NOTES.txt set
// apart, hooks sorted out by their annotations), then decodes every manifest strictly.
// It uses Helm's engine and release packages, not its action package: the same
// rendering without the Kubernetes client stack (kubectl, kustomize, cli-runtime), which
// halves what a cold CI compiles for this module.
func render(t *testing.T, vals map[string]any) (*rendered, error) {
	t.Helper()
	kv, err := chartutil.ParseKubeVersion(kubeVersion)
	if err != nil {
		t.Fatal(err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	caps.APIVersions = append(caps.APIVersions, "keda.sh/v1alpha1", "monitoring.coreos.com/v1")
	c := loadChart(t)
	top, err := chartutil.ToRenderValues(c, vals, chartutil.ReleaseOptions{
		Name: "doceval", Namespace: "doceval", Revision: 1, IsInstall: true,
	}, caps)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(c, top)
	if err != nil {
		return nil, err
	}
	notes := files[path.Join(c.Name(), "templates", "NOTES.txt")]
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	r := &rendered{Values: vals, Notes: notes}
	for _, m := range manifests {
		if err := r.add("# Source: "+m.Name+"\n"+m.Content, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hooks {
		if err := r.add("# Source: "+h.Path+"\n"+h.Manifest, h); err != nil {
			t.Fatal(err)
		}
	}
	return r, nil
}

// mustRender is render that fails the test on an error.
func mustRender(t *testing.T, vals map[string]any) *rendered {
	t.Helper()
	r, err := render(t, vals)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return r
}

var (
	docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)
	sourceLine   = regexp.MustCompile(`(?m)^# Source: (.+)$`)
)

// add splits a multi-document manifest and decodes each document strictly into the
// API type of its apiVersion and kind.
func (r *rendered) add(manifest string, hook *release.Hook) error {
	for _, doc := range docSeparator.Split(manifest, -1) {
		source := ""
		if m := sourceLine.FindStringSubmatch(doc); m != nil {
			source = m[1]
		}
		var meta struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return fmt.Errorf("%s: %w\n%s", source, err, doc)
		}
		if meta.Kind == "" && meta.APIVersion == "" {
			if strings.TrimSpace(sourceLine.ReplaceAllString(doc, "")) != "" {
				return fmt.Errorf("%s: a document without apiVersion and kind:\n%s", source, doc)
			}
			continue // only the # Source comment
		}
		obj, ok := newObject(meta.APIVersion, meta.Kind)
		if !ok {
			return fmt.Errorf("%s: unexpected kind %s/%s: add it to newObject", source, meta.APIVersion, meta.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			return fmt.Errorf("%s: %s %s: %w\n%s", source, meta.Kind, meta.Metadata.Name, err, doc)
		}
		r.Objects = append(r.Objects, object{Source: source, Kind: meta.Kind, Name: meta.Metadata.Name, Hook: hook, Value: obj})
	}
	return nil
}

// all returns the objects of type T.
func all[T any](r *rendered) []T {
	var out []T
	for _, o := range r.Objects {
		if v, ok := o.Value.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// named returns the object of type T with the given name, or nil.
func named[T interface{ GetName() string }](r *rendered, name string) T {
	for _, v := range all[T](r) {
		if v.GetName() == name {
			return v
		}
	}
	var zero T
	return zero
}

// hookOf returns the hook an object was rendered as, or nil.
func (r *rendered) hookOf(kind, name string) *release.Hook {
	for _, o := range r.Objects {
		if o.Kind == kind && o.Name == name {
			return o.Hook
		}
	}
	return nil
}

// component returns the object of type T labelled with the service's component.
func component[T interface{ GetLabels() map[string]string }](r *rendered, svc string) []T {
	var out []T
	for _, v := range all[T](r) {
		if v.GetLabels()["app.kubernetes.io/component"] == svc {
			out = append(out, v)
		}
	}
	return out
}

// kinds lists the rendered kinds, for failure messages.
func (r *rendered) kinds() []string {
	var out []string
	for _, o := range r.Objects {
		out = append(out, o.Kind+"/"+o.Name)
	}
	slices.Sort(out)
	return out
}
