package chartcheck

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// defaults are the chart's default values plus the two required values.
func defaults() map[string]any {
	return set("secretKey.value="+testSecretKey, "console.secretKey.value="+testConsoleSecretKey)
}

// production are values-production.yaml as they are (every secret from an existing
// Secret, so nothing else is needed).
func production(t *testing.T) map[string]any { return valuesFile(t, "values-production.yaml") }

// The default values render a complete installation: every service runs hardened with
// probes, resources and a grace period beyond its drain, under a CPU autoscaler and a
// disruption budget, after the migration hook.
func TestDefaultValues(t *testing.T) {
	t.Parallel()
	r := mustRender(t, defaults())
	for _, svc := range services {
		checkDeployment(t, r, svc)
		if hpa := named[*autoscalingv2.HorizontalPodAutoscaler](r, "doceval-"+svc); hpa == nil {
			t.Errorf("%s: no HorizontalPodAutoscaler", svc)
		} else {
			checkHPA(t, hpa, svc)
		}
		checkPDB(t, r, svc)
		checkService(t, r, svc)
	}
	if so := all[*scaledObject](r); len(so) != 0 {
		t.Errorf("ScaledObjects without keda.enabled: %d", len(so))
	}
	if sm := all[*monitoringv1.ServiceMonitor](r); len(sm) != 0 {
		t.Errorf("ServiceMonitors without serviceMonitor.enabled: %d", len(sm))
	}
	checkMigration(t, r)
	checkNetworkPolicies(t, r, false)

	// A file:// blob URL: one shared claim, mounted where the URL points in the services
	// that read or write blobs.
	pvc := named[*corev1.PersistentVolumeClaim](r, "doceval-blobs")
	if pvc == nil || !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Fatalf("blob claim: %+v", pvc)
	}
	for _, svc := range blobServices {
		d := deployment(t, r, svc)
		if m := mountAt(d, "/var/lib/doceval/blobs"); m == nil || volume(d, m.Name).PersistentVolumeClaim == nil ||
			volume(d, m.Name).PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("%s: the blob claim is not mounted at /var/lib/doceval/blobs", svc)
		}
	}
	if !strings.Contains(r.Notes, "ReadWriteMany") || !strings.Contains(r.Notes, "WARNING: database.url") {
		t.Errorf("NOTES do not warn about the trial defaults:\n%s", r.Notes)
	}
}

