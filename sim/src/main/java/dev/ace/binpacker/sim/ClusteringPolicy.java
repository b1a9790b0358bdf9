package dev.ace.binpacker.sim;

import dev.ace.binpacker.placement.Reservation;
import java.util.HashMap;
import java.util.Map;

/**
 * GPU clustering as in the FGD authors' simulator ({@code gpu_clustering_score.go}): pods of the same GPU
 * affinity go together. The affinity is theirs ({@code GetGpuAffinityFromPodAnnotation}): every share is one kind
 * ({@code share-gpu}), whatever its milli-GPU, and whole-GPU pods are a kind per GPU count ({@code 2-gpu}). Bands:
 * node holding only this kind, node holding it among others, idle node, node with other kinds; inside a band the
 * fuller node wins (by total milli-GPU in use out of 8,000); CPU-only pods score 0 everywhere. Ties follow the
 * run's node order, as every scoring baseline's.
 */
final class ClusteringPolicy extends Baseline {
    private final Map<Integer, Integer>[] kinds;

    @SuppressWarnings("unchecked")
    ClusteringPolicy(SimContext c) {
        super(c);
        kinds = new Map[c.cluster().size()];
        for (int i = 0; i < kinds.length; i++) kinds[i] = new HashMap<>();
    }

    /** Their affinity tag as a number: 0 for {@code share-gpu} (one GPU, part of it), else the GPU count ({@code k-gpu}). */
    static int kind(int gpus, int milliPerGpu) { return gpus == 1 && milliPerGpu < 1000 ? 0 : gpus; }

    private static int kind(SimPod pod) { return kind(pod.numGpu(), pod.milli()); }

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

    /** The affinities of the pods on {@code node} now (a test's view). */
    java.util.Set<Integer> kindsOn(int node) { return java.util.Set.copyOf(kinds[node].keySet()); }

    /** A pod that left no longer counts in its node's kinds (their affinity is counted over the node's pods). */
    @Override
    void released(int node, Reservation r) {
        if (r.gpuMask() == 0) return; // CPU-only
        kinds[node].computeIfPresent(kind(Long.bitCount(r.gpuMask()), r.milliPerGpu()), (k, n) -> n > 1 ? n - 1 : null);
    }
}
