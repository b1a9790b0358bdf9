package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;
import dev.ace.binpacker.placement.Ledger;
import dev.ace.binpacker.placement.Reservation;

/**
 * Shared skeleton of the scoring baselines, as the FGD authors' simulator runs them: filter every
 * node, score the feasible ones with the policy's plugin alone (their scheduler configuration
 * disables kube-scheduler's default score plugins), take the highest score, a tie going to the
 * lexicographically smallest node name (their vendored {@code genericScheduler.selectHost}) - which
 * in their simulator is a seeded random node order, because it prefixes every node name with a
 * permutation index ({@link SimContext#tieRank}, {@link SimContext#forRun}) - then
 * commit the pod's GPUs through {@link Ledger#reserve}, the production capacity accounting.
 * {@link #withKubeDefaults()} gives the variant with kube-scheduler's scores beside the plugin and
 * random ties (upstream kube-scheduler's selectHost).
 */
abstract class Baseline implements Policy {
    final SimContext c;
    final ClusterState state;
    final SimCluster cluster;
    /** GPU set chosen by the last {@link #score} call on its node. */
    long mask;
    final int[] free = new int[64];

    Baseline(SimContext c) {
        this.c = c;
        this.state = c.state();
        this.cluster = c.cluster();
    }

    /** Score of placing the pod on a feasible node (higher wins); sets {@link #mask}. NaN = skip. */
    abstract double score(int node, SimPod pod);

    @Override
    public boolean place(SimPod pod, String id) {
        int best = -1;
        long bestMask = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        int ties = 0;
        for (int i = 0; i < cluster.size(); i++) {
            if (!feasible(i, pod)) continue;
            double s = score(i, pod);
            if (Double.isNaN(s)) continue;
            if (kubeDefaults) s = 1000 * s + kubeDefaults(i, pod);
            if (s > bestScore) {
                bestScore = s; best = i; bestMask = mask; ties = 1;
            } else if (s == bestScore && (randomTies ? c.rnd().nextInt(++ties) == 0 : c.tieRank()[i] < c.tieRank()[best])) {
                best = i; bestMask = mask;
            }
        }
        if (best < 0) return false;
        return commit(best, bestMask, pod, id);
    }

    /**
     * This policy with kube-scheduler's default scores at weight 1 beside its own at weight 1000
     * and ties at random: the configuration of earlier versions of this simulator, kept as the
     * {@code -kube} rows because it is how the plugin would behave in a stock kube-scheduler.
     */
    Baseline withKubeDefaults() {
        kubeDefaults = true;
        randomTies = true;
        return this;
    }

    boolean commit(int node, long gpuMask, SimPod pod, String id) {
        Reservation r = new Reservation(id, cluster.nodes().get(node).name(), gpuMask,
                pod.cpuOnly() ? 1000 : pod.milli(), pod.cpuMilli(), 1, null, 0, false);
        Ledger.Outcome o = c.ledger().reserve(r);
        if (o != Ledger.Outcome.RESERVED) throw new IllegalStateException(getClass().getSimpleName() + " chose a taken set: " + o);
        c.memory().take(id, node, pod.memMib());
        placed(node, pod);
        return true;
    }

    /**
     * kube-scheduler's default scores beside the plugin's: of those only LeastAllocated and
     * BalancedAllocation (CPU, memory) differ between nodes here, so they decide every tie of the
     * plugin's integer score.
     */
    boolean kubeDefaults;
    /** Ties broken uniformly at random (seeded), as upstream kube-scheduler does, instead of by name. */
    boolean randomTies;

    long kubeDefaults(int i, SimPod pod) {
        double cpuCap = cluster.cpuCap(i), memCap = cluster.memCap(i);
        double cpu = Math.min(1, (cpuCap - state.cpuFree(i) + pod.cpuMilli()) / cpuCap);
        double mem = Math.min(1, (c.memory().used(i) + pod.memMib()) / memCap);
        long least = ((long) ((1 - cpu) * 100) + (long) ((1 - mem) * 100)) / 2;
        long balanced = (long) ((1 - Math.abs(cpu - mem)) * 100);
        return least + balanced;
    }

    @Override
    public void release(String id) {
        c.ledger().release(id).ifPresent(r -> {
            c.memory().giveBack(id);
            released(state.indexOf(r.node()), r);
        });
    }

    @Override
    public java.util.Optional<Reservation> reservation(String id) { return c.ledger().get(id); }

    /** Hook told of a departure. */
    void released(int node, Reservation r) {}

    /** Hook for policies that remember what went where. */
    void placed(int node, SimPod pod) {}

    boolean feasible(int i, SimPod pod) {
        if (pod.models() != -1 && (pod.models() & (1 << cluster.modelOf(i))) == 0) return false;
        if (state.cpuFree(i) < pod.cpuMilli()) return false;
        if (!cluster.memoryFits(i, c.memory().used(i), pod.memMib())) return false;
        if (pod.cpuOnly()) return true;
        if (pod.isShare()) {
            for (int g = 0; g < cluster.gpus(i); g++) if (state.milliFree(i, g) >= pod.milli()) return true;
            return false;
        }
        return Long.bitCount(state.freeMask(i)) >= pod.numGpu();
    }

    /** The GPU-share device plugin's default: best fit for a share, lowest free indices for whole GPUs. */
    long defaultGpus(int i, SimPod pod) {
        if (pod.cpuOnly()) return 0;
        if (pod.isShare()) return 1L << bestFitGpu(i, pod.milli());
        return lowest(state.freeMask(i), pod.numGpu());
    }

    int bestFitGpu(int i, int milli) {
        int best = -1, bestLeft = Integer.MAX_VALUE;
        for (int g = 0; g < cluster.gpus(i); g++) {
            int f = state.milliFree(i, g);
            if (f >= milli && f < bestLeft) { best = g; bestLeft = f; }
        }
        return best;
    }

    static long lowest(long freeMask, int k) {
        long out = 0, rest = freeMask;
        for (int j = 0; j < k; j++) {
            long bit = rest & -rest;
            out |= bit;
            rest &= ~bit;
        }
        return out;
    }

    long freeMilli(int i) {
        long m = 0;
        for (int g = 0; g < cluster.gpus(i); g++) m += state.milliFree(i, g);
        return m;
    }
}
