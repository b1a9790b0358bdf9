#!/usr/bin/env bash
# Without cert-manager: a CA and a serving certificate for ace-binpacker.ace-system.svc, the Secret the Deployment
# mounts, and the CA in EVERY webhook of both configurations.
# Order: `kubectl apply -k deploy`, then `kubectl apply -k webhook-config`, then this script (it patches those
# configurations; a webhook without caBundle fails TLS and, with failurePolicy Ignore, silently does nothing).
# Needs openssl, kubectl and bash; no jq.
#
# Run it again to rotate (docs/operations.md "Rotate certificates"). No rotation opens a gap in which the API
# server cannot verify ACE:
#   - the CA is kept (Secret $SVC-ca) and only the serving certificate is re-issued under it, so the caBundle
#     the API server holds verifies the old certificate and the new one alike;
#   - when the CA itself must change (ROTATE_CA=1, or less than 30 days of validity left), the new CA is added to
#     every caBundle first, next to the old one, and only then is the serving certificate switched (the pods
#     re-read it within a minute, still trusted either way);
#   - PRUNE_OLD_CA=1, once every pod serves the new certificate, drops the other CAs from the caBundles.
set -euo pipefail
NS=${NS:-ace-system}
SVC=${SVC:-ace-binpacker}
OPENSSL=${OPENSSL:-openssl}
KINDS="mutatingwebhookconfiguration validatingwebhookconfiguration"
CA_DAYS=${CA_DAYS:-3650}
CERT_DAYS=${CERT_DAYS:-825}

command -v "$OPENSSL" >/dev/null 2>&1 || { echo "certs.sh: needs openssl (not found: $OPENSSL)" >&2; exit 1; }
kubectl get namespace "$NS" >/dev/null 2>&1 || { echo "certs.sh: namespace $NS not found: run 'kubectl apply -k deploy' first" >&2; exit 1; }
for kind in $KINDS; do
  kubectl get "$kind" "$SVC" >/dev/null 2>&1 \
    || { echo "certs.sh: $kind/$SVC not found: run 'kubectl apply -k webhook-config' first, then this script" >&2; exit 1; }
