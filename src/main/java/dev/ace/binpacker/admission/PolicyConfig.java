package dev.ace.binpacker.admission;

/**
 * Tunables of the admission policy (mapped from {@code ace.*} configuration by the web layer).
 *
 * @param slicingTaintKey         taint key of slicing-pool nodes; quarantined pods get a toleration for it
 * @param embeddingMemoryMiB      default memory need of an embedding/reranker pod (smallest MIG profile of at least this)
 * @param interactiveMemoryMiB    default memory need of a 1-GPU notebook
 * @param batchWholeGpu           true: 1-GPU batch/evaluation pods get a whole-GPU MIG profile (7g.*) by default
 * @param reserveFree8Cliques     free 8-GPU cliques on the inference pool that multi-GPU batch jobs may not take
 */
public record PolicyConfig(String slicingTaintKey, long embeddingMemoryMiB, long interactiveMemoryMiB,
                           boolean batchWholeGpu, int reserveFree8Cliques) {
    public static PolicyConfig defaults() {
        return new PolicyConfig("ace.dev/pool", 10 * 1024, 10 * 1024, true, 1);
    }
}