// The production values: KEDA scales the workers on their JetStream consumers (and the
// chart renders no competing HPA for them), the api keeps its CPU HPA from three
// replicas, every budget keeps a pod up, streams are replicated three times, blobs are
// in S3, and all secrets come from existing Secrets.
func TestProductionValues(t *testing.T) {
	t.Parallel()
	r := mustRender(t, production(t))
	for _, svc := range services {
		checkDeployment(t, r, svc)
		checkPDB(t, r, svc)
		checkService(t, r, svc)
		pdb := named[*policyv1.PodDisruptionBudget](r, "doceval-"+svc)
		if pdb == nil || pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() < 1 {
			t.Errorf("%s: production PDB without minAvailable: %+v", svc, pdb)
		}
		if cm := configMap(t, r, svc); cm.Data["DOCEVAL_STREAM_REPLICAS"] != "3" || !strings.HasPrefix(cm.Data["DOCEVAL_BLOB_URL"], "s3://") {
			t.Errorf("%s: stream replicas %q, blob URL %q", svc, cm.Data["DOCEVAL_STREAM_REPLICAS"], cm.Data["DOCEVAL_BLOB_URL"])
		}
		if d := deployment(t, r, svc); d.Spec.Replicas != nil {
			t.Errorf("%s: spec.replicas is set although an autoscaler owns it", svc)
		}
	}

	api := named[*autoscalingv2.HorizontalPodAutoscaler](r, "doceval-api")
	if api == nil || api.Spec.MinReplicas == nil || *api.Spec.MinReplicas < 3 {
		t.Fatalf("api HPA: %+v", api)
	}
	checkHPA(t, api, "api")
	wantConsumers := map[string][][2]string{ // service → (stream, durable) of pkg/ingest, pkg/evaluator, pkg/dispatch
		"ingest":     {{"DOCEVAL_JOBS", "ingest"}, {"DOCEVAL_JOBS", "purge"}},
		"evaluator":  {{"DOCEVAL_JOBS", "evaluator"}},
		"dispatcher": {{"DOCEVAL_EVENTS", "dispatcher"}},
	}
	for svc, want := range wantConsumers {
		if hpa := named[*autoscalingv2.HorizontalPodAutoscaler](r, "doceval-"+svc); hpa != nil {
			t.Errorf("%s: an HPA next to KEDA's", svc)
		}
		so := named[*scaledObject](r, "doceval-"+svc)
		if so == nil {
			t.Errorf("%s: no ScaledObject", svc)
			continue
		}
		if so.Spec.ScaleTargetRef.Name != "doceval-"+svc || so.Spec.MinReplicaCount == nil || *so.Spec.MinReplicaCount < 2 {
			t.Errorf("%s: ScaledObject target %q, min %v", svc, so.Spec.ScaleTargetRef.Name, so.Spec.MinReplicaCount)
		}
		var got [][2]string
		var queue []string
		for _, tr := range so.Spec.Triggers {
			if tr.Type == "prometheus" {
				checkMetadataKeys(t, svc, tr, prometheusMetadata)
				if tr.Metadata["serverAddress"] != "http://kube-prometheus-stack-prometheus.monitoring.svc:9090" || tr.Metadata["threshold"] == "" {
					t.Errorf("%s: prometheus trigger %v", svc, tr.Metadata)
				}
				queue = append(queue, tr.Metadata["query"])
				continue
			}
			if tr.Type != "nats-jetstream" {
				t.Errorf("%s: trigger type %q", svc, tr.Type)
			}
			checkMetadataKeys(t, svc, tr, natsJetStreamMetadata)
			if tr.Metadata["natsServerMonitoringEndpoint"] == "" || tr.Metadata["lagThreshold"] == "" {
				t.Errorf("%s: trigger metadata %v", svc, tr.Metadata)
			}
			got = append(got, [2]string{tr.Metadata["stream"], tr.Metadata["consumer"]})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: consumers %v, want %v", svc, got, want)
		}
		// ingest's and the evaluator's jobs wait in per-client queues (pkg/messaging
		// ConsumeFair, consumers "<durable>-<client>"), summed in the workers' gauges
		// under their durable's name.
		var wantQueue []string
		if durable := map[string]string{"ingest": "ingest", "evaluator": "evaluator"}[svc]; durable != "" {
			sel := fmt.Sprintf(`namespace="doceval",service="doceval-%s",stream="DOCEVAL_QUEUES",consumer=%q`, svc, durable)
			wantQueue = []string{fmt.Sprintf("max(doceval_jetstream_consumer_pending_messages{%s}) + max(doceval_jetstream_consumer_ack_pending_messages{%s})", sel, sel)}
		}
		if !slices.Equal(queue, wantQueue) {
			t.Errorf("%s: queue triggers %q, want %q", svc, queue, wantQueue)
		}
	}
	// Without Prometheus, KEDA could not see the queues: the chart refuses.
	if _, err := render(t, overlay(production(t), set("prometheus.serverAddress="))); err == nil ||
		!strings.Contains(err.Error(), "prometheus.serverAddress is needed for") {
		t.Errorf("KEDA without Prometheus: %v", err)
	}

	if sm := all[*monitoringv1.ServiceMonitor](r); len(sm) != len(services)+1 { // and the extractor's
		t.Errorf("ServiceMonitors: %d", len(sm))
	}
	if sms := component[*monitoringv1.ServiceMonitor](r, "extractor"); len(sms) != 1 || len(sms[0].Spec.Endpoints) != 1 ||
		sms[0].Spec.Endpoints[0].Port != "metrics" || sms[0].Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("extractor: ServiceMonitor %+v", sms)
	}
	for _, svc := range services {
		sms := component[*monitoringv1.ServiceMonitor](r, svc)
		if len(sms) != 1 || len(sms[0].Spec.Endpoints) != 1 || sms[0].Spec.Endpoints[0].Path != "/metrics" ||
			sms[0].Spec.Endpoints[0].Port != map[bool]string{true: "http", false: "metrics"}[slices.Contains(opsOnHTTP, svc)] {
			t.Errorf("%s: ServiceMonitor %+v", svc, sms)
		}
	}
	ing := named[*networkingv1.Ingress](r, "doceval-api")
	if ing == nil || len(ing.Spec.TLS) == 0 || ing.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] == "" {
		t.Fatalf("ingress: %+v", ing)
	}
	for _, rule := range ing.Spec.Rules {
		for _, p := range rule.HTTP.Paths {
			if p.Path == "/" || p.Path == "/metrics" {
				t.Errorf("the public host routes %s (it would expose /metrics)", p.Path)
			}
		}
	}
	if s := all[*corev1.Secret](r); len(s) != 0 {
		t.Errorf("production values use existing Secrets only, the chart rendered %d", len(s))
	}
	if pvc := all[*corev1.PersistentVolumeClaim](r); len(pvc) != 0 {
		t.Errorf("a blob claim with an s3:// URL")
	}
	checkMigration(t, r)
	job := named[*batchv1.Job](r, "doceval-migrate")
	if ref := job.Spec.Template.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef; ref.Name != "doceval-db-app" || ref.Key != "uri" {
		t.Errorf("production migration reads DATABASE_URL from %+v, want the direct doceval-db-app uri", ref)
	}
	checkNetworkPolicies(t, r, false)
	for _, svc := range services {
		if !slices.ContainsFunc(deployment(t, r, svc).Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			func(w corev1.WeightedPodAffinityTerm) bool {
				return w.PodAffinityTerm.TopologyKey == "kubernetes.io/hostname"
			}) {
			t.Errorf("%s: no anti-affinity over nodes", svc)
		}
	}
}

