package chartcheck

import (
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// consoleConfig is the console's configuration struct, whose defaults the chart's are.
const consoleConfig = "../../pkg/console/config.go"

// envDefault finds `env:"NAME" envDefault:"VALUE"` pairs.
var envDefault = regexp.MustCompile(`env:"([A-Z0-9_]+)"\s+envDefault:"([^"]*)"`)

// The console's settings in the chart default to the code's own defaults, except the
// page renderer's memory limit, which the chart keeps below the container's limit.
func TestConsoleDefaultsAreTheCodes(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(consoleConfig)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRender(t, defaults())
	cm := configMap(t, r, "console")
	d := deployment(t, r, "console")
	found := 0
	for _, m := range envDefault.FindAllStringSubmatch(string(src), -1) {
		name, want := m[1], m[2]
		found++
		got, ok := cm.Data[name]
		if e := envVar(d, name); e != nil {
			got, ok = e.Value, true
		}
		switch {
		case name == "DOCEVAL_TOOL_MAX_MEMORY":
			if got == "" || got == want {
				t.Errorf("%s = %q: the chart's limit should be its own, below the container's 2Gi", name, got)
			}
		case !ok:
			t.Errorf("%s is not set by the chart", name)
		case got != want:
			t.Errorf("%s = %q in the chart, %q in %s", name, got, want, consoleConfig)
		}
	}
	if found < 8 {
		t.Fatalf("only %d defaults found in %s", found, consoleConfig)
	}
	// Without an ingress or publicURL there is no public URL, and no single sign-on.
	for _, name := range []string{"DOCEVAL_CONSOLE_PUBLIC_URL", "DOCEVAL_CONSOLE_OIDC_ISSUER", "DOCEVAL_CONSOLE_OIDC_CLIENT_ID"} {
		if v, ok := cm.Data[name]; ok {
			t.Errorf("%s = %q by default", name, v)
		}
	}
	if envVar(d, "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET") != nil {
		t.Error("an OIDC client secret without one given")
	}
	if ing := component[*networkingv1.Ingress](r, "console"); len(ing) != 0 {
		t.Errorf("a console Ingress by default: %v", ing[0].Name)
	}
	if !strings.Contains(r.Notes, "svc/doceval-console") || !strings.Contains(r.Notes, "operators create") {
		t.Errorf("NOTES do not say how to reach the console:\n%s", r.Notes)
	}
}

// console.enabled=false renders nothing of the console, and nothing else changes.
func TestConsoleDisabled(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(defaults(), overlay(set("console.enabled=false",
		"console.oidc.issuer=https://login.example.com", "console.oidc.clientId=c", "console.oidc.clientSecret=s",
		"console.ingress.enabled=true", "networkPolicy.egress.enabled=true"),
		map[string]any{"console": map[string]any{"ingress": map[string]any{"hosts": []any{map[string]any{"host": "c.example.com"}}}}})))
	for _, o := range r.Objects {
		if strings.Contains(o.Name, "console") {
			t.Errorf("%s %s rendered with the console disabled", o.Kind, o.Name)
		}
	}
	if s := named[*corev1.Secret](r, "doceval"); s == nil || s.Data["DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"] != nil {
		t.Errorf("chart Secret with the console disabled: %+v", s)
	}
	metrics := named[*networkingv1.NetworkPolicy](r, "doceval-metrics")
	if metrics == nil || slices.Contains(metrics.Spec.PodSelector.MatchExpressions[0].Values, "console") {
		t.Errorf("metrics policy: %+v", metrics)
	}
	if got := renderedServices(r); !slices.Equal(got, []string{"api", "ingest", "evaluator", "dispatcher"}) {
		t.Errorf("services %v", got)
	}
	checkNetworkPolicies(t, r, true)
	if strings.Contains(r.Notes, "console") {
		t.Errorf("NOTES speak of a console that is not there:\n%s", r.Notes)
	}
}

