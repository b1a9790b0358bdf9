package dev.ace.binpacker.admission;

import dev.ace.binpacker.keys.AceKeys;
import dev.ace.binpacker.placement.BatchRule;

/**
 * Tunables of the admission policy (mapped from {@code ace.*} configuration by {@code cluster.AdmissionWiring}).
 *
 * @param slicingTaintKey         taint key of slicing-pool nodes; quarantined pods get a toleration for it
 * @param embeddingMemoryMiB      default memory need of an embedding/reranker pod (smallest MIG profile of at least this)
 * @param interactiveMemoryMiB    default memory need of a 1-GPU notebook
 * @param batchWholeGpu           true: 1-GPU batch/evaluation pods get a whole-GPU MIG profile (7g.*) by default
 * @param reserveFree8Cliques     free 8-GPU cliques on the inference pool that multi-GPU batch jobs may not take
 * @param maxPendingPerNamespace  reservations of one namespace that may wait for their pod at once; a new one past it is denied
 * @param batch                   where multi-GPU batch, interactive and unclassified pods go ({@link BatchRule}); its
 *                                reserve is {@code reserveFree8Cliques}
 */
public record PolicyConfig(String slicingTaintKey, long embeddingMemoryMiB, long interactiveMemoryMiB,
                           boolean batchWholeGpu, int reserveFree8Cliques, int maxPendingPerNamespace, BatchRule batch) {
    /**
     * In-cluster a reservation is pending only until the Pod informer sees its pod (milliseconds); a ReplicaSet creates
     * pods in slow-start batches, so 32 at once from one namespace is already a burst, and 32 x 8 GPUs a large fleet.
     */
    public static final int DEFAULT_MAX_PENDING_PER_NAMESPACE = 32;

    public PolicyConfig {
        batch = (batch == null ? BatchRule.defaults() : batch).withReserve(reserveFree8Cliques);
    }

    public PolicyConfig(String slicingTaintKey, long embeddingMemoryMiB, long interactiveMemoryMiB,
                        boolean batchWholeGpu, int reserveFree8Cliques, int maxPendingPerNamespace) {
        this(slicingTaintKey, embeddingMemoryMiB, interactiveMemoryMiB, batchWholeGpu, reserveFree8Cliques, maxPendingPerNamespace, null);
    }

    public PolicyConfig(String slicingTaintKey, long embeddingMemoryMiB, long interactiveMemoryMiB,
                        boolean batchWholeGpu, int reserveFree8Cliques) {
        this(slicingTaintKey, embeddingMemoryMiB, interactiveMemoryMiB, batchWholeGpu, reserveFree8Cliques,
                DEFAULT_MAX_PENDING_PER_NAMESPACE);
    }

    public static PolicyConfig defaults() {
        return new PolicyConfig(AceKeys.POOL, 10 * 1024, 10 * 1024, true, 1);
    }

    public PolicyConfig withMaxPendingPerNamespace(int max) {
        return new PolicyConfig(slicingTaintKey, embeddingMemoryMiB, interactiveMemoryMiB, batchWholeGpu, reserveFree8Cliques, max, batch);
    }

    /** This configuration with another batch-pool rule (its reserve stays {@code reserveFree8Cliques}). */
    public PolicyConfig withBatch(BatchRule rule) {
        return new PolicyConfig(slicingTaintKey, embeddingMemoryMiB, interactiveMemoryMiB, batchWholeGpu, reserveFree8Cliques,
                maxPendingPerNamespace, rule);
    }
}
