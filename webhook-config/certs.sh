#!/usr/bin/env bash
# Without cert-manager: make a CA and a serving certificate for ace-binpacker.ace-system.svc, store them as the
# Secret the Deployment mounts, and put the CA into EVERY webhook of both configurations.
# Order: `kubectl apply -k deploy`, then `kubectl apply -k webhook-config`, then this script (it patches those
# configurations; a webhook without caBundle fails TLS and, with failurePolicy Ignore, silently does nothing).
# Needs openssl and kubectl. Running it again issues a new CA and certificate; the pods re-read it within a minute.
set -euo pipefail
NS=${NS:-ace-system}
SVC=${SVC:-ace-binpacker}
KINDS="mutatingwebhookconfiguration validatingwebhookconfiguration"

kubectl get namespace "$NS" >/dev/null 2>&1 || { echo "certs.sh: namespace $NS not found: run 'kubectl apply -k deploy' first" >&2; exit 1; }
for kind in $KINDS; do
  kubectl get "$kind" "$SVC" >/dev/null 2>&1 \
    || { echo "certs.sh: $kind/$SVC not found: run 'kubectl apply -k webhook-config' first, then this script" >&2; exit 1; }
done

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=ace-binpacker-ca" -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=$SVC.$NS.svc" -keyout "$DIR/tls.key" -out "$DIR/tls.csr" 2>/dev/null
printf "subjectAltName=DNS:%s,DNS:%s.%s,DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\n" "$SVC" "$SVC" "$NS" "$SVC" "$NS" "$SVC" "$NS" > "$DIR/ext.cnf"
openssl x509 -req -in "$DIR/tls.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial -days 825 -extfile "$DIR/ext.cnf" -out "$DIR/tls.crt" 2>/dev/null
kubectl -n "$NS" create secret tls "$SVC-tls" --cert="$DIR/tls.crt" --key="$DIR/tls.key" --dry-run=client -o yaml | kubectl apply -f -

CA=$(base64 -w0 < "$DIR/ca.crt")
for kind in $KINDS; do
  count=$(kubectl get "$kind" "$SVC" -o jsonpath='{range .webhooks[*].name}{@}{"\n"}{end}' | grep -c .)
  ops=""
  for i in $(seq 0 $((count - 1))); do
    ops="$ops{\"op\":\"add\",\"path\":\"/webhooks/$i/clientConfig/caBundle\",\"value\":\"$CA\"},"
  done
  kubectl patch "$kind" "$SVC" --type=json -p "[${ops%,}]"
done

for kind in $KINDS; do
  missing=$(kubectl get "$kind" "$SVC" -o jsonpath='{range .webhooks[*]}{.name}={.clientConfig.caBundle}{"\n"}{end}' | grep '=$' || true)
  if [ -n "$missing" ]; then echo "certs.sh: $kind/$SVC still has webhooks without caBundle: $missing" >&2; exit 1; fi
done
echo "certs.sh: Secret $NS/$SVC-tls written; every webhook of $SVC trusts its CA"
