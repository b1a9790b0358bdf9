#!/usr/bin/env bash
# Load run against a real `serve --nodes FILE`: a generated inventory of NODES annotated nodes
# (bench.Inventories), dry-run TP 2/4/8 admission reviews offered open loop at RATE/s for SECONDS,
# client latency and the server's own time per request (ace_admission_duration_seconds histogram).
#   bench/load.sh [NODES=12500] [RATE=500] [SECONDS=20]
# Ports: HTTPS_PORT (8443) and MGMT_PORT (9000) from the environment; MVN_FLAGS=-o builds offline.
set -euo pipefail
cd "$(dirname "$0")/.."
NODES=${1:-12500}; RATE=${2:-500}; SECONDS_=${3:-20}
HTTPS_PORT=${HTTPS_PORT:-8443}; MGMT_PORT=${MGMT_PORT:-9000}
mvn -B -q ${MVN_FLAGS:-} package -DskipTests
# The bench classes are in the webhook module's tests; -am resolves core from the reactor (no mvn install).
mvn -B -q ${MVN_FLAGS:-} -pl webhook -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
CP="webhook/target/test-classes:webhook/target/classes:$(cat webhook/target/test-classpath.txt)"
mkdir -p target
INVENTORY=target/inventory-$NODES.yaml
[ -f "$INVENTORY" ] || java -cp "$CP" dev.ace.binpacker.bench.Inventories "$NODES" "$INVENTORY"
java -Dquarkus.http.ssl-port="$HTTPS_PORT" -Dquarkus.management.port="$MGMT_PORT" \
  -jar webhook/target/quarkus-app/quarkus-run.jar serve --nodes "$INVENTORY" > target/load-serve.log 2>&1 &
SERVE=$!
trap 'kill $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  curl -sf "http://localhost:$MGMT_PORT/q/health/ready" > /dev/null && break
  sleep 1
done
REVIEWS="tests/admission/requests/tp2.json tests/admission/requests/tp4.json tests/admission/requests/tp8.json"
echo "warm-up"
java -cp "$CP" dev.ace.binpacker.bench.LoadClient "https://localhost:$HTTPS_PORT" "http://localhost:$MGMT_PORT" "$RATE" 10 $REVIEWS > /dev/null
uptime
java -cp "$CP" dev.ace.binpacker.bench.LoadClient "https://localhost:$HTTPS_PORT" "http://localhost:$MGMT_PORT" "$RATE" "$SECONDS_" $REVIEWS
grep -m1 "standalone mode" target/load-serve.log || true
