package dev.ace.binpacker.sim;

/**
 * Fragmentation Gradient Descent (Weng et al., ATC'23): place hypothetically, score the drop in the
 * node's fragmentation as the authors do, {@code int(sigmoid((before - after)/1000) * 100)}; for a
 * share every GPU that fits is tried and the first best kept. Highest score wins, ties at random.
 */
final class FgdPolicy extends Baseline {
    FgdPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        if (pod.cpuOnly()) {
            mask = 0;
            return cpuOnlyScore(c, node, pod.cpuMilli());
        }
        int n = cluster.gpus(node);
        for (int g = 0; g < n; g++) free[g] = state.milliFree(node, g);
        double before = c.frag().nodeFrag(node);
        long cpuAfter = state.cpuFree(node) - pod.cpuMilli();
        int model = cluster.modelOf(node);
        TargetWorkload t = c.target();
        if (pod.isShare()) {
            long best = Long.MIN_VALUE;
            for (int g = 0; g < n; g++) {
                int f = free[g];
                if (f < pod.milli() || tried(f, g)) continue;
                free[g] = f - pod.milli();
                double after = t.nodeFrag(free, n, cpuAfter, model);
                free[g] = f;
                long s = quantise(before - after);
                if (s > best) { best = s; mask = 1L << g; }
            }
            return best;
        }
        mask = defaultGpus(node, pod);
        long rest = mask;
        while (rest != 0) {
            int g = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            free[g] = 0;
        }
        return quantise(before - t.nodeFrag(free, n, cpuAfter, model));
    }

    /** GPUs with equal free milli score the same: each value is tried once, at its lowest index. */
    private boolean tried(int f, int g) {
        for (int h = 0; h < g; h++) if (free[h] == f) return true;
        return false;
    }

    /**
     * FGD's score of taking {@code cpuMilli} and no GPU on {@code node}: the fragmentation its free GPUs gain when
     * the CPU left no longer holds a target shape. The {@code ace} rows place CPU-only pods by it too
     * ({@link AcePolicy.CpuOnlyRule#FGD_SCORE}).
     */
    static long cpuOnlyScore(SimContext c, int node, long cpuMilli) {
        return quantise(c.frag().nodeFrag(node) - c.frag().nodeFragWithCpu(node, c.state().cpuFree(node) - cpuMilli));
    }

    static long quantise(double delta) {
        return (long) (100.0 / (1.0 + Math.exp(-delta / 1000.0)));
    }
}
