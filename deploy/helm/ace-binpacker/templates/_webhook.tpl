{{/* Shared parts of the webhook entries, as webhook-config/mutating.yaml and validating.yaml spell them. */}}
{{- define "ace.webhook.clientConfig" -}}
clientConfig:
  service: {name: {{ include "ace.fullname" .root }}, namespace: {{ .root.Release.Namespace }}, path: {{ .path }}, port: 443}
  {{- with include "ace.caBundle" .root }}
  {{- . | nindent 2 }}
  {{- end }}
{{- end -}}

{{- define "ace.webhook.namespaceSelector" -}}
namespaceSelector:
  matchExpressions:
  - {key: ace.dev/policy, operator: NotIn, values: [exempt]}
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ concat .Values.webhooks.excludedNamespaces (list .Release.Namespace) | uniq | toJson }}
{{- end -}}

{{- define "ace.webhook.podRules" -}}
rules:
- apiGroups: [""]
  apiVersions: [v1]
  operations: [CREATE]
  resources: [pods]
  scope: Namespaced
{{- end -}}

{{- define "ace.webhook.matchConditions" -}}
matchConditions:
# Only pods that ask for whole GPUs, or carry one of ACE's own output keys (which ACE drops or refuses), reach the
# webhook (CEL, GA in Kubernetes 1.30).
- name: whole-gpus-or-ace-keys
  expression: >-
    object.spec.containers.exists(c, has(c.resources) &&
      ((has(c.resources.limits) && 'nvidia.com/gpu' in c.resources.limits) ||
       (has(c.resources.requests) && 'nvidia.com/gpu' in c.resources.requests))) ||
    (has(object.spec.initContainers) && object.spec.initContainers.exists(c, has(c.resources) &&
      has(c.resources.limits) && 'nvidia.com/gpu' in c.resources.limits)) ||
    (has(object.metadata.annotations) && ['ace.dev/reservation', 'ace.dev/decision', 'ace.dev/rewritten-from']
      .exists(k, k in object.metadata.annotations)) ||
    (has(object.spec.schedulingGates) && object.spec.schedulingGates.exists(g, g.name == 'ace.dev/waiting-for-clique'))
{{- end -}}

{{- define "ace.webhook.annotations" -}}
{{- if eq .Values.certificates.mode "cert-manager" -}}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include "ace.fullname" . }}
{{- end -}}
{{- end -}}
