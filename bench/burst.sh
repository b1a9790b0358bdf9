#!/usr/bin/env bash
# A burst on a real control plane (a benchmark script, not a test): etcd, kube-apiserver, kube-scheduler and
# kube-controller-manager v1.36 from KUBE_BIN, the project's own install (CRD, RBAC, ValidatingAdmissionPolicies,
# webhook configurations by URL with a caBundle), two ACE replicas as processes of the packaged jar behind a
# per-connection round-robin proxy (what a Service does), NODES HGX H100 nodes from GFD labels plus the demo
# inventory's others, then PODS TP 2/4/8 pods created by CLIENTS concurrent clients in one namespace.
# Reports refused pods, pods that failed open, GPUs double-booked (ledger objects and pod annotations), the API
# server's own latency for ACE's webhooks (apiserver_admission_webhook_admission_duration_seconds, deltas of two
# scrapes around the burst), ACE's own handler time, ledger conflicts and the load average.
#   bench/burst.sh [NODES=1000] [PODS=200] [CLIENTS=10]
# Environment: KUBE_BIN (default ~/.kubeapitest/k8s/1.36.2-linux-amd64), ACE_APP (a quarkus-app folder; default:
# build this tree), MVN_FLAGS=-o builds offline, KEEP=1 leaves everything running (prints how to stop it),
# ACE_JAVA_OPTS extra JVM flags for the replicas. Everything lives in a fresh folder under /tmp on random ports.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=${1:-1000}; PODS=${2:-200}; CLIENTS=${3:-10}
KUBE_BIN=${KUBE_BIN:-$HOME/.kubeapitest/k8s/1.36.2-linux-amd64}
[ -x "$KUBE_BIN/kube-apiserver" ] || { echo "no kube-apiserver in $KUBE_BIN (set KUBE_BIN)"; exit 2; }
if [ -z "${ACE_APP:-}" ]; then
  mvn -B -q ${MVN_FLAGS:-} package -DskipTests
  ACE_APP=webhook/target/quarkus-app
fi
if [ -z "${BURST_CP:-}" ]; then # the driver (bench.BurstRun) runs from the test classes
  mvn -B -q ${MVN_FLAGS:-} test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
  BURST_CP="target/test-classes:target/classes:$(cat target/test-classpath.txt)"
fi
CP=$BURST_CP
D=$(mktemp -d /tmp/ace-burst.XXXXXX)
BASE=$((20000 + RANDOM % 20000))
ETCD=$BASE; PEER=$((BASE + 1)); API=$((BASE + 2)); LB=$((BASE + 3))
A_HTTPS=$((BASE + 4)); B_HTTPS=$((BASE + 5)); A_MGMT=$((BASE + 6)); B_MGMT=$((BASE + 7))
PIDS=()
stop() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 20); do
    alive=0; for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return; sleep 0.5
  done
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
if [ -z "${KEEP:-}" ]; then trap stop EXIT; fi
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

# --- credentials: one CA for ACE's serving certificate, static tokens for the users, a key for ServiceAccount tokens
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=ace-burst-ca" -keyout "$D/ca.key" -out "$D/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=ace-binpacker" -keyout "$D/tls.key" -out "$D/tls.csr" 2>/dev/null
printf "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:ace-binpacker.ace-system.svc\n" > "$D/san.ext"
openssl x509 -req -in "$D/tls.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" -CAcreateserial -days 2 -extfile "$D/san.ext" -out "$D/tls.crt" 2>/dev/null
openssl genrsa -out "$D/sa.key" 2048 2>/dev/null
openssl rsa -in "$D/sa.key" -pubout -out "$D/sa.pub" 2>/dev/null
ADMIN=$(openssl rand -hex 16); ACE=$(openssl rand -hex 16); SCHED=$(openssl rand -hex 16); KCM=$(openssl rand -hex 16)
cat > "$D/tokens.csv" <<EOF
$ADMIN,admin,admin,system:masters
$ACE,system:serviceaccount:ace-system:ace-binpacker,ace,"system:serviceaccounts,system:serviceaccounts:ace-system"
$SCHED,system:kube-scheduler,kube-scheduler
$KCM,system:kube-controller-manager,kube-controller-manager
EOF
kubeconfig() { # file token
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: burst, cluster: {server: "https://127.0.0.1:$API", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: "$2"}}]
contexts: [{name: burst, context: {cluster: burst, user: u}}]
current-context: burst
EOF
}
kubeconfig "$D/admin.kubeconfig" "$ADMIN"; kubeconfig "$D/ace.kubeconfig" "$ACE"
kubeconfig "$D/scheduler.kubeconfig" "$SCHED"; kubeconfig "$D/kcm.kubeconfig" "$KCM"
K() { "$KUBE_BIN/kubectl" --kubeconfig "$D/admin.kubeconfig" "$@"; }

