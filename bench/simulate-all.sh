#!/usr/bin/env bash
# Regenerates every figure of docs/benchmarks.md (about 1-2 h on 2 shared cores). One simulation at a
# time, at low priority; outputs under docs/benchmarks/. Pass MVN_FLAGS=-o to build offline.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q ${MVN_FLAGS:-} package -DskipTests
# a copy of the build, so a rebuild during the run cannot change the engine under it
APP=$(mktemp -d)
cp -r target/quarkus-app "$APP/"
trap 'rm -rf "$APP"' EXIT
J="nice -n 10 java -jar $APP/quarkus-app/quarkus-run.jar simulate"
MAIN=random,k8s-default,k8s-binpack,best-fit,dot-prod,clustering,packing,fgd,device-plugin,hived,ace
VARIANTS=random-kube,best-fit-kube,fgd-kube,ace-nofrag,ace-neutral,ace-frag-equal
# Protocol A, the paper's three headline lists: every policy and variant, seeds 42-51
for t in default multigpu50 gpushare100; do
  $J --trace openb-$t --policies $MAIN,$VARIANTS --seeds 42-51 --report docs/benchmarks > docs/benchmarks/openb-$t.txt
done
# Protocol A, every other list the paper publishes: the paper's policies and ACE
for t in cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80 gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40; do
  $J --trace openb-$t --policies random,dot-prod,clustering,packing,best-fit,fgd,ace,ace-frag-equal --seeds 42-51 --report docs/benchmarks/lists > docs/benchmarks/lists/openb-$t.txt
done
# Protocol B at two loads, seeds 1-3
for r in 50 60; do
  $J --trace fleet --seeds 1-3 --rate $r --policies $MAIN,ace-nofrag,ace-neutral,ace-frag-equal,ace-tp2-hgx --report docs/benchmarks/fleet-rate$r > docs/benchmarks/fleet-rate$r/fleet.txt
done
# Gap to the optimum on 16-node instances
$J --trace openb-default --optimal 16 --seeds 42-44 --time-limit 60 --policies ace,fgd,best-fit > docs/benchmarks/optimal-16.txt
