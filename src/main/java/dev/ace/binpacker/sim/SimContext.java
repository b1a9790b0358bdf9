package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.Ledger;
import java.util.Random;

/**
 * What a policy sees during one run: the static cluster, the live state and its ledger, a seeded
 * RNG for ties, FGD's target workload and the per-node fragmentation, and memory in use (the
 * engine does not track memory; kube-scheduler's scores use it).
 */
public record SimContext(SimCluster cluster, ClusterState state, Ledger ledger, Random rnd,
                         TargetWorkload target, FragTracker frag, long[] memUsed) {
    static SimContext fresh(SimCluster cluster, TargetWorkload target, long tieSeed) {
        ClusterState s = cluster.freshState();
        return new SimContext(cluster, s, new Ledger(s), new Random(tieSeed), target,
                new FragTracker(s, cluster, target), new long[cluster.size()]);
    }
}