# --- the control plane
log "control plane in $D (etcd :$ETCD, kube-apiserver :$API)"
"$KUBE_BIN/etcd" --data-dir "$D/etcd" --listen-client-urls "http://127.0.0.1:$ETCD" --advertise-client-urls "http://127.0.0.1:$ETCD" \
  --listen-peer-urls "http://127.0.0.1:$PEER" --initial-advertise-peer-urls "http://127.0.0.1:$PEER" \
  --initial-cluster "default=http://127.0.0.1:$PEER" > "$D/etcd.log" 2>&1 &
PIDS+=($!)
"$KUBE_BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
  --secure-port "$API" --cert-dir "$D/apiserver" --token-auth-file "$D/tokens.csv" --authorization-mode Node,RBAC \
  --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$D/sa.pub" \
  --service-account-signing-key-file "$D/sa.key" --service-cluster-ip-range 10.96.0.0/16 > "$D/apiserver.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 120); do K get --raw /readyz > /dev/null 2>&1 && break; sleep 0.5; done
K get --raw /readyz > /dev/null
"$KUBE_BIN/kube-scheduler" --kubeconfig "$D/scheduler.kubeconfig" --authentication-kubeconfig "$D/scheduler.kubeconfig" \
  --authorization-kubeconfig "$D/scheduler.kubeconfig" --leader-elect=false --secure-port 0 > "$D/scheduler.log" 2>&1 &
PIDS+=($!)
"$KUBE_BIN/kube-controller-manager" --kubeconfig "$D/kcm.kubeconfig" --leader-elect=false --secure-port 0 \
  --controllers serviceaccount-controller,serviceaccount-token-controller,namespace-controller,garbage-collector-controller,deployment-controller,replicaset-controller \
  --service-account-private-key-file "$D/sa.key" --root-ca-file "$D/apiserver/apiserver.crt" \
  --use-service-account-credentials=false > "$D/kcm.log" 2>&1 &
PIDS+=($!)

# --- the project's install: CRD, RBAC, policies, webhooks by URL (the proxy in front of both replicas)
K apply -f deploy/namespace.yaml -f deploy/gpuledger-crd.yaml -f deploy/gpunodereport-crd.yaml > /dev/null
K apply -n ace-system -f deploy/serviceaccount.yaml -f deploy/rbac.yaml > /dev/null
K wait --for condition=Established crd/gpuledgers.ace.dev crd/gpunodereports.ace.dev > /dev/null
CA_B64=$(base64 -w0 < "$D/ca.crt")
for f in webhook-config/mutating.yaml webhook-config/validating.yaml; do
  sed -E "s#^( *)service: \{name: ace-binpacker, namespace: ace-system, path: ([^,]*), port: 443\}#\1url: https://127.0.0.1:$LB\2\n\1caBundle: $CA_B64#" "$f"
  echo "---"
done > "$D/webhooks.yaml"
K apply -f webhook-config/exempt-guard.yaml -f webhook-config/pod-outputs-guard.yaml > /dev/null
log "nodes: $NODES HGX H100 + the demo inventory"
java -cp "$CP" dev.ace.binpacker.bench.BurstRun nodes "$D/admin.kubeconfig" "$NODES"

