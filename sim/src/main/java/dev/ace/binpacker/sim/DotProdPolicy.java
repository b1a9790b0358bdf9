package dev.ace.binpacker.sim;

/**
 * Dot-product (Tetris) as in the FGD authors' simulator: for each GPU choice, the dot product of
 * the node's normalised free (CPU, GPU) vector with the pod's normalised request; the smaller the
 * product the higher the integer score. For a share every fitting GPU is tried.
 */
final class DotProdPolicy extends Baseline {
    DotProdPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        double cpuCap = cluster.cpuCap(node);
        double cpuFree = state.cpuFree(node) / cpuCap;
        double cpuReq = pod.cpuMilli() / cpuCap;
        if (!pod.isShare()) {
            mask = defaultGpus(node, pod);
            double gpuFree = pod.cpuOnly() ? 0 : Long.bitCount(state.freeMask(node)) / (double) cluster.gpus(node);
            double gpuReq = pod.cpuOnly() ? 0 : pod.numGpu() / (double) cluster.gpus(node);
            return (long) (100 * (1 - (cpuFree * cpuReq + gpuFree * gpuReq) / 2));
        }
        long best = -1;
        for (int g = 0; g < cluster.gpus(node); g++) {
            int f = state.milliFree(node, g);
            if (f < pod.milli()) continue;
            long s = (long) (100 * (1 - (cpuFree * cpuReq + f / 1000.0 * pod.milli() / 1000.0) / 2));
            if (s > best) { best = s; mask = 1L << g; }
        }
        return best;
    }
}