// DOCEVAL_PUBLIC_URL (the server the api's served spec names) is api.config.publicURL,
// else the first ingress host, https when a TLS entry names it, else unset.
func TestAPIPublicURL(t *testing.T) {
	t.Parallel()
	withIngress := func(tls []any) map[string]any {
		return map[string]any{"ingress": map[string]any{"enabled": true,
			"hosts": []any{map[string]any{"host": "api.example.com"}}, "tls": tls}}
	}
	tls := []any{map[string]any{"secretName": "tls", "hosts": []any{"api.example.com"}}}
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"none":                     {nil, ""},
		"explicit":                 {set("api.config.publicURL=https://doceval.bank.example/api"), "https://doceval.bank.example/api"},
		"explicit over ingress":    {overlay(withIngress(tls), set("api.config.publicURL=https://x.example")), "https://x.example"},
		"ingress host with TLS":    {withIngress(tls), "https://api.example.com"},
		"ingress host without TLS": {withIngress(nil), "http://api.example.com"},
	} {
		r := mustRender(t, overlay(defaults(), tc.vals))
		if got := configMap(t, r, "api").Data["DOCEVAL_PUBLIC_URL"]; got != tc.want {
			t.Errorf("%s: DOCEVAL_PUBLIC_URL = %q, want %q", name, got, tc.want)
		}
	}
	if _, err := render(t, overlay(defaults(), set("api.config.publicURL=api.example.com"))); err == nil {
		t.Error("a public URL without a scheme rendered")
	}
}

// DOCEVAL_CONSOLE_PUBLIC_URL is console.publicURL, else the first console.ingress host,
// https when a TLS entry names it.
func TestConsolePublicURL(t *testing.T) {
	t.Parallel()
	ingress := []any{map[string]any{"host": "console.example.com"}, map[string]any{"host": "other.example.com"}}
	tls := []any{map[string]any{"secretName": "tls", "hosts": []any{"console.example.com"}}}
	otherTLS := []any{map[string]any{"secretName": "tls", "hosts": []any{"other.example.com"}}}
	withIngress := func(tls []any) map[string]any {
		return map[string]any{"console": map[string]any{"ingress": map[string]any{"enabled": true, "hosts": ingress, "tls": tls}}}
	}
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"explicit":                 {set("console.publicURL=https://staff.example.com/console"), "https://staff.example.com/console"},
		"explicit over ingress":    {overlay(withIngress(tls), set("console.publicURL=https://staff.example.com")), "https://staff.example.com"},
		"ingress host with TLS":    {withIngress(tls), "https://console.example.com"},
		"ingress host without TLS": {withIngress(nil), "http://console.example.com"},
		"TLS for another host":     {withIngress(otherTLS), "http://console.example.com"},
	} {
		r := mustRender(t, overlay(defaults(), tc.vals))
		if got := configMap(t, r, "console").Data["DOCEVAL_CONSOLE_PUBLIC_URL"]; got != tc.want {
			t.Errorf("%s: DOCEVAL_CONSOLE_PUBLIC_URL = %q, want %q", name, got, tc.want)
		}
		if !strings.Contains(r.Notes, tc.want+"/") {
			t.Errorf("%s: NOTES do not show %s:\n%s", name, tc.want, r.Notes)
		}
	}
}

