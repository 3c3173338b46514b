{{/*
Names, labels and the settings every template shares. Helpers that need the service
take a dict: (dict "root" $ "svc" "api").
*/}}

{{- define "doceval.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* RELEASE-doceval, or RELEASE when the release name already contains the chart name;
trimmed so that "-dispatcher-metrics" style suffixes still fit 63 characters. */}}
{{- define "doceval.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "doceval.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The services the release runs, in one place: the api, the three workers and, with
console.enabled, the staff console. */}}
{{- define "doceval.services" -}}
{{- $s := list "api" "ingest" "evaluator" "dispatcher" }}
{{- if .Values.console.enabled }}{{ $s = append $s "console" }}{{ end }}
{{- toJson $s }}
{{- end }}

{{- define "doceval.selectorLabels" -}}
app.kubernetes.io/name: {{ include "doceval.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "doceval.labels" -}}
helm.sh/chart: {{ include "doceval.chart" . }}
{{ include "doceval.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: doceval
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "doceval.componentSelectorLabels" -}}
{{ include "doceval.selectorLabels" .root }}
app.kubernetes.io/component: {{ .svc }}
{{- end }}

{{- define "doceval.componentLabels" -}}
{{ include "doceval.labels" .root }}
app.kubernetes.io/component: {{ .svc }}
{{- end }}

{{- define "doceval.componentName" -}}
{{ include "doceval.fullname" .root }}-{{ .svc }}
{{- end }}

{{- define "doceval.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "doceval.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@DIGEST; takes (dict "root" $ "image" IMAGE). */}}
{{- define "doceval.image" -}}
{{- $repo := .image.repository }}
{{- with .root.Values.image.registry }}{{ $repo = printf "%s/%s" . $repo }}{{ end }}
{{- if .image.digest }}
{{- printf "%s@%s" $repo .image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .root.Chart.AppVersion .image.tag | toString) }}
{{- end }}
{{- end }}

{{/* The workers, which take no requests and serve only /healthz, /readyz and /metrics,
on DOCEVAL_OPS_ADDR. */}}
{{- define "doceval.isWorker" -}}
{{- if not (has .svc (list "api" "console")) }}true{{ end }}
{{- end }}

{{/* The services with an internal ops port (DOCEVAL_OPS_ADDR, container port
"metrics") for /healthz, /readyz and /metrics: the workers and the console, whose HTTP
port is public. The api serves them on its HTTP listener. */}}
{{- define "doceval.hasOpsPort" -}}
{{- if ne .svc "api" }}true{{ end }}
{{- end }}

{{/* The services that read or write blobs: the api (uploads), ingest (extraction and
purge) and the console (uploads it shows, the page images it renders next to them). */}}
{{- define "doceval.readsBlobs" -}}
{{- if has .svc (list "api" "ingest" "console") }}true{{ end }}
{{- end }}

{{/* The JetStream stream and durable consumers a worker reads (pkg/ingest,
pkg/evaluator, pkg/dispatch), for the KEDA scaler. */}}
{{- define "doceval.consumers" -}}
{{- $c := dict
  "ingest" (list (dict "stream" "DOCEVAL_JOBS" "durable" "ingest") (dict "stream" "DOCEVAL_JOBS" "durable" "purge"))
  "evaluator" (list (dict "stream" "DOCEVAL_JOBS" "durable" "evaluator"))
  "dispatcher" (list (dict "stream" "DOCEVAL_EVENTS" "durable" "dispatcher")) }}
{{- index $c .svc | toJson }}
{{- end }}

{{/* The fair work queue a worker reads (pkg/messaging FairSpec Durable): its jobs wait
in stream DOCEVAL_QUEUES behind one consumer per API client ("<durable>-<client>"),
which the nats-jetstream scaler (one named consumer) cannot sum; the worker's own gauges
do, for KEDA's prometheus scaler. */}}
{{- define "doceval.fairQueue" -}}
{{- index (dict "ingest" "ingest" "evaluator" "evaluator") .svc | default "" }}
{{- end }}

{{- define "doceval.kedaEnabled" -}}
{{- $v := index .root.Values .svc }}
{{- if and (include "doceval.isWorker" .) $v.keda $v.keda.enabled }}true{{ end }}
{{- end }}

{{/* An HPA or a KEDA ScaledObject owns the replica count. */}}
{{- define "doceval.autoscaled" -}}
{{- $v := index .root.Values .svc }}
{{- if or $v.autoscaling.enabled (include "doceval.kedaEnabled" .) }}true{{ end }}
{{- end }}

{{/* The container port with the ops endpoints: the ops port where there is one, else
(the api) the HTTP port. */}}
{{- define "doceval.opsPortName" -}}
{{- if include "doceval.hasOpsPort" . }}metrics{{ else }}http{{ end }}
{{- end }}

{{- define "doceval.preStopSleep" -}}
{{- $v := index .root.Values .svc }}
{{- $s := int64 (default 0 $v.preStopSleepSeconds) }}
{{- if and (gt $s 0) (semverCompare ">=1.30-0" .root.Capabilities.KubeVersion.Version) }}{{ $s }}{{ else }}0{{ end }}
{{- end }}

{{/* The longest unit of work a service finishes after SIGTERM before it exits: a file
(ingest, and the extractor parsing it for ingest), an evaluation (evaluator), a webhook
attempt (dispatcher). */}}
{{- define "doceval.workSeconds" -}}
{{- $v := index .root.Values .svc }}
{{- if eq .svc "ingest" }}{{ int64 $v.config.fileTimeoutSeconds }}
{{- else if eq .svc "extractor" }}{{ int64 .root.Values.ingest.config.fileTimeoutSeconds }}
{{- else if eq .svc "evaluator" }}{{ int64 $v.config.evaluationTimeoutSeconds }}
{{- else if eq .svc "dispatcher" }}{{ int64 $v.config.webhookTimeoutSeconds }}
{{- else }}0{{ end }}
{{- end }}

{{/* terminationGracePeriodSeconds, derived from shutdownTimeoutSeconds so that the
kubelet's SIGKILL never cuts a drain the service was told it may take: preStop sleep +
DOCEVAL_SHUTDOWN_TIMEOUT + the work in hand + a margin. An override must still exceed
the preStop sleep plus the shutdown timeout. */}}
{{- define "doceval.graceSeconds" -}}
{{- $v := index .root.Values .svc }}
{{- $shutdown := int64 .root.Values.shutdownTimeoutSeconds }}
{{- $preStop := int64 (include "doceval.preStopSleep" .) }}
{{- if not (kindIs "invalid" $v.terminationGracePeriodSeconds) }}
{{- $g := int64 $v.terminationGracePeriodSeconds }}
{{- if le $g (add $shutdown $preStop | int64) }}
{{- fail (printf "%s.terminationGracePeriodSeconds (%d) must exceed shutdownTimeoutSeconds (%d) plus the preStop sleep (%d)" .svc $g $shutdown $preStop) }}
{{- end }}
{{- $g }}
{{- else }}
{{- add $preStop $shutdown (include "doceval.workSeconds" . | int64) (int64 .root.Values.terminationGraceMarginSeconds) }}
{{- end }}
{{- end }}

{{/* The Secret the chart creates (when some secret value is given inline). */}}
{{- define "doceval.secretName" -}}
{{ include "doceval.fullname" . }}
{{- end }}

{{/* The chart Secret's data: only the values given inline (an existingSecret wins). */}}
{{- define "doceval.secretData" -}}
{{- $v := .Values }}
{{- if not $v.database.existingSecret.name }}
DATABASE_URL: {{ required "database.url or database.existingSecret.name is required" $v.database.url | b64enc | quote }}
{{- end }}
{{- range $svc, $own := $v.database.services }}
{{- if and $own.url (not $own.existingSecret.name) }}
{{ include "doceval.serviceDatabaseKey" $svc }}: {{ $own.url | b64enc | quote }}
{{- end }}
{{- end }}
{{- if not $v.nats.existingSecret.name }}
NATS_URL: {{ required "nats.url or nats.existingSecret.name is required" $v.nats.url | b64enc | quote }}
{{- end }}
{{- if not $v.secretKey.existingSecret.name }}
DOCEVAL_SECRET_KEY: {{ include "doceval.requiredSecretKey" . | b64enc | quote }}
{{- end }}
{{- if and $v.llm.apiKey (not $v.llm.existingSecret.name) }}
DOCEVAL_LLM_API_KEY: {{ $v.llm.apiKey | b64enc | quote }}
{{- end }}
{{- if not $v.blob.s3.existingSecret.name }}
{{- with $v.blob.s3.accessKeyId }}
AWS_ACCESS_KEY_ID: {{ . | b64enc | quote }}
{{- end }}
{{- with $v.blob.s3.secretAccessKey }}
AWS_SECRET_ACCESS_KEY: {{ . | b64enc | quote }}
{{- end }}
{{- end }}
{{- with $v.console }}
{{- if and .enabled (not .secretKey.existingSecret.name) }}
DOCEVAL_CONSOLE_SECRET_KEY: {{ include "doceval.requiredConsoleSecretKey" $ | b64enc | quote }}
{{- end }}
{{- if and .enabled .oidc.clientSecret (not .oidc.existingSecret.name) }}
DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET: {{ .oidc.clientSecret | b64enc | quote }}
{{- end }}
{{- end }}
{{- end }}

{{- define "doceval.requiredSecretKey" -}}
{{- required "secretKey.value or secretKey.existingSecret.name is required: DOCEVAL_SECRET_KEY, 32 random bytes in base64 (openssl rand -base64 32), encrypts webhook signing secrets and kept Idempotency-Key responses at rest" .Values.secretKey.value }}
{{- end }}

{{/* The console's own key ring for staff TOTP secrets; never secretKey's, which seals
the webhook signing secrets the console may read. */}}
{{- define "doceval.requiredConsoleSecretKey" -}}
{{- $c := .Values.console.secretKey }}
{{- $key := required "console.secretKey.value or console.secretKey.existingSecret.name is required: DOCEVAL_CONSOLE_SECRET_KEY, 32 random bytes in base64 (openssl rand -base64 32), another key than secretKey, seals staff TOTP secrets at rest" $c.value }}
{{- if eq $key (toString .Values.secretKey.value) }}
{{- fail "console.secretKey.value is secretKey.value: the console's key must be its own, or it could open every webhook signing secret" }}
{{- end }}
{{- $key }}
{{- end }}

{{/* An env entry read from a Secret: (dict "name" ENV "existing" EXISTINGSECRET "key" KEYFIELD "root" $ "optional" BOOL).
An existing Secret's key name comes from existing[key]; the chart's Secret uses ENV. */}}
{{- define "doceval.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      {{- if .existing.name }}
      name: {{ .existing.name }}
      key: {{ index .existing .key }}
      {{- else }}
      name: {{ include "doceval.secretName" .root }}
      key: {{ .name }}
      {{- end }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{/* A service's DATABASE_URL: its own connection (database.services.<svc>, a login
user in the service's role) when given, else the owner's (database.*), unless
database.requireServiceRoles forbids that fallback. */}}
{{- define "doceval.databaseEnv" -}}
{{- $db := .root.Values.database }}
{{- $own := index ($db.services | default dict) .svc | default dict }}
{{- $ownSecret := $own.existingSecret | default dict }}
{{- if $ownSecret.name }}
{{- include "doceval.secretEnv" (dict "root" .root "name" "DATABASE_URL" "existing" $ownSecret "key" "key") }}
{{- else if $own.url }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "doceval.secretName" .root }}
      key: {{ include "doceval.serviceDatabaseKey" .svc }}
{{- else }}
{{- if $db.requireServiceRoles }}
{{- fail (printf "database.services.%s.url or .existingSecret.name is required (database.requireServiceRoles): the %s connects as a login user in role doceval_%s" .svc .svc .svc) }}
{{- end }}
{{- include "doceval.secretEnv" (dict "root" .root "name" "DATABASE_URL" "existing" $db.existingSecret "key" "key") }}
{{- end }}
{{- end }}

{{/* The chart Secret's key of a service's own inline DATABASE_URL. */}}
{{- define "doceval.serviceDatabaseKey" -}}
DATABASE_URL_{{ upper . }}
{{- end }}

{{/* The non-secret settings of one service, as ConfigMap data (env names → strings).
Numbers go through int64: Helm reads YAML numbers as float64, which would print
104857600 as 1.048576e+08. */}}
{{- define "doceval.configData" -}}
{{- $r := .root.Values }}
{{- $v := index $r .svc }}
{{- $c := $v.config | default dict }}
DOCEVAL_LOG_LEVEL: {{ $r.logLevel | quote }}
DOCEVAL_STREAM_REPLICAS: {{ int64 $r.streamReplicas | quote }}
DOCEVAL_OUTBOX_RELAY: {{ $r.outboxRelay | quote }}
DOCEVAL_SHUTDOWN_TIMEOUT: {{ printf "%ds" (int64 $r.shutdownTimeoutSeconds) | quote }}
DOCEVAL_BLOB_URL: {{ required "blob.url is required" $r.blob.url | quote }}
{{- if eq .svc "api" }}
DOCEVAL_RATE_LIMIT: {{ $c.rateLimit | toString | quote }}
DOCEVAL_RATE_LIMIT_BURST: {{ int64 $c.rateLimitBurst | quote }}
DOCEVAL_INVALID_KEY_RATE: {{ $c.invalidKeyRate | toString | quote }}
DOCEVAL_INVALID_KEY_BURST: {{ int64 $c.invalidKeyBurst | quote }}
DOCEVAL_TRUSTED_PROXIES: {{ $c.trustedProxies | quote }}
DOCEVAL_MAX_UPLOAD_BYTES: {{ int64 $c.maxUploadBytes | quote }}
DOCEVAL_MAX_CONCURRENT_UPLOADS: {{ int64 $c.maxConcurrentUploads | quote }}
DOCEVAL_UPLOAD_IDLE_TIMEOUT: {{ $c.uploadIdleTimeout | quote }}
DOCEVAL_MAX_UPLOADS_PER_SUBMISSION: {{ int64 $c.maxUploadsPerSubmission | quote }}
DOCEVAL_MAX_PAGES_PER_EVALUATION: {{ int64 $c.maxPagesPerEvaluation | quote }}
DOCEVAL_MAX_FEED_WAITS: {{ int64 $c.maxFeedWaits | quote }}
DOCEVAL_API_KEY_CACHE_TTL: {{ $c.keyCacheTTL | quote }}
DOCEVAL_SECRET_ROTATION_GRACE: {{ $c.secretRotationGrace | quote }}
{{- with include "doceval.apiPublicURL" .root }}
DOCEVAL_PUBLIC_URL: {{ . | quote }}
{{- end }}
{{- else if eq .svc "ingest" }}
DOCEVAL_INGEST_MAX_PAGES: {{ int64 $c.maxPages | quote }}
DOCEVAL_INGEST_MAX_OCR_PAGES: {{ int64 $c.maxOCRPages | quote }}
DOCEVAL_TOOL_MAX_MEMORY: {{ int64 $c.toolMaxMemoryBytes | quote }}
DOCEVAL_PARSER_ISOLATION: {{ $c.parserIsolation | quote }}
DOCEVAL_INGEST_FILE_TIMEOUT: {{ printf "%ds" (int64 $c.fileTimeoutSeconds) | quote }}
DOCEVAL_INGEST_CONCURRENCY: {{ int64 $c.concurrency | quote }}
DOCEVAL_INGEST_CLIENT_CONCURRENCY: {{ int64 $c.clientConcurrency | quote }}
DOCEVAL_INGEST_MAX_ATTEMPTS: {{ int64 $c.maxAttempts | quote }}
DOCEVAL_OCR_LANGUAGES: {{ $c.ocrLanguages | quote }}
{{- with $c.ackWait }}
DOCEVAL_INGEST_ACK_WAIT: {{ . | quote }}
{{- end }}
DOCEVAL_INGEST_TEMP_DIR: "/tmp"
{{- include "doceval.extractorURL" .root }}
{{- else if eq .svc "evaluator" }}
DOCEVAL_EVALUATOR_CONCURRENCY: {{ int64 $c.concurrency | quote }}
DOCEVAL_EVALUATOR_CLIENT_CONCURRENCY: {{ int64 $c.clientConcurrency | quote }}
DOCEVAL_EVALUATOR_MAX_ATTEMPTS: {{ int64 $c.maxAttempts | quote }}
DOCEVAL_EVALUATION_TIMEOUT: {{ printf "%ds" (int64 $c.evaluationTimeoutSeconds) | quote }}
DOCEVAL_EVALUATION_PROGRESS_INTERVAL: {{ $c.progressInterval | quote }}
DOCEVAL_EVALUATION_QUEUE_TIMEOUT: {{ $c.queueTimeout | quote }}
{{- with $c.ackWait }}
DOCEVAL_EVALUATOR_ACK_WAIT: {{ . | quote }}
{{- end }}
{{- with $r.llm.baseUrl }}
DOCEVAL_LLM_BASE_URL: {{ . | quote }}
{{- end }}
{{- with $r.llm.model }}
DOCEVAL_LLM_MODEL: {{ . | quote }}
{{- end }}
DOCEVAL_LLM_TIMEOUT: {{ $r.llm.timeout | quote }}
DOCEVAL_LLM_CONCURRENCY: {{ int64 $r.llm.concurrency | quote }}
DOCEVAL_LLM_MAX_RETRIES: {{ int64 $r.llm.maxRetries | quote }}
DOCEVAL_LLM_MAX_CONTEXT_CHARS: {{ int64 $r.llm.maxContextChars | quote }}
DOCEVAL_LLM_AZURE: {{ $r.llm.azure | toString | quote }}
DOCEVAL_LLM_AZURE_API_VERSION: {{ $r.llm.azureApiVersion | quote }}
DOCEVAL_LLM_OMIT_TEMPERATURE: {{ $r.llm.omitTemperature | toString | quote }}
DOCEVAL_LLM_MAX_OUTPUT_TOKENS: {{ int64 $r.llm.maxOutputTokens | quote }}
DOCEVAL_LLM_BATCH_SIZE: {{ int64 $r.llm.batchSize | quote }}
{{- else if eq .svc "dispatcher" }}
DOCEVAL_EVENT_RETENTION: {{ $c.eventRetention | quote }}
DOCEVAL_EVENT_RETENTION_EVERY: {{ $c.eventRetentionEvery | quote }}
DOCEVAL_WEBHOOK_RETRY_SCHEDULE: {{ $c.webhookRetrySchedule | quote }}
DOCEVAL_WEBHOOK_TIMEOUT: {{ printf "%ds" (int64 $c.webhookTimeoutSeconds) | quote }}
DOCEVAL_WEBHOOK_ALLOW_PRIVATE: {{ $c.webhookAllowPrivate | quote }}
DOCEVAL_WEBHOOK_CONCURRENCY: {{ int64 $c.webhookConcurrency | quote }}
DOCEVAL_WEBHOOK_CLIENT_CONCURRENCY: {{ int64 $c.webhookClientConcurrency | quote }}
DOCEVAL_FANOUT_ACK_WAIT: {{ $c.fanoutAckWait | quote }}
{{- else if eq .svc "console" }}
{{- with include "doceval.consolePublicURL" .root }}
DOCEVAL_CONSOLE_PUBLIC_URL: {{ . | quote }}
{{- end }}
DOCEVAL_CONSOLE_INSECURE_COOKIES: {{ $c.insecureCookies | toString | quote }}
DOCEVAL_CONSOLE_SESSION_IDLE: {{ $c.sessionIdle | quote }}
DOCEVAL_CONSOLE_SESSION_MAX: {{ $c.sessionMax | quote }}
DOCEVAL_CONSOLE_LOGIN_MAX_FAILURES: {{ int64 $c.loginMaxFailures | quote }}
DOCEVAL_CONSOLE_LOGIN_WINDOW: {{ $c.loginWindow | quote }}
DOCEVAL_CONSOLE_TRUSTED_PROXIES: {{ $c.trustedProxies | quote }}
DOCEVAL_CONSOLE_HASH_CONCURRENCY: {{ int64 $c.hashConcurrency | quote }}
DOCEVAL_CONSOLE_HASH_WAIT: {{ $c.hashWait | quote }}
DOCEVAL_CONSOLE_REQUIRE_MFA: {{ $c.requireMFA | toString | quote }}
DOCEVAL_CONSOLE_MFA_ISSUER: {{ $c.mfaIssuer | quote }}
{{- with $v.oidc.issuer }}
DOCEVAL_CONSOLE_OIDC_ISSUER: {{ . | quote }}
DOCEVAL_CONSOLE_OIDC_CLIENT_ID: {{ $v.oidc.clientId | quote }}
{{- end }}
DOCEVAL_CONSOLE_OIDC_SCOPES: {{ $v.oidc.scopes | quote }}
DOCEVAL_CONSOLE_OIDC_BUTTON: {{ $v.oidc.button | quote }}
DOCEVAL_CONSOLE_RENDER_DPI: {{ int64 $c.renderDPI | quote }}
DOCEVAL_TOOL_MAX_MEMORY: {{ int64 $c.toolMaxMemoryBytes | quote }}
{{- include "doceval.extractorURL" .root }}
DOCEVAL_PARSER_ISOLATION: {{ $c.parserIsolation | quote }}
{{- end }}
{{- with $r.otel.endpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
OTEL_EXPORTER_OTLP_PROTOCOL: {{ $r.otel.protocol | quote }}
OTEL_TRACES_SAMPLER: {{ $r.otel.sampler | quote }}
OTEL_TRACES_SAMPLER_ARG: {{ $r.otel.samplerArg | toString | quote }}
{{- end }}
{{- end }}

{{/* The container env of one service: what the pod spec must set itself (addresses
tied to the container ports, DOCEVAL_MIGRATE, secrets, the downward API), then the
service's extra env, which wins. */}}
{{- define "doceval.env" -}}
{{- $r := .root.Values }}
{{- $v := index $r .svc }}
# The migration hook Job migrates; services never do.
- name: DOCEVAL_MIGRATE
  value: "false"
{{- if include "doceval.hasOpsPort" . }}
- name: DOCEVAL_OPS_ADDR
  value: {{ printf ":%d" (int64 $v.opsPort) | quote }}
{{- end }}
{{- if not (include "doceval.isWorker" .) }}
- name: DOCEVAL_HTTP_ADDR
  value: {{ printf ":%d" (int64 $v.port) | quote }}
{{- end }}
{{ include "doceval.databaseEnv" . }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "NATS_URL" "existing" $r.nats.existingSecret "key" "key") }}
{{- if has .svc (list "api" "dispatcher") }}
{{- if not $r.secretKey.existingSecret.name }}{{ $_ := include "doceval.requiredSecretKey" .root }}{{ end }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "DOCEVAL_SECRET_KEY" "existing" $r.secretKey.existingSecret "key" "key") }}
{{- end }}
{{- if eq .svc "console" }}
{{- if not $v.secretKey.existingSecret.name }}{{ $_ := include "doceval.requiredConsoleSecretKey" .root }}{{ end }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "DOCEVAL_CONSOLE_SECRET_KEY" "existing" $v.secretKey.existingSecret "key" "key") }}
{{- end }}
{{- if and (eq .svc "evaluator") (or $r.llm.apiKey $r.llm.existingSecret.name) }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "DOCEVAL_LLM_API_KEY" "existing" $r.llm.existingSecret "key" "key") }}
{{- end }}
{{- if and (eq .svc "console") (or $v.oidc.clientSecret $v.oidc.existingSecret.name) }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "DOCEVAL_CONSOLE_OIDC_CLIENT_SECRET" "existing" $v.oidc.existingSecret "key" "key") }}
{{- end }}
{{- if and (include "doceval.readsBlobs" .) (or $r.blob.s3.accessKeyId $r.blob.s3.existingSecret.name) }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "AWS_ACCESS_KEY_ID" "existing" $r.blob.s3.existingSecret "key" "accessKeyIdKey") }}
{{ include "doceval.secretEnv" (dict "root" .root "name" "AWS_SECRET_ACCESS_KEY" "existing" $r.blob.s3.existingSecret "key" "secretAccessKeyKey") }}
{{- end }}
- name: OTEL_SERVICE_NAME
  value: doceval-{{ .svc }}
{{- if $r.otel.endpoint }}
- name: K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: K8S_NAMESPACE_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- $attrs := "k8s.pod.name=$(K8S_POD_NAME),k8s.namespace.name=$(K8S_NAMESPACE_NAME)" }}
{{- with $r.otel.resourceAttributes }}{{ $attrs = printf "%s,%s" $attrs . }}{{ end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ $attrs | quote }}
{{- with $r.otel.headersSecret.name }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $r.otel.headersSecret.key }}
{{- end }}
{{- end }}
{{- with $v.env }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* DOCEVAL_EXTRACTOR_URL for ingest and the console, as a ConfigMap line: the extractor's
Service when extractor.enabled (they then parse there), else nothing (they parse in
their own pods). */}}
{{- define "doceval.extractorURL" -}}
{{- if .Values.extractor.enabled }}
DOCEVAL_EXTRACTOR_URL: {{ printf "http://%s:%d" (include "doceval.componentName" (dict "root" . "svc" "extractor")) (int64 .Values.extractor.service.port) | quote }}
{{- end }}
{{- end }}