# --- two replicas of the packaged jar, and the proxy the API server calls
replica() { # name https mgmt
  HOSTNAME=$1 KUBECONFIG="$D/ace.kubeconfig" ACE_MODE=cluster ACE_CONTROLLER_NAMESPACE=ace-system \
  QUARKUS_TLS_WEBHOOK_KEY_STORE_PEM_0_CERT="$D/tls.crt" QUARKUS_TLS_WEBHOOK_KEY_STORE_PEM_0_KEY="$D/tls.key" \
  java ${ACE_JAVA_OPTS:-} -Dquarkus.http.ssl-port="$2" -Dquarkus.management.port="$3" -jar "$ACE_APP/quarkus-run.jar" serve \
    > "$D/$1.log" 2>&1 &
  PIDS+=($!)
}
log "replicas: ace-a (:$A_HTTPS, mgmt :$A_MGMT), ace-b (:$B_HTTPS, mgmt :$B_MGMT), proxy :$LB"
T_START=$(date +%s.%N)
replica ace-a "$A_HTTPS" "$A_MGMT"
replica ace-b "$B_HTTPS" "$B_MGMT"
python3 bench/tcp-rr.py "$LB" "$A_HTTPS" "$B_HTTPS" > "$D/proxy.log" 2>&1 &
PIDS+=($!)
for m in "$A_MGMT" "$B_MGMT"; do
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$m/q/health/ready" > /dev/null && break; sleep 1; done
  curl -sf "http://127.0.0.1:$m/q/health/ready" > /dev/null || { echo "replica on :$m never ready"; tail -30 "$D"/ace-*.log; exit 1; }
done
log "both replicas ready after $(echo "$(date +%s.%N) - $T_START" | bc) s"
K apply -f "$D/webhooks.yaml" > /dev/null
K create namespace ml > /dev/null
for _ in $(seq 1 60); do K -n ml get serviceaccount default > /dev/null 2>&1 && break; sleep 0.5; done
K -n ml get serviceaccount default > /dev/null || { echo "kube-controller-manager made no ServiceAccount:"; tail -5 "$D/kcm.log"; exit 1; }
sleep 3 # the API server's webhook configuration informer picks the configurations up

# --- the burst
K get --raw /metrics > "$D/metrics-before.txt"
for m in "$A_MGMT" "$B_MGMT"; do curl -s "http://127.0.0.1:$m/q/metrics" > "$D/ace-$m-before.txt"; done
log "burst: $PODS pods from $CLIENTS clients; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp "$CP" dev.ace.binpacker.bench.BurstRun burst "$D/admin.kubeconfig" ml "$PODS" "$CLIENTS"
echo "load average after the burst: $(cut -d' ' -f1-3 /proc/loadavg)"
K get --raw /metrics > "$D/metrics-after.txt"
for m in "$A_MGMT" "$B_MGMT"; do curl -s "http://127.0.0.1:$m/q/metrics" > "$D/ace-$m-after.txt"; done
java -cp "$CP" dev.ace.binpacker.bench.BurstRun latency "$D/metrics-before.txt" "$D/metrics-after.txt"
grep -h '^apiserver_admission_webhook_fail_open_count{.*ace.dev' "$D/metrics-after.txt" | sed 's/^/failed open (API server): /' || echo "failed open (API server): 0"
grep -h '^apiserver_admission_webhook_request_total{.*ace.dev.*code="0"' "$D/metrics-after.txt" | sed 's/^/webhook calls without an answer: /' || true
for m in "$A_MGMT" "$B_MGMT"; do
  # a replica that answered nothing has no such series: grep finds nothing, which is a 0, not a failure
  n=$( (grep -h '^ace_admission_requests_total{.*webhook="mutate"' "$D/ace-$m-after.txt" || true) | awk '{s+=$2} END {print s+0}')
  c=$( (grep -h '^ace_ledger_conflicts_total' "$D/ace-$m-after.txt" || true) | awk '{s+=$2} END {print s+0}')
  s=$( (grep -h '^ace_admission_duration_seconds_sum{.*mutate' "$D/ace-$m-after.txt" || true) | awk '{s+=$2} END {print s+0}')
  echo "replica mgmt :$m: mutate requests $n (since start), ace handler seconds total $s, ledger conflicts $c"
done
sleep 5 # the informers catch up with the last pods
java -cp "$CP" dev.ace.binpacker.bench.BurstRun check "$D/admin.kubeconfig" ml || echo "CHECK FAILED"
echo "proxy connections: $(grep -c connection "$D/proxy.log") ($(grep -c "> $A_HTTPS" "$D/proxy.log") to ace-a)"
echo "blocked event loop warnings: $( (grep -hc 'has been blocked' "$D"/ace-*.log || true) | paste -sd+ | bc); ERROR lines: $( (grep -h ' ERROR ' "$D"/ace-*.log || true) | wc -l)"
echo "logs and scrapes: $D"
if [ -n "${KEEP:-}" ]; then echo "still running; stop with: kill ${PIDS[*]}"; fi
