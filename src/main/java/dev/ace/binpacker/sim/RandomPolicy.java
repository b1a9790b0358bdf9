package dev.ace.binpacker.sim;

/** Random-fit as the authors' RandomScore plugin: a random integer score 0..100 per feasible node. */
final class RandomPolicy extends Baseline {
    RandomPolicy(SimContext c) { super(c); }

    @Override
    double score(int node, SimPod pod) {
        mask = defaultGpus(node, pod);
        return c.rnd().nextInt(101);
    }
}