// With egress policies on, every pod may reach DNS, PostgreSQL and NATS, the evaluator
// its model and the dispatcher the internet without private ranges.
func TestEgressPolicies(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(production(t), set("networkPolicy.egress.enabled=true")))
	checkNetworkPolicies(t, r, true)
	base := named[*networkingv1.NetworkPolicy](r, "doceval-egress")
	ports := map[int]bool{}
	for _, rule := range base.Spec.Egress {
		for _, p := range rule.Ports {
			ports[p.Port.IntValue()] = true
		}
	}
	for _, p := range []int{53, 5432, 4222, 443, 4317} {
		if !ports[p] {
			t.Errorf("egress: port %d not allowed for every pod", p)
		}
	}
	if named[*networkingv1.NetworkPolicy](r, "doceval-evaluator-llm") == nil {
		t.Error("no egress to the language model")
	}
	hooks := named[*networkingv1.NetworkPolicy](r, "doceval-dispatcher-webhooks")
	if hooks == nil || len(hooks.Spec.Egress) != 1 || hooks.Spec.Egress[0].To[0].IPBlock == nil ||
		!slices.Contains(hooks.Spec.Egress[0].To[0].IPBlock.Except, "10.0.0.0/8") {
		t.Errorf("webhook egress: %+v", hooks)
	}
}

// Rendering without DOCEVAL_SECRET_KEY fails and says what to set.
func TestSecretKeyRequired(t *testing.T) {
	t.Parallel()
	_, err := render(t, map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "secretKey.value or secretKey.existingSecret.name is required") ||
		!strings.Contains(err.Error(), "openssl rand -base64 32") {
		t.Fatalf("render without a secret key: %v", err)
	}
	// An existing Secret is enough; the chart then renders no key of its own.
	r := mustRender(t, set("secretKey.existingSecret.name=mine", "console.secretKey.value="+testConsoleSecretKey))
	if s := named[*corev1.Secret](r, "doceval"); s == nil || s.Data["DOCEVAL_SECRET_KEY"] != nil {
		t.Errorf("chart Secret with an existing key Secret: %+v", s)
	}
	for _, svc := range []string{"api", "dispatcher"} {
		if ref := envVar(deployment(t, r, svc), "DOCEVAL_SECRET_KEY").ValueFrom.SecretKeyRef; ref.Name != "mine" || ref.Key != "DOCEVAL_SECRET_KEY" {
			t.Errorf("%s: DOCEVAL_SECRET_KEY from %+v", svc, ref)
		}
	}
}

