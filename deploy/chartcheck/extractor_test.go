package chartcheck

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// extractorCallers are the services that send documents to the extractor.
var extractorCallers = []string{"ingest", "console"}

// credentialEnv are the variables that carry a credential somewhere in the chart.
var credentialEnv = []string{
	"DATABASE_URL", "NATS_URL", "DOCEVAL_SECRET_KEY", "DOCEVAL_LLM_API_KEY", "AWS_ACCESS_KEY_ID",
	"AWS_SECRET_ACCESS_KEY", "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET", "OTEL_EXPORTER_OTLP_HEADERS",
}

// extractorCases render the chart with the defaults, the production values, and every
// secret given inline with every policy on (the most there is to leak), so a
// credential cannot reach the extractor through any of them.
func extractorCases(t *testing.T) map[string]map[string]any {
	return map[string]map[string]any{
		"defaults":   defaults(),
		"production": production(t),
		"everything": overlay(overlay(defaults(), map[string]any{
			"serviceAccount": map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/doceval"}},
		}), set(
			"llm.baseUrl=https://llm.example/v1", "llm.model=m", "llm.apiKey=k",
			"blob.s3.accessKeyId=id", "blob.s3.secretAccessKey=secret",
			"otel.endpoint=http://collector:4318", "otel.headersSecret.name=otel",
			"console.publicURL=https://console.example.com", "console.oidc.issuer=https://login.example.com",
			"console.oidc.clientId=c", "console.oidc.clientSecret=s3cret",
			"networkPolicy.egress.enabled=true", "serviceMonitor.enabled=true",
		)),
	}
}

// The extractor's pod holds no credential: no Secret in its env or envFrom, no
// ConfigMap of the services, no volume but its own emptyDir (so none it shares with a
// pod that has credentials), its own ServiceAccount without a token or annotations
// (an IRSA role on the shared one stays there), and no value of any rendered Secret.
func TestExtractorHoldsNoCredentials(t *testing.T) {
	t.Parallel()
	for name, vals := range extractorCases(t) {
		r := mustRender(t, vals)
		d := deployment(t, r, "extractor")
		pod := d.Spec.Template.Spec
		if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 || len(pod.EphemeralContainers) != 0 {
			t.Fatalf("%s: %d containers, %d init containers", name, len(pod.Containers), len(pod.InitContainers))
		}
		c := pod.Containers[0]
		for _, e := range c.Env {
			if e.ValueFrom != nil && (e.ValueFrom.SecretKeyRef != nil || e.ValueFrom.ConfigMapKeyRef != nil) {
				t.Errorf("%s: %s read from %+v", name, e.Name, e.ValueFrom)
			}
			if slices.Contains(credentialEnv, e.Name) {
				t.Errorf("%s: the extractor gets %s", name, e.Name)
			}
			for _, s := range all[*corev1.Secret](r) {
				for k, v := range s.Data {
					if len(v) > 0 && strings.Contains(e.Value, string(v)) {
						t.Errorf("%s: %s carries the value of Secret %s key %s", name, e.Name, s.Name, k)
					}
				}
			}
		}
		if len(c.EnvFrom) != 0 {
			t.Errorf("%s: envFrom %+v", name, c.EnvFrom)
		}
		if len(pod.Volumes) != 1 || pod.Volumes[0].EmptyDir == nil {
			t.Errorf("%s: volumes %+v, want only the emptyDir /tmp", name, pod.Volumes)
		}
		if m := mountAt(d, "/tmp"); m == nil || volume(d, m.Name).EmptyDir == nil || len(c.VolumeMounts) != 1 {
			t.Errorf("%s: mounts %+v", name, c.VolumeMounts)
		}
		if isTrue(pod.AutomountServiceAccountToken) || pod.AutomountServiceAccountToken == nil {
			t.Errorf("%s: the pod mounts its service account token", name)
		}
		sa := named[*corev1.ServiceAccount](r, pod.ServiceAccountName)
		if pod.ServiceAccountName != "doceval-extractor" || sa == nil || sa.AutomountServiceAccountToken == nil ||
			*sa.AutomountServiceAccountToken || len(sa.Annotations) != 0 || len(sa.Secrets) != 0 {
			t.Errorf("%s: service account %q: %+v", name, pod.ServiceAccountName, sa)
		}
		for _, other := range all[*appsv1.Deployment](r) {
			if other.Name != d.Name && other.Spec.Template.Spec.ServiceAccountName == pod.ServiceAccountName {
				t.Errorf("%s: %s shares the extractor's service account", name, other.Name)
			}
		}
		if v := envVar(d, "DOCEVAL_PARSER_ISOLATION"); v == nil || v.Value != "unconfined" {
			t.Errorf("%s: DOCEVAL_PARSER_ISOLATION = %+v, want unconfined (the pod is the boundary)", name, v)
		}
		have := containerEnv(t, r, c)
		for _, v := range extractorEnv {
			if !have[v] {
				t.Errorf("%s: %s is not wired into the extractor", name, v)
			}
		}
	}
}

