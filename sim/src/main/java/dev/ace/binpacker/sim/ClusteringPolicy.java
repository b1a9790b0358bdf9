package dev.ace.binpacker.sim;

import java.util.HashMap;
import java.util.Map;

/**
 * GPU clustering as in the FGD authors' simulator: pods with the same GPU request go together.
 * Bands: node holding only this request kind, node holding it among others, idle node, node with
 * other kinds; inside a band the fuller node wins. Ties at random.
 */
final class ClusteringPolicy extends Baseline {
    private final Map<Integer, Integer>[] kinds;

    @SuppressWarnings("unchecked")
    ClusteringPolicy(SimContext c) {
        super(c);
        kinds = new Map[c.cluster().size()];
        for (int i = 0; i < kinds.length; i++) kinds[i] = new HashMap<>();
    }

    private static int kind(SimPod pod) { return pod.numGpu() * 10000 + pod.milli(); }

    @Override
    double score(int node, SimPod pod) {
        mask = defaultGpus(node, pod);
        if (pod.cpuOnly()) return 0;
        long fill = 25 * (8000 - freeMilli(node)) / 8000;
        Map<Integer, Integer> k = kinds[node];
        if (k.getOrDefault(kind(pod), 0) > 0) return fill + (k.size() == 1 ? 75 : 50);
        return fill + (k.isEmpty() ? 25 : 0);
    }

    @Override
    void placed(int node, SimPod pod) {
        if (!pod.cpuOnly()) kinds[node].merge(kind(pod), 1, Integer::sum);
    }
}
