package dev.ace.binpacker.truth;

import java.util.Locale;

/**
 * A difference between what the ledger believed and what the node reported.
 *
 * @param entryId the ledger entry concerned ({@code pod:<ns>/<name>} for a pod ACE never saw)
 * @param before  GPUs the ledger had charged (0 when none)
 * @param after   GPUs the node reports, or where a displaced entry moved (0 when it found no room)
 */
public record Drift(Kind kind, String entryId, String namespace, String podName, long before, long after) {
    /** Bounded: the label values of {@code ace_binding_drift_total{kind}}. */
    public enum Kind {
        /** An ACE reservation's pod holds other GPUs than ACE reserved (the kubelet chose differently). */
        MOVED,
        /** A TP pod holds a set that is not an NVLink clique while its board has cliques of that size. */
        NOT_A_CLIQUE,
        /** The node reports a pod the ledger has no entry for. */
        UNSEEN_POD,
        /** A pod holds a GPU the kubelet no longer offers (unhealthy device). */
        UNHEALTHY_GPU,
        /** An entry whose pod is not on the node yet lost its GPUs to pods that are: moved, or left without room. */
        DISPLACED,
        /**
         * On a bridged-pair board, a 1-GPU pod for which ACE chose the lone GPU of an already broken pair
         * got a GPU of a whole pair instead, breaking it (NVIDIA/k8s-device-plugin#1193).
         */
        SPLIT_PAIR;

        /** The metric label: {@code moved}, {@code not_a_clique}, ... */
        public String label() { return name().toLowerCase(Locale.ROOT); }
    }
}
