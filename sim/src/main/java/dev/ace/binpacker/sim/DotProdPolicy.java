package dev.ace.binpacker.sim;

/**
 * Dot-product (Tetris) as the FGD authors run it ({@code -DotProd 1000 -gpusel best -dimext merge -norm max} in
 * their {@code expected_run_scripts_0511.sh}; {@code dot_product_score.go}, {@code GenerateSchedulingMatchGroups}):
 * the node's free (CPU, GPU) vector with the GPU dimension merged into the node's total free milli-GPU, the pod's
 * (CPU, milli-GPU x GPUs) request, both divided by the largest node spec (128 CPUs, 8 GPUs), dotted and halved; the
 * score is {@code int(100 * (1 - product))}, so the node whose free resources align least with the request wins.
 * With the merged dimension the plugin names no GPU: Open-Gpu-Share's best fit chooses it (the fullest GPU a share
 * fits on, the lowest free indices for whole GPUs).
 */
final class DotProdPolicy extends Baseline {
    /** {@code MaxSpecCpu} and {@code MaxSpecGpu} of their {@code open-gpu-share/utils/const.go}: the norm "max". */
    static final double MAX_CPU_MILLI = 128_000, MAX_GPU_MILLI = 8_000;

    DotProdPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        mask = defaultGpus(node, pod);
        double nodeCpu = state.cpuFree(node) / MAX_CPU_MILLI, podCpu = pod.cpuMilli() / MAX_CPU_MILLI;
        double nodeGpu = freeMilli(node) / MAX_GPU_MILLI, podGpu = pod.gpuMilli() / MAX_GPU_MILLI;
        double product = nodeCpu * podCpu + nodeGpu * podGpu;
        return (long) (100 * (1 - product / 2));
    }
}
