package dev.ace.binpacker.sim;

import dev.ace.binpacker.topology.GpuBoard;

/**
 * kube-scheduler baselines. {@code DEFAULT}: LeastAllocated + BalancedAllocation on CPU and
 * memory, GPUs invisible to scoring, first free GPU IDs. {@code BINPACK}: MostAllocated on CPU,
 * memory and GPU. {@code DEVICE_PLUGIN}: BINPACK nodes, then the NVIDIA device plugin's
 * best-effort set inside the node (100 points per NVLink bond, 50..10 for PIX..SYS).
 */
final class K8sPolicy extends Baseline {
    enum Mode { DEFAULT, BINPACK, DEVICE_PLUGIN }

    private final Mode mode;

    K8sPolicy(SimContext c, Mode mode) {
        super(c);
        this.mode = mode;
        this.randomTies = true; // these policies are upstream kube-scheduler's own scores
    }

    @Override
    double score(int node, SimPod pod) {
        mask = mode == Mode.DEVICE_PLUGIN ? bestEffort(node, pod) : firstFit(node, pod);
        double cpuCap = cluster.cpuCap(node), memCap = cluster.memCap(node);
        double cpuUsed = (cpuCap - state.cpuFree(node) + pod.cpuMilli()) / cpuCap;
        double memUsed = (c.memory().used(node) + pod.memMib()) / memCap;
        if (mode == Mode.DEFAULT) {
            long least = ((long) ((1 - cpuUsed) * 100) + (long) ((1 - memUsed) * 100)) / 2;
            long balanced = (long) ((1 - Math.abs(cpuUsed - memUsed) / 2) * 100);
            return least + balanced;
        }
        double gpuCap = 1000.0 * cluster.gpus(node);
        double gpuUsed = (gpuCap - freeMilli(node) + pod.gpuMilli()) / gpuCap;
        return ((long) (cpuUsed * 100) + (long) (Math.min(1, memUsed) * 100) + (long) (gpuUsed * 100)) / 3;
    }

    /** The device plugin without topology: the first GPUs that fit, by index. */
    private long firstFit(int node, SimPod pod) {
        if (pod.cpuOnly()) return 0;
        if (pod.isShare()) {
            for (int g = 0; g < cluster.gpus(node); g++) if (state.milliFree(node, g) >= pod.milli()) return 1L << g;
            return 0;
        }
        return lowest(state.freeMask(node), pod.numGpu());
    }

    private long bestEffort(int node, SimPod pod) {
        if (pod.cpuOnly()) return 0;
        if (pod.isShare()) return 1L << bestFitGpu(node, pod.milli());
        long free = state.freeMask(node);
        int k = pod.numGpu();
        if (k == 1 || Long.bitCount(free) == k) return lowest(free, k);
        GpuBoard b = state.node(node).board();
        long best = 0;
        int bestScore = -1;
        for (long sub = free; sub != 0; sub = (sub - 1) & free) {
            if (Long.bitCount(sub) != k) continue;
            int s = pairScore(b, sub);
            if (s > bestScore || (s == bestScore && sub < best)) { bestScore = s; best = sub; }
        }
        return best;
    }

    static int pairScore(GpuBoard b, long set) {
        int s = 0;
        int[] g = GpuBoard.indices(set);
        for (int i = 0; i < g.length; i++) {
            for (int j = i + 1; j < g.length; j++) {
                var l = b.link(g[i], g[j]);
                s += l.isNvlink() ? 100 * l.bonds() : switch (l.kind()) {
                    case PIX -> 50;
                    case PXB -> 40;
                    case PHB -> 30;
                    case NODE -> 20;
                    default -> 10;
                };
            }
        }
        return s;
    }

}
