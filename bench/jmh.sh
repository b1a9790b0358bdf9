#!/usr/bin/env bash
# Runs the JMH placement benchmarks. Extra arguments go to JMH, e.g.
#   bench/jmh.sh -p nodes=1213 -p tp=4          (one configuration)
#   bench/jmh.sh PlacementBenchmark.decide$     (one method)
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmarks live in the webhook module's tests; -am builds the modules it uses. Each module writes its own
# test-classpath.txt; the webhook's names the core's and the agent's classes folders of this build.
mvn -B -q ${MVN_FLAGS:-} test-compile dependency:build-classpath -pl webhook -am -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
exec java -cp "webhook/target/test-classes:webhook/target/classes:$(cat webhook/target/test-classpath.txt)" org.openjdk.jmh.Main \
  -rf json -rff webhook/target/jmh-result.json "${@:-PlacementBenchmark}"