// Single sign-on: issuer and client id in the ConfigMap, the client secret from the
// chart's Secret or the operator's, and (with egress policies) a way out to the provider.
func TestConsoleOIDC(t *testing.T) {
	t.Parallel()
	oidc := set("console.publicURL=https://console.example.com", "console.oidc.issuer=https://login.example.com/realms/staff",
		"console.oidc.clientId=doceval-console", "console.oidc.clientSecret=s3cret", "networkPolicy.egress.enabled=true")
	r := mustRender(t, overlay(defaults(), oidc))
	cm := configMap(t, r, "console")
	if cm.Data["DOCEVAL_CONSOLE_OIDC_ISSUER"] != "https://login.example.com/realms/staff" || cm.Data["DOCEVAL_CONSOLE_OIDC_CLIENT_ID"] != "doceval-console" {
		t.Errorf("console ConfigMap: %v", cm.Data)
	}
	if _, ok := cm.Data["DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"]; ok {
		t.Error("the OIDC client secret is in a ConfigMap")
	}
	d := deployment(t, r, "console")
	ref := secretRef(envVar(d, "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"))
	if s := named[*corev1.Secret](r, "doceval"); ref == nil || ref.Name != "doceval" || s == nil ||
		string(s.Data[ref.Key]) != "s3cret" {
		t.Errorf("client secret from %+v", ref)
	}
	egress := named[*networkingv1.NetworkPolicy](r, "doceval-console-oidc")
	if egress == nil || !matches(egress.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels) ||
		len(egress.Spec.Egress) != 1 || egress.Spec.Egress[0].Ports[0].Port.IntValue() != 443 {
		t.Errorf("egress to the provider: %+v", egress)
	}

	r = mustRender(t, overlay(defaults(), overlay(oidc, set("console.oidc.existingSecret.name=console-oidc", "console.oidc.existingSecret.key=secret"))))
	if ref := secretRef(envVar(deployment(t, r, "console"), "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET")); ref == nil || ref.Name != "console-oidc" || ref.Key != "secret" {
		t.Errorf("client secret from %+v, want console-oidc/secret", ref)
	}
	if s := named[*corev1.Secret](r, "doceval"); s != nil && s.Data["DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET"] != nil {
		t.Error("the chart's Secret holds the client secret next to an existing Secret")
	}

	r = mustRender(t, overlay(defaults(), set("networkPolicy.egress.enabled=true")))
	if named[*networkingv1.NetworkPolicy](r, "doceval-console-oidc") != nil {
		t.Error("egress to an OIDC provider without single sign-on")
	}
}

// The production values run the console like the api: autoscaled from two replicas,
// a budget that keeps one up, spread over nodes, on its own TLS host reached only from
// the ingress controller, and scraped.
func TestConsoleProduction(t *testing.T) {
	t.Parallel()
	r := mustRender(t, production(t))
	if hpa := named[*autoscalingv2.HorizontalPodAutoscaler](r, "doceval-console"); hpa == nil || deref(hpa.Spec.MinReplicas) < 2 {
		t.Errorf("console HPA: %+v", hpa)
	} else {
		checkHPA(t, hpa, "console")
	}
	if pdb := named[*policyv1.PodDisruptionBudget](r, "doceval-console"); pdb == nil || pdb.Spec.MinAvailable == nil {
		t.Errorf("console PDB: %+v", pdb)
	}
	ing := named[*networkingv1.Ingress](r, "doceval-console")
	if ing == nil || len(ing.Spec.Rules) != 1 || len(ing.Spec.TLS) != 1 || !slices.Contains(ing.Spec.TLS[0].Hosts, ing.Spec.Rules[0].Host) {
		t.Fatalf("console ingress: %+v", ing)
	}
	api := named[*networkingv1.Ingress](r, "doceval-api")
	if api == nil || ing.Spec.Rules[0].Host == api.Spec.Rules[0].Host {
		t.Errorf("the console shares the api's host")
	}
	if b := ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service; b.Name != "doceval-console" || b.Port.Name != "http" {
		t.Errorf("console ingress backend %+v", b)
	}
	// A second factor from the start: enrolment trusts whoever first signs in with the
	// password once it is required.
	if got := configMap(t, r, "console").Data["DOCEVAL_CONSOLE_REQUIRE_MFA"]; got != "true" {
		t.Errorf("production DOCEVAL_CONSOLE_REQUIRE_MFA = %q", got)
	}
	if got := configMap(t, r, "console").Data["DOCEVAL_CONSOLE_PUBLIC_URL"]; got != "https://"+ing.Spec.Rules[0].Host {
		t.Errorf("DOCEVAL_CONSOLE_PUBLIC_URL = %q with host %s", got, ing.Spec.Rules[0].Host)
	}
	if p := named[*networkingv1.NetworkPolicy](r, "doceval-console"); p == nil || len(p.Spec.Ingress[0].From) == 0 ||
		p.Spec.Ingress[0].From[0].NamespaceSelector == nil {
		t.Errorf("the console is open to every pod: %+v", p)
	}
	if sm := component[*monitoringv1.ServiceMonitor](r, "console"); len(sm) != 1 {
		t.Errorf("console ServiceMonitors: %d", len(sm))
	}
	if d := named[*appsv1.Deployment](r, "doceval-console"); d == nil || mountAt(d, "/var/lib/doceval/blobs") != nil {
		t.Error("an s3:// blob URL with a blob volume in the console")
	}
}