done

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
b64() { base64 -w0 < "$1"; }
secret_key() {  # secret_key NAME KEY: the decoded value, or nothing when the Secret or key is absent
  kubectl -n "$NS" get secret "$1" -o "jsonpath={.data.${2//./\\.}}" 2>/dev/null | base64 -d 2>/dev/null || true
}
apply_secret() {  # apply_secret NAME TYPE KEY=FILE...
  local name=$1 type=$2; shift 2
  { printf '{"apiVersion": "v1", "kind": "Secret", "type": "%s",\n "metadata": {"name": "%s", "namespace": "%s"},\n "data": {\n' "$type" "$name" "$NS"
    local sep=""
    for kv in "$@"; do printf '%s  "%s": "%s"' "$sep" "${kv%%=*}" "$(b64 "${kv#*=}")"; sep=$',\n'; done
    printf '\n}}\n'; } | kubectl apply -f - >/dev/null
}
fingerprint() { "$OPENSSL" x509 -noout -fingerprint -sha256 -in "$1" | cut -d= -f2; }

# 1. The CA: kept from the last run unless asked to change or about to expire.
secret_key "$SVC-ca" ca.crt > "$DIR/ca.crt"
secret_key "$SVC-ca" ca.key > "$DIR/ca.key"
new_ca=no
if [ ! -s "$DIR/ca.crt" ] || [ ! -s "$DIR/ca.key" ]; then
  new_ca=yes; why="no CA yet"
elif [ "${ROTATE_CA:-0}" = 1 ]; then
  new_ca=yes; why="ROTATE_CA=1"
elif ! "$OPENSSL" x509 -checkend 2592000 -noout -in "$DIR/ca.crt" >/dev/null; then
  new_ca=yes; why="the CA expires within 30 days"
fi
if [ "$new_ca" = yes ]; then
  "$OPENSSL" req -x509 -newkey rsa:2048 -nodes -days "$CA_DAYS" -subj "/CN=$SVC-ca-$(date -u +%Y%m%d%H%M%S)" \
    -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
fi

# 2. Every caBundle: the CA, plus (unless pruning) the unexpired CAs it already held. Patched before the serving
#    certificate changes, so whatever certificate a pod serves during the switch, the API server trusts it.
: > "$DIR/old-bundle.pem"
for kind in $KINDS; do
  kubectl get "$kind" "$SVC" -o jsonpath='{range .webhooks[*]}{.clientConfig.caBundle}{"\n"}{end}' |
    while read -r bundle; do [ -n "$bundle" ] && printf '%s' "$bundle" | base64 -d >> "$DIR/old-bundle.pem"; done || true
done
cp "$DIR/ca.crt" "$DIR/bundle.pem"
echo "$(fingerprint "$DIR/ca.crt")" > "$DIR/seen"
if [ "${PRUNE_OLD_CA:-0}" != 1 ]; then
  awk -v dir="$DIR" '/-----BEGIN CERTIFICATE-----/{n++} n{print > (dir "/old-" n ".pem")}' "$DIR/old-bundle.pem"
  for old in "$DIR"/old-[0-9]*.pem; do
    [ -e "$old" ] || continue
    fp=$(fingerprint "$old" 2>/dev/null) || continue
    grep -qx "$fp" "$DIR/seen" && continue
    "$OPENSSL" x509 -checkend 0 -noout -in "$old" >/dev/null 2>&1 || continue   # expired: nothing it signed is served
    echo "$fp" >> "$DIR/seen"
    cat "$old" >> "$DIR/bundle.pem"
  done
fi
BUNDLE=$(b64 "$DIR/bundle.pem")
for kind in $KINDS; do
  ops="" i=0
  while IFS= read -r current; do
    [ "$current" = "$BUNDLE" ] || ops="$ops{\"op\":\"add\",\"path\":\"/webhooks/$i/clientConfig/caBundle\",\"value\":\"$BUNDLE\"},"
    i=$((i + 1))
  done < <(kubectl get "$kind" "$SVC" -o jsonpath='{range .webhooks[*]}{.name}:[{.clientConfig.caBundle}]{"\n"}{end}' | sed -e 's/^[^[]*\[//' -e 's/\]$//')
  [ -z "$ops" ] || kubectl patch "$kind" "$SVC" --type=json -p "[${ops%,}]" >/dev/null
done
[ "$new_ca" = no ] || apply_secret "$SVC-ca" Opaque ca.crt="$DIR/ca.crt" ca.key="$DIR/ca.key"

# 3. A new serving certificate under the CA, then the Secret the pods mount (re-read within a minute).
"$OPENSSL" req -newkey rsa:2048 -nodes -subj "/CN=$SVC.$NS.svc" -keyout "$DIR/tls.key" -out "$DIR/tls.csr" 2>/dev/null
printf "subjectAltName=DNS:%s,DNS:%s.%s,DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\n" "$SVC" "$SVC" "$NS" "$SVC" "$NS" "$SVC" "$NS" > "$DIR/ext.cnf"
"$OPENSSL" x509 -req -in "$DIR/tls.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -set_serial "0x$("$OPENSSL" rand -hex 16)" \
  -days "$CERT_DAYS" -extfile "$DIR/ext.cnf" -out "$DIR/tls.crt" 2>/dev/null
"$OPENSSL" verify -CAfile "$DIR/bundle.pem" "$DIR/tls.crt" >/dev/null \
  || { echo "certs.sh: the new certificate does not verify against the caBundle; nothing served was changed" >&2; exit 1; }
apply_secret "$SVC-tls" kubernetes.io/tls tls.crt="$DIR/tls.crt" tls.key="$DIR/tls.key" ca.crt="$DIR/ca.crt"

# 4. Every webhook holds the bundle that verifies the new certificate.
for kind in $KINDS; do
  # name:[caBundle] per line: brackets cannot occur in a name or in base64.
  missing=$(kubectl get "$kind" "$SVC" -o jsonpath='{range .webhooks[*]}{.name}:[{.clientConfig.caBundle}]{"\n"}{end}' | grep ':\[\]$' | sed 's/:\[\]$//' || true)
  if [ -n "$missing" ]; then echo "certs.sh: $kind/$SVC still has webhooks without caBundle: $missing" >&2; exit 1; fi
done
cas=$(grep -c 'BEGIN CERTIFICATE' "$DIR/bundle.pem")
if [ "$new_ca" = yes ]; then ca_note="new CA ($why)"; else ca_note="CA kept"; fi
echo "certs.sh: Secret $NS/$SVC-tls written ($ca_note); every webhook of $SVC trusts it ($cas CA(s) in caBundle)"
