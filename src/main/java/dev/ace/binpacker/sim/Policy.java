package dev.ace.binpacker.sim;

/** A placement policy under test: places one arriving pod or reports that it does not fit. */
public interface Policy {
    /** Places the pod and commits it through the ledger; false when it does not fit (never retried in protocol A). */
    boolean place(SimPod pod, String id);

    /** Policy names in the order reports list them. */
    java.util.List<String> NAMES = java.util.List.of("random", "k8s-default", "k8s-binpack", "best-fit", "dot-prod",
            "clustering", "packing", "fgd", "device-plugin", "hived", "ace");
}