{{/* Blobs on a file:// URL live on a shared volume mounted at the URL's path in the
services that read or write them (doceval.readsBlobs). */}}
{{- define "doceval.fileBlobs" -}}
{{- if hasPrefix "file://" .Values.blob.url }}true{{ end }}
{{- end }}

{{- define "doceval.blobPath" -}}
{{- trimPrefix "file://" .Values.blob.url | trimSuffix "/" }}
{{- end }}

{{- define "doceval.blobClaimName" -}}
{{- default (printf "%s-blobs" (include "doceval.fullname" .)) .Values.blob.persistence.existingClaim }}
{{- end }}

{{/* One NetworkPolicy egress rule from {to, ports}; an empty `to` means any destination,
empty `ports` any port. */}}
{{- define "doceval.egressRule" -}}
{{- $rule := dict }}
{{- with .to }}{{ $_ := set $rule "to" . }}{{ end }}
{{- with .ports }}{{ $_ := set $rule "ports" . }}{{ end }}
{{- list $rule | toYaml }}
{{- end }}

{{/* DOCEVAL_CONSOLE_PUBLIC_URL: console.publicURL, else the first console.ingress host
(https when a console.ingress.tls entry names it), else nothing. */}}
{{- define "doceval.consolePublicURL" -}}
{{- include "doceval.publicURL" (dict "url" .Values.console.publicURL "ingress" .Values.console.ingress) }}
{{- end }}