// The console's /readyz and /metrics are on its internal ops port: the probes and the
// ServiceMonitor use it, and neither its public Service (even a LoadBalancer) nor its
// Ingress carries it.
func TestConsoleOpsPortInternal(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(defaults(), overlay(set("console.ingress.enabled=true", "console.service.type=LoadBalancer", "serviceMonitor.enabled=true"),
		map[string]any{"console": map[string]any{"ingress": map[string]any{"hosts": []any{map[string]any{"host": "c.example.com"}}}}})))
	c := deployment(t, r, "console").Spec.Template.Spec.Containers[0]
	if portNumber(c, "http") != 8080 || portNumber(c, "metrics") != 9090 {
		t.Fatalf("console container ports %+v", c.Ports)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
		if p.HTTPGet.Port.String() != "metrics" {
			t.Errorf("%s probe on %s", name, p.HTTPGet.Port.String())
		}
	}
	if v := envVar(deployment(t, r, "console"), "DOCEVAL_OPS_ADDR"); v == nil || v.Value != ":9090" {
		t.Errorf("DOCEVAL_OPS_ADDR = %+v", v)
	}
	public := named[*corev1.Service](r, "doceval-console")
	if public == nil || public.Spec.Type != corev1.ServiceTypeLoadBalancer {
		t.Fatalf("public Service %+v", public)
	}
	for _, p := range public.Spec.Ports {
		if p.TargetPort.String() != "http" {
			t.Errorf("the public Service carries %s", p.TargetPort.String())
		}
	}
	if m := named[*corev1.Service](r, "doceval-console-metrics"); m == nil || m.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("metrics Service %+v", m)
	}
	for _, ing := range component[*networkingv1.Ingress](r, "console") {
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				if p.Backend.Service.Name != "doceval-console" || p.Backend.Service.Port.Name != "http" {
					t.Errorf("the Ingress routes %s to %+v", p.Path, p.Backend.Service)
				}
			}
		}
	}
	sms := component[*monitoringv1.ServiceMonitor](r, "console")
	if len(sms) != 1 || sms[0].Spec.Endpoints[0].Port != "metrics" {
		t.Errorf("ServiceMonitor %+v", sms)
	}
}

// The console and the api trust no proxy's X-Forwarded-For unless told which (the
// default, like the code's, is empty), and the production overlay's placeholders trust
// no real address: trusting a whole private range lets a client inside it (a VPN user,
// another pod) forge X-Forwarded-For and escape the sign-in throttling or the limit on
// invalid API keys.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	for component, key := range map[string]string{"console": "DOCEVAL_CONSOLE_TRUSTED_PROXIES", "api": "DOCEVAL_TRUSTED_PROXIES"} {
		if got, ok := configMap(t, mustRender(t, defaults()), component).Data[key]; !ok || got != "" {
			t.Errorf("%s = %q by default, want empty", key, got)
		}
		got := configMap(t, mustRender(t, production(t)), component).Data[key]
		if got == "" {
			t.Fatalf("the production overlay has no %s trustedProxies placeholder to replace", component)
		}
		private := []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16"),
			netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("fc00::/7"),
		}
		for _, part := range strings.Split(got, ",") {
			p, err := netip.ParsePrefix(strings.TrimSpace(part))
			if err != nil {
				t.Fatalf("production %s trustedProxies %q: %v", component, got, err)
			}
			for _, r := range private {
				if p.Overlaps(r) {
					t.Errorf("production %s trustedProxies %q trusts part of %s", component, got, r)
				}
			}
		}
	}
}
