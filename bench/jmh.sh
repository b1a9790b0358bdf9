#!/usr/bin/env bash
# Runs the JMH placement benchmarks. Extra arguments go to JMH, e.g.
#   bench/jmh.sh -p nodes=1213 -p tp=4          (one configuration)
#   bench/jmh.sh PlacementBenchmark.decide$     (one method)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q ${MVN_FLAGS:-} test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
exec java -cp "target/test-classes:target/classes:$(cat target/test-classpath.txt)" org.openjdk.jmh.Main \
  -rf json -rff target/jmh-result.json "${@:-PlacementBenchmark}"