{{/* DOCEVAL_PUBLIC_URL: api.config.publicURL, else the first ingress host (https when an
ingress.tls entry names it), else nothing (the served spec keeps its templated server). */}}
{{- define "doceval.apiPublicURL" -}}
{{- include "doceval.publicURL" (dict "url" .Values.api.config.publicURL "ingress" .Values.ingress) }}
{{- end }}

{{/* A public URL: url when set, else the first host of ingress when it is enabled, with
https when one of its tls entries names that host. */}}
{{- define "doceval.publicURL" -}}
{{- if .url }}
{{- .url }}
{{- else if and .ingress.enabled .ingress.hosts }}
{{- $host := (first .ingress.hosts).host }}
{{- $scheme := "http" }}
{{- range .ingress.tls }}{{ if has $host (.hosts | default list) }}{{ $scheme = "https" }}{{ end }}{{ end }}
{{- printf "%s://%s" $scheme $host }}
{{- end }}
{{- end }}

{{/* Configuration errors that no single template would notice. */}}
{{- define "doceval.validate" -}}
{{- if and (include "doceval.fileBlobs" .) (not .Values.blob.persistence.enabled) }}
{{- fail "blob.url is a file:// URL but blob.persistence.enabled is false: every api, ingest and console pod must see the same files. Enable blob.persistence (a ReadWriteMany volume across nodes) or use an s3:// URL." }}
{{- end }}
{{- with .Values.console }}
{{- if and .enabled .oidc.issuer }}
{{- if not .oidc.clientId }}
{{- fail "console.oidc.issuer is set but console.oidc.clientId is empty: single sign-on needs the client registered at the provider" }}
{{- end }}
{{- if not (include "doceval.consolePublicURL" $) }}
{{- fail "console.oidc.issuer needs the console's public URL for the redirect: set console.publicURL (https://console.example.com) or console.ingress.hosts" }}
{{- end }}
{{- end }}
{{- end }}
{{- if not .Values.secretKey.existingSecret.name }}
{{- $_ := include "doceval.requiredSecretKey" . }}
{{- end }}
{{- with .Values.console }}
{{- if and .enabled (not .secretKey.existingSecret.name) }}
{{- $_ := include "doceval.requiredConsoleSecretKey" $ }}
{{- end }}
{{- $own := .secretKey.existingSecret }}
{{- $api := $.Values.secretKey.existingSecret }}
{{- if and .enabled $own.name (eq $own.name $api.name) (eq $own.key $api.key) }}
{{- fail "console.secretKey.existingSecret names the same Secret key as secretKey.existingSecret: the console's key must be its own, or it could open every webhook signing secret" }}
{{- end }}
{{- end }}
{{- end }}

