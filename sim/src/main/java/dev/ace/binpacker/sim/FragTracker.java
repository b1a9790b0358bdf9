package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.ClusterState;

/**
 * Keeps every node's FGD fragmentation current as capacity changes, so the cluster figure after
 * each event costs one node's recomputation, not a full scan.
 */
final class FragTracker implements ClusterState.Listener {
    private final ClusterState state;
    private final SimCluster cluster;
    private final TargetWorkload target;
    private final double[] frag;
    private final long[] nodeMilli;
    private final int[] scratch = new int[64];
    private double totalFrag;
    private long freeMilli;

    FragTracker(ClusterState state, SimCluster cluster, TargetWorkload target) {
        this.state = state;
        this.cluster = cluster;
        this.target = target;
        this.frag = new double[cluster.size()];
        this.nodeMilli = new long[cluster.size()];
        for (int i = 0; i < cluster.size(); i++) {
            frag[i] = compute(i);
            totalFrag += frag[i];
            nodeMilli[i] = 1000L * cluster.gpus(i);
            freeMilli += nodeMilli[i];
        }
        state.addListener(this);
    }

    @Override
    public void nodeChanged(int i, long oldFree, long newFree) {
        double f = compute(i);
        totalFrag += f - frag[i];
        frag[i] = f;
        long milli = 0;
        for (int g = 0; g < cluster.gpus(i); g++) milli += state.milliFree(i, g);
        freeMilli += milli - nodeMilli[i];
        nodeMilli[i] = milli;
    }

    double nodeFrag(int i) { return frag[i]; }

    /** Node {@code i}'s fragmentation if its free CPU were {@code cpuLeft}, its GPUs as they are now. */
    double nodeFragWithCpu(int i, long cpuLeft) {
        int n = cluster.gpus(i);
        for (int g = 0; g < n; g++) scratch[g] = state.milliFree(i, g);
        return target.nodeFrag(scratch, n, cpuLeft, cluster.modelOf(i));
    }

    private double compute(int i) { return nodeFragWithCpu(i, state.cpuFree(i)); }

    /** Fragmented share of the free GPU milli, in %. */
    double fragRate() { return freeMilli <= 0 ? 0 : 100.0 * totalFrag / freeMilli; }
}