// The extractor runs hardened whatever the values say: non-root, a read-only root, no
// capabilities, no privilege escalation, the runtime's seccomp profile, bounded
// resources, and a grace period that lets a document in work finish.
func TestExtractorHardened(t *testing.T) {
	t.Parallel()
	loose := overlay(defaults(), map[string]any{
		"podSecurityContext": map[string]any{"runAsNonRoot": false, "runAsUser": 0},
		"securityContext":    map[string]any{"readOnlyRootFilesystem": false, "allowPrivilegeEscalation": true},
	})
	for name, vals := range map[string]map[string]any{"defaults": defaults(), "production": production(t), "loosened values": loose} {
		r := mustRender(t, vals)
		d := deployment(t, r, "extractor")
		pod, c := d.Spec.Template.Spec, d.Spec.Template.Spec.Containers[0]
		psc, sc := pod.SecurityContext, c.SecurityContext
		if psc == nil || !isTrue(psc.RunAsNonRoot) || deref(psc.RunAsUser) == 0 || psc.SeccompProfile == nil ||
			psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s: pod security context %+v", name, psc)
		}
		if sc == nil || !isTrue(sc.ReadOnlyRootFilesystem) || !isTrue(sc.RunAsNonRoot) || sc.AllowPrivilegeEscalation == nil ||
			*sc.AllowPrivilegeEscalation || sc.Privileged != nil && *sc.Privileged || sc.Capabilities == nil ||
			!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 ||
			sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s: container security context %+v", name, sc)
		}
		if pod.HostNetwork || pod.HostPID || pod.HostIPC || isTrue(pod.ShareProcessNamespace) {
			t.Errorf("%s: the pod shares a host namespace", name)
		}
		for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, lim := c.Resources.Requests[res], c.Resources.Limits[res]
			if req.IsZero() || lim.IsZero() || lim.Cmp(req) < 0 {
				t.Errorf("%s: %s request %s, limit %s", name, res, req.String(), lim.String())
			}
		}
		for probe, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
			if p == nil || p.HTTPGet == nil || portNumber(c, p.HTTPGet.Port.String()) != 9090 {
				t.Errorf("%s: %s probe %+v, want one on the ops port", name, probe, p)
			}
		}
		shutdown, err := time.ParseDuration(envVar(d, "DOCEVAL_SHUTDOWN_TIMEOUT").Value)
		if err != nil {
			t.Fatal(err)
		}
		fileTimeout, _ := time.ParseDuration(configMap(t, r, "ingest").Data["DOCEVAL_INGEST_FILE_TIMEOUT"])
		maxTimeout, _ := time.ParseDuration(envVar(d, "DOCEVAL_EXTRACTOR_MAX_TIMEOUT").Value)
		if shutdown <= fileTimeout || maxTimeout != fileTimeout {
			t.Errorf("%s: shutdown %s, max timeout %s, ingest's file budget %s", name, shutdown, maxTimeout, fileTimeout)
		}
		var preStop time.Duration
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
			preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
		}
		if g := pod.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= shutdown+preStop {
			t.Errorf("%s: grace period %v within the drain %s", name, g, shutdown+preStop)
		}
		if !strings.HasPrefix(c.Image, "ghcr.io/doceval/doceval-extractor:") {
			t.Errorf("%s: image %s", name, c.Image)
		}
	}
}

// No connection leaves the extractor: a NetworkPolicy selecting it denies egress and
// no policy selecting it allows any, with or without the chart's own policies on. Its
// port admits ingest and console pods only; its ops port monitoring.
func TestExtractorNetworkPolicy(t *testing.T) {
	t.Parallel()
	cases := extractorCases(t)
	cases["policies off"] = overlay(defaults(), set("networkPolicy.enabled=false"))
	for name, vals := range cases {
		r := mustRender(t, vals)
		d := deployment(t, r, "extractor")
		podLabels := d.Spec.Template.Labels
		denied := false
		for _, p := range policiesSelecting(t, r, podLabels) {
			if slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
				denied = true
				if len(p.Spec.Egress) != 0 {
					t.Errorf("%s: policy %s lets the extractor out: %+v", name, p.Name, p.Spec.Egress)
				}
			}
			if !slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
				continue
			}
			for _, rule := range p.Spec.Ingress {
				if len(rule.Ports) == 0 {
					t.Errorf("%s: policy %s admits every port of the extractor", name, p.Name)
				}
				for _, port := range rule.Ports {
					switch port.Port.String() {
					case "metrics", "9090":
						continue
					case "http", "8080":
						if len(rule.From) == 0 {
							t.Errorf("%s: policy %s admits anyone to the extractor", name, p.Name)
						}
						for _, peer := range rule.From {
							if peer.PodSelector == nil || peer.NamespaceSelector != nil || peer.IPBlock != nil ||
								!slices.ContainsFunc(extractorCallers, func(svc string) bool {
									return matches(peer.PodSelector.MatchLabels, deployment(t, r, svc).Spec.Template.Labels)
								}) {
								t.Errorf("%s: policy %s admits %+v to the extractor", name, p.Name, peer)
							}
						}
					default:
						t.Errorf("%s: policy %s opens port %s of the extractor", name, p.Name, port.Port.String())
					}
				}
			}
		}
		if !denied {
			t.Errorf("%s: no NetworkPolicy denies the extractor's egress", name)
		}
		// Both callers are admitted (a policy selecting the extractor lets each in).
		for _, svc := range extractorCallers {
			caller := deployment(t, r, svc).Spec.Template.Labels
			if !slices.ContainsFunc(policiesSelecting(t, r, podLabels), func(p *networkingv1.NetworkPolicy) bool {
				return slices.ContainsFunc(p.Spec.Ingress, func(rule networkingv1.NetworkPolicyIngressRule) bool {
					return slices.ContainsFunc(rule.From, func(peer networkingv1.NetworkPolicyPeer) bool {
						return peer.PodSelector != nil && matches(peer.PodSelector.MatchLabels, caller)
					})
				})
			}) {
				t.Errorf("%s: %s may not reach the extractor", name, svc)
			}
		}
	}
}