{{/* One NetworkPolicy that lets one service's pods out through one more egress rule:
(dict "root" $ "svc" SVC "name" SUFFIX "rule" {to, ports}). */}}
{{- define "doceval.componentEgress" -}}
{{- $ctx := dict "root" .root "svc" .svc }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "doceval.componentName" $ctx }}-{{ .name }}
  labels:
    {{- include "doceval.componentLabels" $ctx | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "doceval.componentSelectorLabels" $ctx | nindent 6 }}
  policyTypes: [Egress]
  egress:
    {{- include "doceval.egressRule" .rule | nindent 4 }}
{{- end }}

{{/* The Ingress of an HTTP service (the api, the console), each on hosts of its own:
(dict "root" $ "svc" SVC "ingress" VALUES "path" "VALUES' PATH", for messages). */}}
{{- define "doceval.ingress" -}}
{{- $ctx := dict "root" .root "svc" .svc }}
{{- $ing := .ingress }}
{{- if not $ing.hosts }}
{{- fail (printf "%s.enabled needs at least one entry in %s.hosts" .path .path) }}
{{- end }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "doceval.componentName" $ctx }}
  labels:
    {{- include "doceval.componentLabels" $ctx | nindent 4 }}
  {{- with $ing.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with $ing.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with $ing.tls }}
  tls:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    {{- range $ing.hosts }}
    - host: {{ .host | quote }}
      http:
        paths:
          {{- range (.paths | default (list (dict "path" "/" "pathType" "Prefix"))) }}
          - path: {{ .path }}
            pathType: {{ .pathType | default "Prefix" }}
            backend:
              service:
                name: {{ include "doceval.componentName" $ctx }}
                port:
                  name: http
          {{- end }}
    {{- end }}
{{- end }}
