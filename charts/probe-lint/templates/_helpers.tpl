{{/* Names, labels and shared fragments. */}}

{{- define "probe-lint.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "probe-lint.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "probe-lint.selectorLabels" -}}
app.kubernetes.io/name: {{ include "probe-lint.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "probe-lint.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "probe-lint.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "probe-lint.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "probe-lint.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "probe-lint.tlsSecretName" -}}
{{- printf "%s-tls" (include "probe-lint.fullname" .) -}}
{{- end -}}

{{- define "probe-lint.serviceDnsName" -}}
{{- printf "%s.%s.svc" (include "probe-lint.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/*
TLS material without cert-manager: reuse the Secret of an earlier release when it exists (so
`helm upgrade` keeps the CA the API server trusts), else generate a CA and a serving certificate.
Computed once per render and cached, so the Secret and both webhook configurations agree.
*/}}
{{- define "probe-lint.generatedTls" -}}
{{- if not .Values.certManager.enabled -}}
{{- if not (hasKey .Release "probeLintTls") -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (include "probe-lint.tlsSecretName" .) -}}
{{- if and $secret $secret.data (index $secret.data "ca.crt") -}}
{{- $_ := set .Release "probeLintTls" (dict "caCert" (index $secret.data "ca.crt" | b64dec) "cert" (index $secret.data "tls.crt" | b64dec) "key" (index $secret.data "tls.key" | b64dec)) -}}
{{- else -}}
{{- $ca := genCA (printf "%s-ca" (include "probe-lint.fullname" .)) (int .Values.generatedCertificateDays) -}}
{{- $service := include "probe-lint.fullname" . -}}
{{- $names := list $service (printf "%s.%s" $service .Release.Namespace) (include "probe-lint.serviceDnsName" .) (printf "%s.cluster.local" (include "probe-lint.serviceDnsName" .)) -}}
{{- $cert := genSignedCert (include "probe-lint.serviceDnsName" .) nil $names (int .Values.generatedCertificateDays) $ca -}}
{{- $_ := set .Release "probeLintTls" (dict "caCert" $ca.Cert "cert" $cert.Cert "key" $cert.Key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* caBundle for the webhook configurations (empty with cert-manager, whose injector fills it). */}}
{{- define "probe-lint.caBundle" -}}
{{- if not .Values.certManager.enabled -}}
{{- include "probe-lint.generatedTls" . -}}
{{- .Release.probeLintTls.caCert | b64enc -}}
{{- end -}}
{{- end -}}

{{/*
Namespaces the webhooks never see: kube-system, the release's own and the configured ones; and
namespaces labelled probe-lint.dev/mode=off only when the config trusts namespace labels
(config.webhook.namespaceLabels: trusted) — otherwise whoever may label a namespace could switch
the webhook off for it.
*/}}
{{- define "probe-lint.namespaceSelector" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values:
        - kube-system
        - {{ .Release.Namespace }}
        {{- range .Values.webhook.excludeNamespaces }}
        - {{ . }}
        {{- end }}
    {{- if eq (((.Values.config).webhook).namespaceLabels | default "tighten-only") "trusted" }}
    - key: probe-lint.dev/mode
      operator: NotIn
      values: ["off"]
    {{- end }}
{{- end -}}

{{/*
The probe-lint config from .Values.config. Helm reads values files as YAML 1.1, where an unquoted
`mode: off` is the boolean false: it is read back as the mode "off", as the user meant.
*/}}
{{- define "probe-lint.config" -}}
{{- $config := deepCopy (.Values.config | default dict) -}}
{{- with $config.webhook -}}
{{- if and (hasKey . "mode") (eq (toString .mode) "false") }}{{ $_ := set . "mode" "off" }}{{ end -}}
{{- range $namespace, $entry := (.namespaces | default dict) -}}
{{- if and (hasKey $entry "mode") (eq (toString $entry.mode) "false") }}{{ $_ := set $entry "mode" "off" }}{{ end -}}
{{- end -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}


{{/* What probe-lint audit reads besides Nodes and Pods: workloads, Services, and the kubelet's Events (runtime evidence). */}}
{{- define "probe-lint.auditReadRules" -}}
- apiGroups: [""]
  resources: ["services"]
  verbs: ["list"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets", "daemonsets"]
  verbs: ["list"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["list"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["list"]
{{- if eq (toString .Values.auditReports.probeMetrics) "kubelet" }}
# audit --probe-metrics kubelet: each node's /metrics/probes through the API server's node proxy.
- apiGroups: [""]
  resources: ["nodes/proxy"]
  verbs: ["get"]
{{- end }}
{{- end -}}