// The console gets a key ring of its own, DOCEVAL_CONSOLE_SECRET_KEY, for staff TOTP
// secrets, and never DOCEVAL_SECRET_KEY: it may read webhook_endpoints, whose signing
// secrets that key opens. Without its key the chart refuses to render, and a console
// key that is the api's is refused.
func TestConsoleSecretKey(t *testing.T) {
	t.Parallel()
	for name, vals := range map[string]map[string]any{"defaults": defaults(), "production": production(t)} {
		r := mustRender(t, vals)
		d := deployment(t, r, "console")
		if envVar(d, "DOCEVAL_SECRET_KEY") != nil {
			t.Errorf("%s: the console gets DOCEVAL_SECRET_KEY", name)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, from := range c.EnvFrom {
				if from.SecretRef != nil {
					t.Errorf("%s: the console takes a whole Secret (%s), DOCEVAL_SECRET_KEY perhaps", name, from.SecretRef.Name)
				}
			}
		}
		ref := secretRef(envVar(d, "DOCEVAL_CONSOLE_SECRET_KEY"))
		switch {
		case ref == nil:
			t.Errorf("%s: the console gets no DOCEVAL_CONSOLE_SECRET_KEY", name)
		case name == "defaults" && (ref.Name != "doceval" || ref.Key != "DOCEVAL_CONSOLE_SECRET_KEY"):
			t.Errorf("defaults: DOCEVAL_CONSOLE_SECRET_KEY from %+v", ref)
		case name == "production" && (ref.Name != "doceval-console-secret-key" || ref.Key != "DOCEVAL_CONSOLE_SECRET_KEY"):
			t.Errorf("production: DOCEVAL_CONSOLE_SECRET_KEY from %+v", ref)
		}
		for _, svc := range services {
			if svc != "console" && envVar(deployment(t, r, svc), "DOCEVAL_CONSOLE_SECRET_KEY") != nil {
				t.Errorf("%s: %s gets DOCEVAL_CONSOLE_SECRET_KEY", name, svc)
			}
		}
	}
	if s := named[*corev1.Secret](mustRender(t, defaults()), "doceval"); s == nil || string(s.Data["DOCEVAL_CONSOLE_SECRET_KEY"]) != testConsoleSecretKey {
		t.Errorf("the chart's Secret lacks the console key: %+v", s)
	}
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"no console key":       {set("secretKey.value=" + testSecretKey), "console.secretKey.value or console.secretKey.existingSecret.name is required"},
		"the api's key":        {set("secretKey.value="+testSecretKey, "console.secretKey.value="+testSecretKey), "the console's key must be its own"},
		"the api's Secret key": {set("secretKey.existingSecret.name=keys", "console.secretKey.existingSecret.name=keys", "console.secretKey.existingSecret.key=DOCEVAL_SECRET_KEY"), "the console's key must be its own"},
	} {
		if _, err := render(t, tc.vals); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
	// Without the console, no console key is needed.
	mustRender(t, set("secretKey.value="+testSecretKey, "console.enabled=false"))
}

