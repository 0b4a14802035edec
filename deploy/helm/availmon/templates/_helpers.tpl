{{/* The chart's name, or nameOverride. */}}
{{- define "availmon.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The objects' name: the release name, with the chart's name unless the release name holds it. */}}
{{- define "availmon.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "availmon.selectorLabels" -}}
app.kubernetes.io/name: {{ include "availmon.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "availmon.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "availmon.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
The job label of the release's series (the ServiceMonitor sets it), which
its PrometheusRule reads alone: job, or the release's namespace and full
name, so that two releases never share one, not even two of one name in
two namespaces.
*/}}
{{- define "availmon.job" -}}
{{- .Values.job | default (printf "%s/%s" .Release.Namespace (include "availmon.fullname" .)) }}
{{- end }}

{{/* The ConfigMap holding the file: the chart's own, or existingConfigMap. */}}
{{- define "availmon.configMapName" -}}
{{- default (include "availmon.fullname" .) .Values.existingConfigMap }}
{{- end }}

{{/* The Secret holding the HMAC secret: the chart's own, or hmac.existingSecret. */}}
{{- define "availmon.secretName" -}}
{{- default (include "availmon.fullname" .) .Values.hmac.existingSecret }}
{{- end }}

{{/*
The configuration file: config, with authentication.hmac turned on and its
secret read from the environment when hmac.enabled. The checksum annotation
of the pod is taken of this text, so that a changed file rolls the pod.
*/}}
{{- define "availmon.config" -}}
{{- $config := deepCopy .Values.config }}
{{- if .Values.hmac.enabled }}
{{- $auth := get $config "authentication" | default dict }}
{{- $hmac := get $auth "hmac" | default dict }}
{{- $_ := set $hmac "enabled" true }}
{{- $_ := set $hmac "secret" "${AVAILMON_HMAC_SECRET}" }}
{{- $_ := set $auth "hmac" $hmac }}
{{- $_ := set $config "authentication" $auth }}
{{- end }}
{{- toYaml $config }}
{{- end }}
