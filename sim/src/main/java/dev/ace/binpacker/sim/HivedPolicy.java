package dev.ace.binpacker.sim;

/**
 * HiveD's buddy cell allocation (Zhao et al., OSDI'20), per node: cells at levels GPU < pair <
 * half < node (aligned index ranges). A request of k GPUs takes a free cell of the smallest level
 * holding k, preferring a cell whose parent is already split (the lowest split level first), so
 * higher cells stay whole; a whole free node is the last resort. Shares take a 1-GPU cell, best fit
 * among GPUs already shared first. Deterministic: ties go to the lowest node index.
 */
final class HivedPolicy extends Baseline {
    HivedPolicy(SimContext c) { super(c); }

    @Override
    public boolean place(SimPod pod, String id) {
        int best = -1;
        long bestMask = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < cluster.size(); i++) {
            if (!feasible(i, pod)) continue;
            double s = score(i, pod);
            if (Double.isNaN(s) || s <= bestScore) continue;
            bestScore = s; best = i; bestMask = mask;
        }
        return best >= 0 && commit(best, bestMask, pod, id);
    }

    @Override
    double score(int node, SimPod pod) {
        if (pod.cpuOnly()) { mask = 0; return 0; }
        int n = cluster.gpus(node);
        long free = state.freeMask(node);
        if (pod.isShare()) {
            int g = bestFitGpu(node, pod.milli());
            if (state.milliFree(node, g) < 1000) { mask = 1L << g; return 1000 - (state.milliFree(node, g) - pod.milli()); }
        }
        int k = pod.isShare() ? 1 : pod.numGpu();
        int cell = 1;
        while (cell < k) cell <<= 1;
        if (cell > n) return Double.NaN;
        long all = n == 64 ? -1L : (1L << n) - 1;
        int bestLevel = Integer.MAX_VALUE;
        long bestCell = 0;
        for (int start = 0; start + cell <= n; start += cell) {
            long c = ((1L << cell) - 1) << start;
            if ((free & c) != c) continue;
            int level = cell;
            // climb while the enclosing buddy cell is still whole
            while (level < n) {
                int up = level << 1;
                long parent = up >= n ? all : ((1L << up) - 1) << (start / up * up);
                if ((free & parent) != parent) break;
                level = up;
            }
            if (level < bestLevel) { bestLevel = level; bestCell = c; }
        }
        if (bestCell == 0) return Double.NaN;
        mask = lowest(bestCell, k);
        // smaller whole level = a split cell lower down; a fully free node scores lowest
        return -bestLevel - ((free == all) ? 1000 : 0);
    }
}
