#!/usr/bin/env bash
# Regenerates every figure of docs/benchmarks.md; outputs under docs/benchmarks/. Four groups run side
# by side at low priority (on a quiet 2-core machine about 30-40 min; on 2 cores shared with other
# builds about 1 h). Pass MVN_FLAGS=-o to build offline.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q ${MVN_FLAGS:-} package -DskipTests
# a copy of the build, so a rebuild during the run cannot change the engine under it
APP=$(mktemp -d)
cp -r sim/target/ace-sim.jar sim/target/lib "$APP/"
trap 'rm -rf "$APP"' EXIT
J="nice -n 10 java -jar $APP/ace-sim.jar simulate"
MAIN=random,k8s-default,k8s-binpack,best-fit,dot-prod,clustering,packing,fgd,device-plugin,hived,ace
# ace-exact: the decision rule before issue 20 (exact fragmentation, ties to the fuller node);
# ace-mix-requests: the demand mix counted by request; ace-frag-equal: the one-scale weighting;
# ace-gross: TP damage counted gross, not net of the request's own footprint (the engine before it);
# ace-shares-before: shares not counted in the demand mix and charged a whole GPU's single-GPU capacity
# ace-shapes-64: the fragmentation target capped at 64 shapes (the engine before commit 7337aaa)
# ace-cpu-engine: CPU-only pods (which the webhook never sees) by the engine's learned target, not FGD's score
# ace-memory-blind: the fragmentation measure blind to memory (the engine before it counted memory as CPU)
VARIANTS=random-kube,best-fit-kube,fgd-kube,ace-exact,ace-mix-requests,ace-frag-equal,ace-gross,ace-shares-before,ace-shapes-64,ace-cpu-engine,ace-memory-blind
LISTS_POLICIES=random,dot-prod,clustering,packing,best-fit,fgd,ace,ace-shapes-64
mkdir -p docs/benchmarks/lists docs/benchmarks/fleet-rate50 docs/benchmarks/fleet-rate60
headline() { # Protocol A, the paper's three headline lists: every policy and variant, seeds 42-51
  for t in default multigpu50 gpushare100; do
    $J --trace openb-$t --policies $MAIN,$VARIANTS --seeds 42-51 --report docs/benchmarks > docs/benchmarks/openb-$t.txt
  done
}
lists() { # Protocol A, every other list the paper publishes: lists POLICIES LIST...
  local policies=$1; shift
  for t in "$@"; do
    $J --trace openb-$t --policies $policies --seeds 42-51 --report docs/benchmarks/lists > docs/benchmarks/lists/openb-$t.txt
  done
}
fleet_and_optimum() {
  for r in 50 60; do # Protocol B at two loads, seeds 1-3
    $J --trace fleet --seeds 1-3 --rate $r --policies $MAIN,ace-no-earmark,ace-net-all,ace-exact,ace-mix-requests,ace-gross,ace-tp2-hgx,ace-batch-general-first,ace-batch-inference-first,ace-batch-general-slicing,ace-batch-no-yield,ace-batch-no-inference,ace-batch-no-slicing --report docs/benchmarks/fleet-rate$r > docs/benchmarks/fleet-rate$r/fleet.txt
    # the floor under TP waiting that no clique-only policy can beat on these traces (sim.WaitBound, SCIP)
    $J --trace fleet --seeds 1-3 --rate $r --wait-bound 5,10,20 --time-limit 300 > docs/benchmarks/fleet-rate$r/wait-floor.txt
  done
  # how much inference capacity protocol B's aims need: the floor and ACE with more HGX boards (60 pods/h, seeds 1-3)
  for n in 66 67 68 70 71 72; do
    $J --trace fleet --seeds 1-3 --rate 60 --hgx $n --wait-bound 5 --time-limit 300
    $J --trace fleet --seeds 1-3 --rate 60 --hgx $n --policies ace
  done > docs/benchmarks/fleet-rate60/capacity.txt
  # Gap to the optimum: 16-node instances (CP-SAT 60 s), and 6-node instances CP-SAT can prove (300 s)
  $J --trace openb-default --optimal 16 --seeds 42-44 --time-limit 60 --policies ace,fgd,best-fit > docs/benchmarks/optimal-16.txt
  $J --trace openb-default --optimal 6 --seeds 42-46 --time-limit 300 --policies ace,fgd,best-fit > docs/benchmarks/optimal-6.txt
}
headline &
lists $LISTS_POLICIES,ace-cpu-engine cpu050 cpu100 cpu200 cpu250 gpushare40 gpushare60 gpushare80 &
lists $LISTS_POLICIES gpuspec10 gpuspec20 gpuspec25 gpuspec33 multigpu20 multigpu30 multigpu40 &
fleet_and_optimum &
wait
# the summary tables of docs/benchmarks.md (faithfulness, ACE against the published FGD) from the JSON above
python3 bench/tables.py docs/benchmarks > docs/benchmarks/tables.md