// Other configurations the chart refuses with a message instead of rendering pods that
// cannot work.
func TestRefusedConfigurations(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"file blobs without a shared volume":  {set("blob.persistence.enabled=false"), "blob.persistence.enabled is false"},
		"grace period shorter than the drain": {set("api.terminationGracePeriodSeconds=10"), "must exceed shutdownTimeoutSeconds"},
		"an ingress without hosts":            {set("ingress.enabled=true"), "ingress.hosts"},
		"a console ingress without hosts":     {set("console.ingress.enabled=true"), "console.ingress.hosts"},
		"single sign-on without a client id":  {set("console.publicURL=https://c.example.com", "console.oidc.issuer=https://login.example.com"), "console.oidc.clientId"},
		"single sign-on without a public URL": {set("console.oidc.issuer=https://login.example.com", "console.oidc.clientId=c"), "console.publicURL"},
	} {
		_, err := render(t, overlay(defaults(), tc.vals))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

// checkDeployment asserts what every service's Deployment must have.
func checkDeployment(t *testing.T, r *rendered, svc string) {
	t.Helper()
	d := deployment(t, r, svc)
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers", svc, len(pod.Containers))
	}
	c := pod.Containers[0]
	http := slices.Contains(httpServices, svc)
	wantPort := map[bool]int32{true: 8080, false: 9090}[slices.Contains(opsOnHTTP, svc)]

	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
		want := map[string]string{"liveness": "/healthz", "readiness": "/readyz", "startup": "/healthz"}[name]
		if p == nil || p.HTTPGet == nil {
			t.Errorf("%s: no HTTP %s probe", svc, name)
			continue
		}
		if p.HTTPGet.Path != want || portNumber(c, p.HTTPGet.Port.String()) != wantPort {
			t.Errorf("%s: %s probe %s on %s, want %s on %d", svc, name, p.HTTPGet.Path, p.HTTPGet.Port.String(), want, wantPort)
		}
	}
	addrs := map[string]int32{}
	if http {
		addrs["DOCEVAL_HTTP_ADDR"] = 8080
	}
	if !slices.Contains(opsOnHTTP, svc) {
		addrs["DOCEVAL_OPS_ADDR"] = 9090
	}
	for addr, port := range addrs {
		if v := envVar(d, addr); v == nil || v.Value != ":"+itoa(port) || portNumber(c, map[bool]string{true: "http", false: "metrics"}[addr == "DOCEVAL_HTTP_ADDR"]) != port {
			t.Errorf("%s: %s = %+v, want :%d on its container port", svc, addr, v, port)
		}
	}

	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := c.Resources.Requests[res], c.Resources.Limits[res]
		if req.IsZero() || lim.IsZero() || lim.Cmp(req) < 0 {
			t.Errorf("%s: %s request %s, limit %s", svc, res, req.String(), lim.String())
		}
	}

	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || !isTrue(psc.RunAsNonRoot) || deref(psc.RunAsUser) != 65532 || deref(psc.RunAsGroup) != 65532 ||
		deref(psc.FSGroup) != 65532 || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod security context %+v", svc, psc)
	}
	if sc == nil || !isTrue(sc.ReadOnlyRootFilesystem) || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("%s: container security context %+v", svc, sc)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("%s: the service account token is mounted", svc)
	}
	if m := mountAt(d, "/tmp"); m == nil || volume(d, m.Name).EmptyDir == nil {
		t.Errorf("%s: no writable /tmp", svc)
	}

	if v := envVar(d, "DOCEVAL_MIGRATE"); v == nil || v.Value != "false" {
		t.Errorf("%s: DOCEVAL_MIGRATE = %+v, want false (the hook migrates)", svc, v)
	}
	shutdown, err := time.ParseDuration(configMap(t, r, svc).Data["DOCEVAL_SHUTDOWN_TIMEOUT"])
	if err != nil {
		t.Fatalf("%s: DOCEVAL_SHUTDOWN_TIMEOUT: %v", svc, err)
	}
	var preStop time.Duration
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		if c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Exec != nil {
			t.Errorf("%s: preStop must be the sleep action (the image has no shell)", svc)
		} else {
			preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
		}
	}
	if http && preStop == 0 {
		t.Errorf("%s: no preStop sleep", svc)
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= shutdown+preStop {
		t.Errorf("%s: terminationGracePeriodSeconds %v not above the shutdown timeout %s plus preStop %s", svc, g, shutdown, preStop)
	}
	if svc == "evaluator" {
		// An evaluation in work is finished before the worker exits.
		budget, _ := time.ParseDuration(configMap(t, r, svc).Data["DOCEVAL_EVALUATION_TIMEOUT"])
		if time.Duration(*pod.TerminationGracePeriodSeconds)*time.Second <= budget {
			t.Errorf("evaluator: grace period %ds within the evaluation timeout %s", *pod.TerminationGracePeriodSeconds, budget)
		}
	}
	for _, a := range []string{"checksum/config", "checksum/secret"} {
		if d.Spec.Template.Annotations[a] == "" {
			t.Errorf("%s: no %s annotation (config changes would not roll the pods)", svc, a)
		}
	}
	if len(pod.TopologySpreadConstraints) == 0 {
		t.Errorf("%s: no topology spread", svc)
	}
	if !strings.HasPrefix(c.Image, "ghcr.io/doceval/doceval-"+svc+":") {
		t.Errorf("%s: image %s", svc, c.Image)
	}
	checkEnvWired(t, r, d, svc)
}