// Ingest and the console are told where the extractor is: its Service, whose port
// leads to the extractor's; with egress policies on they may reach it.
func TestExtractorCallers(t *testing.T) {
	t.Parallel()
	for name, vals := range extractorCases(t) {
		r := mustRender(t, vals)
		svc := named[*corev1.Service](r, "doceval-extractor")
		x := deployment(t, r, "extractor")
		if svc == nil || !matches(svc.Spec.Selector, x.Spec.Template.Labels) {
			t.Fatalf("%s: extractor Service %+v", name, svc)
		}
		var port corev1.ServicePort
		for _, p := range svc.Spec.Ports {
			if p.Name == "http" {
				port = p
			}
		}
		if port.Port == 0 || portNumber(x.Spec.Template.Spec.Containers[0], port.TargetPort.String()) == 0 {
			t.Fatalf("%s: extractor Service ports %+v", name, svc.Spec.Ports)
		}
		want := "http://doceval-extractor:" + itoa(port.Port)
		egress := strings.Contains(name, "everything")
		for _, caller := range extractorCallers {
			if got := configMap(t, r, caller).Data["DOCEVAL_EXTRACTOR_URL"]; got != want {
				t.Errorf("%s, %s: DOCEVAL_EXTRACTOR_URL = %q, want %q", name, caller, got, want)
			}
			if !egress {
				continue
			}
			labels := deployment(t, r, caller).Spec.Template.Labels
			if !slices.ContainsFunc(policiesSelecting(t, r, labels), func(p *networkingv1.NetworkPolicy) bool {
				return slices.ContainsFunc(p.Spec.Egress, func(rule networkingv1.NetworkPolicyEgressRule) bool {
					return len(rule.To) == 1 && rule.To[0].PodSelector != nil && matches(rule.To[0].PodSelector.MatchLabels, x.Spec.Template.Labels) &&
						len(rule.Ports) == 1 && portNumber(x.Spec.Template.Spec.Containers[0], rule.Ports[0].Port.String()) == 8080
				})
			}) {
				t.Errorf("%s: %s has no egress to the extractor", name, caller)
			}
		}
		for _, svc := range []string{"api", "evaluator", "dispatcher"} {
			if _, ok := configMap(t, r, svc).Data["DOCEVAL_EXTRACTOR_URL"]; ok {
				t.Errorf("%s: %s is given the extractor", name, svc)
			}
		}
	}
}

// extractor.enabled=false: no extractor objects, and ingest and the console parse in
// their own pods (no DOCEVAL_EXTRACTOR_URL).
func TestExtractorDisabled(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(defaults(), set("extractor.enabled=false", "networkPolicy.egress.enabled=true")))
	for _, o := range r.Objects {
		if strings.Contains(o.Name, "extractor") {
			t.Errorf("%s %s rendered with the extractor off", o.Kind, o.Name)
		}
	}
	for _, svc := range extractorCallers {
		if _, ok := configMap(t, r, svc).Data["DOCEVAL_EXTRACTOR_URL"]; ok {
			t.Errorf("%s: DOCEVAL_EXTRACTOR_URL without an extractor", svc)
		}
	}
}

// policiesSelecting are the NetworkPolicies whose pod selector (labels and
// expressions) selects a pod with these labels.
func policiesSelecting(t *testing.T, r *rendered, podLabels map[string]string) []*networkingv1.NetworkPolicy {
	t.Helper()
	var out []*networkingv1.NetworkPolicy
	for _, p := range all[*networkingv1.NetworkPolicy](r) {
		sel, err := metav1.LabelSelectorAsSelector(&p.Spec.PodSelector)
		if err != nil {
			t.Fatalf("policy %s: %v", p.Name, err)
		}
		if sel.Matches(labels.Set(podLabels)) {
			out = append(out, p)
		}
	}
	return out
}
