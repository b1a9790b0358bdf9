#!/usr/bin/env bash
# Without cert-manager: make a CA and a serving certificate for ace-binpacker.ace-system.svc, store them as the
# Secret the Deployment mounts, and put the CA into both webhook configurations. Needs openssl and kubectl.
set -euo pipefail
NS=${NS:-ace-system}
SVC=${SVC:-ace-binpacker}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=ace-binpacker-ca" -keyout "$DIR/ca.key" -out "$DIR/ca.crt"
openssl req -newkey rsa:2048 -nodes -subj "/CN=$SVC.$NS.svc" -keyout "$DIR/tls.key" -out "$DIR/tls.csr"
printf "subjectAltName=DNS:%s,DNS:%s.%s,DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\n" "$SVC" "$SVC" "$NS" "$SVC" "$NS" "$SVC" "$NS" > "$DIR/ext.cnf"
openssl x509 -req -in "$DIR/tls.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial -days 825 -extfile "$DIR/ext.cnf" -out "$DIR/tls.crt"
kubectl -n "$NS" create secret tls "$SVC-tls" --cert="$DIR/tls.crt" --key="$DIR/tls.key" --dry-run=client -o yaml | kubectl apply -f -
CA=$(base64 -w0 < "$DIR/ca.crt")
for kind in mutatingwebhookconfiguration validatingwebhookconfiguration; do
  kubectl patch "$kind" ace-binpacker --type=json -p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$CA\"}]"
done