func checkHPA(t *testing.T, hpa *autoscalingv2.HorizontalPodAutoscaler, svc string) {
	t.Helper()
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != "doceval-"+svc ||
		hpa.Spec.MaxReplicas < deref(hpa.Spec.MinReplicas) {
		t.Errorf("%s: HPA %+v", svc, hpa.Spec)
	}
	if !slices.ContainsFunc(hpa.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
		return m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
	}) {
		t.Errorf("%s: HPA without a CPU utilization target", svc)
	}
}

func checkPDB(t *testing.T, r *rendered, svc string) {
	t.Helper()
	pdb := named[*policyv1.PodDisruptionBudget](r, "doceval-"+svc)
	if pdb == nil {
		t.Errorf("%s: no PodDisruptionBudget", svc)
		return
	}
	if (pdb.Spec.MinAvailable == nil) == (pdb.Spec.MaxUnavailable == nil) {
		t.Errorf("%s: PDB needs exactly one of minAvailable, maxUnavailable: %+v", svc, pdb.Spec)
	}
	if !matches(pdb.Spec.Selector.MatchLabels, deployment(t, r, svc).Spec.Template.Labels) {
		t.Errorf("%s: PDB selects %v", svc, pdb.Spec.Selector.MatchLabels)
	}
}

func checkService(t *testing.T, r *rendered, svc string) {
	t.Helper()
	s := named[*corev1.Service](r, "doceval-"+svc)
	if s == nil || len(s.Spec.Ports) != 1 || !matches(s.Spec.Selector, deployment(t, r, svc).Spec.Template.Labels) {
		t.Fatalf("%s: Service %+v", svc, s)
	}
	p := s.Spec.Ports[0]
	want := corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: p.TargetPort, Protocol: corev1.ProtocolTCP}
	if slices.Contains(httpServices, svc) {
		want.Name, want.Port = "http", 80
	}
	if p != want || p.TargetPort.String() != want.Name {
		t.Errorf("%s: Service port %+v, want %s %d → %s", svc, p, want.Name, want.Port, want.Name)
	}
	// An HTTP service with an internal ops port has it on a Service of its own.
	if slices.Contains(httpServices, svc) && !slices.Contains(opsOnHTTP, svc) {
		m := named[*corev1.Service](r, "doceval-"+svc+"-metrics")
		if m == nil || m.Spec.Type != corev1.ServiceTypeClusterIP || len(m.Spec.Ports) != 1 || m.Spec.Ports[0].Name != "metrics" ||
			m.Spec.Ports[0].Port != 9090 || m.Spec.Ports[0].TargetPort.String() != "metrics" || !matches(m.Spec.Selector, deployment(t, r, svc).Spec.Template.Labels) {
			t.Errorf("%s: metrics Service %+v", svc, m)
		}
	}
}

