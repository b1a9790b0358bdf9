package dev.ace.binpacker.admission;

import dev.ace.binpacker.placement.BatchRule;

/**
 * Tunables of the admission policy (mapped from {@code ace.policy.*} configuration by {@code cluster.AdmissionWiring},
 * the one place that builds it: the defaults are the settings' own, {@code AceConfig.Policy}).
 *
 * @param slicingTaintKey         taint key of slicing-pool nodes; quarantined pods get a toleration for it
 * @param embeddingMemoryMiB      default memory need of an embedding/reranker pod (smallest MIG profile of at least this)
 * @param interactiveMemoryMiB    default memory need of a 1-GPU notebook
 * @param batchWholeGpu           true: 1-GPU batch/evaluation pods get a whole-GPU MIG profile (7g.*) by default
 * @param maxPendingPerNamespace  reservations of one namespace that may wait for their pod at once; a new one past it is denied
 * @param batch                   where multi-GPU batch, interactive and unclassified pods go ({@link BatchRule}), with the
 *                                free 8-GPU cliques of the inference pool that multi-GPU batch jobs may not take
 */
public record PolicyConfig(String slicingTaintKey, long embeddingMemoryMiB, long interactiveMemoryMiB,
                           boolean batchWholeGpu, int maxPendingPerNamespace, BatchRule batch) {
    public PolicyConfig {
        java.util.Objects.requireNonNull(batch, "batch");
    }
}
