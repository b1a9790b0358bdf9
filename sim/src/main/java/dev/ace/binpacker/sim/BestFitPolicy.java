package dev.ace.binpacker.sim;

/**
 * BestFit as in the FGD authors' simulator: 1 - [0.5 (cpuLeft - cpuReq)/128000 + 0.5 (gpuLeft -
 * gpuReq)/8000], scaled to an integer 0..100 (kube-scheduler scores are integers, which makes ties
 * common; ties are broken at random), best-fit GPU inside the node.
 */
final class BestFitPolicy extends Baseline {
    BestFitPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        mask = defaultGpus(node, pod);
        double s = 0.5 * (state.cpuFree(node) - pod.cpuMilli()) / 128000.0
                + 0.5 * (freeMilli(node) - pod.gpuMilli()) / 8000.0;
        return (long) ((1.0 - s) * 100);
    }
}