// checkMigration asserts the migration hook: it runs `migrate` before install and
// upgrade, hardened like the services, and the Secret it reads exists at hook time.
func checkMigration(t *testing.T, r *rendered) {
	t.Helper()
	job := named[*batchv1.Job](r, "doceval-migrate")
	if job == nil {
		t.Fatalf("no migration Job in %v", r.kinds())
	}
	hook := r.hookOf("Job", job.Name)
	if hook == nil || !slices.Equal(hook.Events, []release.HookEvent{release.HookPreInstall, release.HookPreUpgrade}) {
		t.Fatalf("migration Job is not a pre-install,pre-upgrade hook: %+v", hook)
	}
	if job.Annotations["helm.sh/hook-delete-policy"] != "before-hook-creation,hook-succeeded" ||
		job.Spec.BackoffLimit == nil || job.Spec.ActiveDeadlineSeconds == nil {
		t.Errorf("migration Job: %+v %+v", job.Annotations, job.Spec)
	}
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	if !slices.Equal(c.Args, []string{"migrate"}) || !strings.HasPrefix(c.Image, "ghcr.io/doceval/doceval-admin") {
		t.Errorf("migration runs %s %v", c.Image, c.Args)
	}
	if !isTrue(pod.SecurityContext.RunAsNonRoot) || !isTrue(c.SecurityContext.ReadOnlyRootFilesystem) ||
		*c.SecurityContext.AllowPrivilegeEscalation || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("migration pod security: %+v %+v", pod.SecurityContext, c.SecurityContext)
	}
	// A pre-install hook runs before the release's ordinary resources exist: the
	// ServiceAccount and Secret the Job uses must be hooks of their own (created
	// earlier) or exist outside the chart.
	if sa := pod.ServiceAccountName; sa != "" && r.hookOf("ServiceAccount", sa) == nil && named[*corev1.ServiceAccount](r, sa) != nil {
		t.Errorf("migration Job runs as %s, which the release creates only after the hook", sa)
	}
	var ref *corev1.SecretKeySelector
	for _, e := range c.Env {
		if e.Name == "DATABASE_URL" && e.ValueFrom != nil {
			ref = e.ValueFrom.SecretKeyRef
		}
	}
	if ref == nil {
		t.Fatal("migration Job has no DATABASE_URL from a Secret")
	}
	secret := named[*corev1.Secret](r, ref.Name)
	if secret == nil {
		if ref.Name != existingSecretName(r.Values, "migration", "databaseExistingSecret") &&
			ref.Name != existingSecretName(r.Values, "database", "existingSecret") {
			t.Fatalf("migration Job reads Secret %s, which neither the chart nor the values provide", ref.Name)
		}
		return // the operator's own Secret, there before the install
	}
	sh := r.hookOf("Secret", secret.Name)
	if sh == nil {
		t.Fatalf("migration Job reads Secret %s, an ordinary resource that does not exist yet at pre-install", ref.Name)
	}
	for _, ev := range hook.Events {
		if !slices.Contains(sh.Events, ev) {
			t.Errorf("the Job's Secret is no %s hook", ev)
		}
	}
	if sh.Weight >= hook.Weight {
		t.Errorf("the Job's Secret (weight %d) is not created before the Job (weight %d)", sh.Weight, hook.Weight)
	}
	if len(secret.Data[ref.Key]) == 0 {
		t.Errorf("the Job's Secret has no %s", ref.Key)
	}
}

// existingSecretName is values[block][field].name, or "".
func existingSecretName(values map[string]any, block, field string) string {
	b, _ := values[block].(map[string]any)
	f, _ := b[field].(map[string]any)
	name, _ := f["name"].(string)
	return name
}

