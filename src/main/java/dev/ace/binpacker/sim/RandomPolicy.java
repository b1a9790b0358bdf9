package dev.ace.binpacker.sim;

/**
 * Random-fit as the authors run it: the RandomScore plugin (a random integer 0..100 per feasible
 * node) and random GPU selection inside the node.
 */
final class RandomPolicy extends Baseline {
    RandomPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        mask = randomGpus(node, pod);
        return c.rnd().nextInt(101);
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
