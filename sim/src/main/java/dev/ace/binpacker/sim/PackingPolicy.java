package dev.ace.binpacker.sim;

/**
 * GPU packing as in the FGD authors' simulator: prefer GPUs already shared, then free GPUs on a
 * used node, then a free node; integer scores in three bands, ties at random.
 */
final class PackingPolicy extends Baseline {
    PackingPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        mask = defaultGpus(node, pod);
        if (pod.cpuOnly()) return 0;
        int n = cluster.gpus(node);
        int fullyFree = Long.bitCount(state.freeMask(node));
        if (fullyFree == n) return Math.max(100 / 3 - fullyFree, fullyFree);
        int wholeUsed = Long.bitCount(mask & state.freeMask(node));
        if (wholeUsed > 0) return Math.max(100 / 2 - wholeUsed, 100 / 3);
        long ratio = 0;
        long rest = mask;
        while (rest != 0) {
            int g = Long.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            ratio += state.milliFree(node, g) * 100L / 1000;
        }
        return Math.max(100 - ratio / 10, 100 / 2);
    }
}
