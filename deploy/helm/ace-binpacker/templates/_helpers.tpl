{{/* The name of every object of ACE itself (one ACE per cluster: webhook configurations and RBAC are cluster-wide). */}}
{{- define "ace.fullname" -}}
{{- default "ace-binpacker" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ace.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{/* The node agent's own image (agent/Dockerfile). */}}
{{- define "ace.agentImage" -}}
{{ .Values.agent.image.repository }}:{{ default .Chart.AppVersion .Values.agent.image.tag }}
{{- end -}}

{{/* Labels on every object; the kustomize install sets the first two as well. */}}
{{- define "ace.labels" -}}
app.kubernetes.io/name: ace-binpacker
app.kubernetes.io/part-of: ace
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "ace.agentLabels" -}}
app.kubernetes.io/name: ace-agent
app.kubernetes.io/part-of: ace
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "ace.serviceHost" -}}
{{ include "ace.fullname" . }}.{{ .Release.Namespace }}.svc
{{- end -}}

{{- define "ace.serviceAccountUser" -}}
system:serviceaccount:{{ .Release.Namespace }}:{{ include "ace.fullname" . }}
{{- end -}}

{{/* The agent's settings for its platform; a value set explicitly wins, "-" means none. */}}
{{- define "ace.agent.kubeletConfigPath" -}}
{{- $d := dict "kubeadm" "/var/lib/kubelet/config.yaml" "gke" "/home/kubernetes/kubelet-config.yaml" "eks" "/etc/kubernetes/kubelet/kubelet-config.json" -}}
{{- $v := default (get $d .Values.agent.platform) .Values.agent.kubeletConfigPath -}}
{{- if ne $v "-" }}{{ $v }}{{ end -}}
{{- end -}}

{{- define "ace.agent.runtimeClassName" -}}
{{- $d := dict "kubeadm" "nvidia" "gke" "-" "eks" "-" -}}
{{- $v := default (get $d .Values.agent.platform) .Values.agent.runtimeClassName -}}
{{- if ne $v "-" }}{{ $v }}{{ end -}}
{{- end -}}

{{- define "ace.agent.driverHostPath" -}}
{{- $d := dict "kubeadm" "-" "gke" "/home/kubernetes/bin/nvidia" "eks" "-" -}}
{{- $v := default (get $d .Values.agent.platform) .Values.agent.driverHostPath -}}
{{- if ne $v "-" }}{{ $v }}{{ end -}}
{{- end -}}

{{/* The webhooks' caBundle line, or nothing (cert-manager injects it; external mode without a value leaves it alone). */}}
{{- define "ace.caBundle" -}}
{{- if eq .Values.certificates.mode "helm" -}}
caBundle: {{ (include "ace.helmPki" . | fromYaml).ca }}
{{- else if and (eq .Values.certificates.mode "external") .Values.certificates.caBundle -}}
caBundle: {{ .Values.certificates.caBundle }}
{{- end -}}
{{- end -}}

{{/*
helm mode: the CA and serving certificate, base64 PEM. An existing Secret (an upgrade) is read back and kept,
so the API server's caBundle and the pods' certificate never change under them; a fresh install makes new
ones. Memoised in .Values._pki so every template of one render sees the same pair.
*/}}
{{- define "ace.helmPki" -}}
{{- $secretName := printf "%s-tls" (include "ace.fullname" .) -}}
{{- $existing := dict -}}
{{- if .Values.certificates.reuseExisting }}{{ $existing = lookup "v1" "Secret" .Release.Namespace $secretName }}{{ end -}}
{{- if and $existing $existing.data (index $existing.data "ca.crt") (index $existing.data "tls.crt") (index $existing.data "tls.key") -}}
ca: {{ index $existing.data "ca.crt" }}
crt: {{ index $existing.data "tls.crt" }}
key: {{ index $existing.data "tls.key" }}
{{- else -}}
{{- if not (hasKey .Values "_pki") -}}
{{- $host := include "ace.serviceHost" . -}}
{{- $svc := include "ace.fullname" . -}}
{{- $ca := genCA (printf "%s-ca" $svc) (int .Values.certificates.caValidityDays) -}}
{{- $cert := genSignedCert $host nil (list $svc (printf "%s.%s" $svc .Release.Namespace) $host (printf "%s.cluster.local" $host)) (int .Values.certificates.certValidityDays) $ca -}}
{{- $_ := set .Values "_pki" (dict "ca" ($ca.Cert | b64enc) "crt" ($cert.Cert | b64enc) "key" ($cert.Key | b64enc)) -}}
{{- end -}}
ca: {{ .Values._pki.ca }}
crt: {{ .Values._pki.crt }}
key: {{ .Values._pki.key }}
{{- end -}}
{{- end -}}
