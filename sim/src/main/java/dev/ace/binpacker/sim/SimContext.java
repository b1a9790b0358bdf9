package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.Ledger;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

/**
 * What a policy sees during one run: the static cluster, the live state and its ledger, a seeded
 * RNG for ties, FGD's target workload and the per-node fragmentation, memory in use (kube-scheduler's
 * scores read it; the memory check of runs that enforce it too), and each node's rank for the baselines'
 * deterministic ties (lower wins).
 */
public record SimContext(SimCluster cluster, ClusterState state, Ledger ledger, Random rnd,
                         TargetWorkload target, FragTracker frag, MemoryBook memory, int[] tieRank) {
    /** Ties in node-name order. */
    static SimContext fresh(SimCluster cluster, TargetWorkload target, long tieSeed) {
        return fresh(cluster, target, tieSeed, nameOrder(cluster));
    }

    /**
     * Ties in the order the FGD authors' simulator gives its nodes for one run: it sorts them by
     * name, then renames node {@code i} to {@code "%04d-" + name} with {@code i}'s entry of a random
     * permutation drawn from the run's seed, so "the smallest name wins a tie" is a random order
     * that stays fixed for the run and is the same for every policy of that seed.
     */
    static SimContext forRun(SimCluster cluster, TargetWorkload target, long tieSeed, long nodeOrderSeed) {
        return fresh(cluster, target, tieSeed, shuffledOrder(cluster, nodeOrderSeed));
    }

    private static SimContext fresh(SimCluster cluster, TargetWorkload target, long tieSeed, int[] tieRank) {
        ClusterState s = cluster.freshState();
        return new SimContext(cluster, s, new Ledger(s), new Random(tieSeed), target,
                new FragTracker(s, cluster, target), new MemoryBook(cluster.size()), tieRank);
    }

    private static Integer[] byName(SimCluster cluster) {
        Integer[] idx = new Integer[cluster.size()];
        for (int i = 0; i < idx.length; i++) idx[i] = i;
        Arrays.sort(idx, Comparator.comparing(i -> cluster.nodes().get(i).name()));
        return idx;
    }

    static int[] nameOrder(SimCluster cluster) {
        Integer[] idx = byName(cluster);
        int[] rank = new int[idx.length];
        for (int r = 0; r < idx.length; r++) rank[idx[r]] = r;
        return rank;
    }

    static int[] shuffledOrder(SimCluster cluster, long seed) {
        Integer[] idx = byName(cluster);
        int[] perm = new int[idx.length];
        for (int i = 0; i < perm.length; i++) perm[i] = i;
        Random r = new Random(seed);
        for (int i = perm.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
        }
        int[] rank = new int[idx.length];
        for (int i = 0; i < idx.length; i++) rank[idx[i]] = perm[i];
        return rank;
    }
}