// checkNetworkPolicies asserts default-deny ingress for the chart's pods, the HTTP ports
// of the api and the console open and the metrics ports open to monitoring.
func checkNetworkPolicies(t *testing.T, r *rendered, egress bool) {
	t.Helper()
	deny := named[*networkingv1.NetworkPolicy](r, "doceval-default-deny")
	if deny == nil || len(deny.Spec.Ingress) != 0 || !slices.Contains(deny.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
		t.Fatalf("default deny: %+v", deny)
	}
	if slices.Contains(deny.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) != egress {
		t.Errorf("default deny egress = %v, want %v", !egress, egress)
	}
	for _, svc := range renderedServices(r) {
		d := deployment(t, r, svc)
		if !matches(deny.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("%s: not under the default deny", svc)
		}
		if !slices.Contains(httpServices, svc) {
			continue
		}
		p := named[*networkingv1.NetworkPolicy](r, "doceval-"+svc)
		if p == nil || len(p.Spec.Ingress) != 1 || p.Spec.Ingress[0].Ports[0].Port.String() != "http" ||
			!matches(p.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("%s ingress policy: %+v", svc, p)
		}
	}
	metrics := named[*networkingv1.NetworkPolicy](r, "doceval-metrics")
	if metrics == nil || len(metrics.Spec.Ingress) != 1 || len(metrics.Spec.Ingress[0].From) == 0 {
		t.Fatalf("metrics policy: %+v", metrics)
	}
	var ports []string
	for _, p := range metrics.Spec.Ingress[0].Ports {
		ports = append(ports, p.Port.String())
	}
	if !slices.Contains(ports, "metrics") || !slices.Contains(ports, "http") {
		t.Errorf("metrics policy ports %v", ports)
	}
}

// renderedServices are the services with a Deployment in r.
func renderedServices(r *rendered) []string {
	var out []string
	for _, svc := range services {
		if named[*appsv1.Deployment](r, "doceval-"+svc) != nil {
			out = append(out, svc)
		}
	}
	return out
}

func deployment(t *testing.T, r *rendered, svc string) *appsv1.Deployment {
	t.Helper()
	d := named[*appsv1.Deployment](r, "doceval-"+svc)
	if d == nil {
		t.Fatalf("no Deployment for %s in %v", svc, r.kinds())
	}
	if d.Spec.Template.Labels["app.kubernetes.io/component"] != svc || !matches(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Fatalf("%s: selector %v, pod labels %v", svc, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	}
	return d
}

func configMap(t *testing.T, r *rendered, svc string) *corev1.ConfigMap {
	t.Helper()
	cm := named[*corev1.ConfigMap](r, "doceval-"+svc)
	if cm == nil {
		t.Fatalf("no ConfigMap for %s", svc)
	}
	return cm
}

func envVar(d *appsv1.Deployment, name string) *corev1.EnvVar {
	for i, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return &d.Spec.Template.Spec.Containers[0].Env[i]
		}
	}
	return nil
}

func mountAt(d *appsv1.Deployment, path string) *corev1.VolumeMount {
	for i, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		if m.MountPath == path {
			return &d.Spec.Template.Spec.Containers[0].VolumeMounts[i]
		}
	}
	return nil
}

func volume(d *appsv1.Deployment, name string) corev1.VolumeSource {
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return v.VolumeSource
		}
	}
	return corev1.VolumeSource{}
}

// portNumber resolves a probe's port (a name or a number) on the container.
func portNumber(c corev1.Container, port string) int32 {
	for _, p := range c.Ports {
		if p.Name == port || itoa(p.ContainerPort) == port {
			return p.ContainerPort
		}
	}
	return 0
}

// matches reports whether labels satisfy the selector.
func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func isTrue(b *bool) bool { return b != nil && *b }

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// migration.databaseExistingSecret gives the migration its own connection (past a
// transaction pooler); the chart then renders no hook Secret for it.
func TestMigrationDatabaseOverride(t *testing.T) {
	t.Parallel()
	r := mustRender(t, overlay(defaults(), set("migration.databaseExistingSecret.name=direct", "migration.databaseExistingSecret.key=uri")))
	checkMigration(t, r)
	job := named[*batchv1.Job](r, "doceval-migrate")
	if ref := job.Spec.Template.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef; ref.Name != "direct" || ref.Key != "uri" {
		t.Errorf("migration reads DATABASE_URL from %+v", ref)
	}
	if s := named[*corev1.Secret](r, "doceval-migrate"); s != nil {
		t.Error("a hook Secret although the migration has its own")
	}
	if ref := envVar(deployment(t, r, "api"), "DATABASE_URL").ValueFrom.SecretKeyRef; ref.Name != "doceval" {
		t.Errorf("the services' DATABASE_URL comes from %+v", ref)
	}
}
