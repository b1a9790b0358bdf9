package dev.ace.binpacker.sim;

/**
 * Random-fit as the FGD authors run it: their RandomScore plugin draws one node uniformly from the
 * nodes that pass the filters (PreScore) and scores it 100, every other node 0; with
 * {@code -gpusel random} a share goes to a uniformly drawn GPU that fits, whole GPUs to the lowest
 * free indices ({@code AllocateExclusiveGpuId}). The {@code random-kube} variant draws an integer
 * 0..100 per node beside kube-scheduler's default scores, random GPUs for whole requests too.
 */
final class RandomPolicy extends Baseline {
    RandomPolicy(SimContext c) { super(c); }

    @Override
    public boolean place(SimPod pod, String id) {
        if (kubeDefaults) return super.place(pod, id);
        int chosen = -1, feasible = 0;
        for (int i = 0; i < cluster.size(); i++) {
            if (feasible(i, pod) && c.rnd().nextInt(++feasible) == 0) chosen = i;
        }
        if (chosen < 0) return false;
        return commit(chosen, authorsGpus(chosen, pod), pod, id);
    }

    @Override
    double score(int node, SimPod pod) {
        mask = randomGpus(node, pod);
        return c.rnd().nextInt(101);
    }

    private long authorsGpus(int node, SimPod pod) {
        if (pod.cpuOnly()) return 0;
        if (!pod.isShare()) return lowest(state.freeMask(node), pod.numGpu());
        int pick = -1, fitting = 0;
        for (int g = 0; g < cluster.gpus(node); g++) {
            if (state.milliFree(node, g) >= pod.milli() && c.rnd().nextInt(++fitting) == 0) pick = g;
        }
        return 1L << pick;
    }

    private long randomGpus(int node, SimPod pod) {
        if (pod.cpuOnly()) return 0;
        long candidates = 0;
        for (int g = 0; g < cluster.gpus(node); g++) {
            if (state.milliFree(node, g) >= pod.milli()) candidates |= 1L << g;
        }
        long out = 0;
        for (int k = 0; k < pod.numGpu(); k++) {
            int pick = c.rnd().nextInt(Long.bitCount(candidates));
            long rest = candidates;
            for (int j = 0; j < pick; j++) rest &= rest - 1;
            long bit = rest & -rest;
            out |= bit;
            candidates &= ~bit;
        }
        return out;
    }
}
