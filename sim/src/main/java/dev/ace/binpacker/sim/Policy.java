package dev.ace.binpacker.sim;

/** A placement policy under test: places one arriving pod or reports that it does not fit. */
public interface Policy {
    /** Places the pod and commits it through the ledger; false when it does not fit (never retried in protocol A). */
    boolean place(SimPod pod, String id);

    /** Releases a departed pod's reservation (protocol B). */
    void release(String id);

    /** The GPUs a placed pod holds. */
    java.util.Optional<dev.ace.binpacker.placement.Reservation> reservation(String id);

    /** Places with the pod's tensor-parallel degree and pool preference known (protocol B); baselines ignore both. */
    default boolean place(SimPod pod, String id, int tp, java.util.List<dev.ace.binpacker.placement.Pool> pools) {
        return place(pod, id);
    }

    /**
     * Places a multi-GPU batch pod (protocol B) with {@code tpWaiting} TP replicas in the queue; ACE applies the
     * webhook's batch-pool rule, baselines place it as any other pod.
     */
    default boolean placeBatch(SimPod pod, String id, java.util.List<dev.ace.binpacker.placement.Pool> pools, int tpWaiting) {
        return place(pod, id, 1, pools);
    }

    /**
     * The simulated time, in seconds, of the decisions that follow (protocol B sets it before each arrival and each
     * retry of its queue); ACE's starvation bound measures waits by it, baselines ignore it.
     */
    default void clock(double seconds) {}

    /** Policy names in the order reports list them. */
    java.util.List<String> NAMES = java.util.List.of("random", "k8s-default", "k8s-binpack", "best-fit", "dot-prod",
            "clustering", "packing", "fgd", "device-plugin", "hived", "ace");

    /** Variants reported beside the main rows: baselines with kube-scheduler's scores, ACE without parts of itself. */
    java.util.List<String> VARIANTS = java.util.List.of("random-kube", "best-fit-kube", "fgd-kube", "ace-nofrag", "ace-neutral", "ace-frag-equal", "ace-tp2-hgx", "ace-no-earmark", "ace-earmark-strict", "ace-no-bound",
            "ace-exact", "ace-mix-requests", "ace-gross", "ace-net-all", "ace-shares-before", "ace-shares-unseen", "ace-share-single", "ace-shapes-64", "ace-cpu-engine", "ace-memory-blind",
            "ace-batch-general-first", "ace-batch-inference-first", "ace-batch-general-slicing", "ace-batch-no-yield", "ace-batch-no-inference",
            "ace-batch-no-slicing");
}
