package dev.ace.binpacker.observability;

/**
 * Everything ACE counts, behind an interface so that pure code and unit tests run with {@link #NOOP}.
 * Label values are bounded enums or small fixed vocabularies: never a pod, namespace or node name.
 */
public interface Metrics {
    /** One admission request answered ({@code ace_admission_requests_total}, {@code ace_admission_duration_seconds}). */
    void admission(String webhook, String operation, String outcome, boolean dryRun, long nanos);

    /** One placement decision ({@code ace_placement_decisions_total}, {@code ace_placement_decision_seconds}). */
    void decision(String workloadClass, String result, String reason, long nanos);

    /** Pods waiting for a clique of size {@code tp} right now ({@code ace_pending_tp_demand}). */
    void pendingTpDemand(int tp, int waiting);

    /**
     * A lost race on the ledger ({@code ace_ledger_conflicts_total}): a compare-and-swap that lost to another
     * writer, a commit refused because another entry holds the GPUs, a pod carrying an entry tied to another pod.
     */
    void ledgerConflict();

    /** A pending reservation whose pod never appeared ({@code ace_reservations_expired_total}). */
    void reservationExpired();

    /**
     * A difference the node's report showed between the ledger and the GPUs pods really hold
     * ({@code ace_binding_drift_total{kind}}); {@code kind} is a {@code truth.Drift.Kind} label
     * ({@code moved}, {@code not_a_clique}, {@code split_pair}, {@code unseen_pod}, {@code unhealthy_gpu}, {@code displaced}),
     * once per finding: the leader does not count a difference again while it persists.
     */
    default void bindingDrift(String kind) {}

    /** Groups waiting for their GPUs by group size (pods per group), every size that had one at the last pass; others 0. */
    default void groupsWaiting(java.util.Map<Integer, Integer> bySize) {}

    /**
     * A pod ACE pinned that could not bind because its node is over-committed ({@code ace_pins_repaired_total{action}}):
     * {@code deleted} (controller-owned, re-created and decided again) or {@code reported} (an Event).
     */
    default void pinRepaired(String action) { }

    /** These metrics, or {@link #NOOP} for a request that is not to be counted (a replica's own warm-up review). */
    default Metrics counting(boolean counted) { return counted ? this : NOOP; }

    Metrics NOOP = new Metrics() {
        @Override public void admission(String webhook, String operation, String outcome, boolean dryRun, long nanos) {}
        @Override public void decision(String workloadClass, String result, String reason, long nanos) {}
        @Override public void pendingTpDemand(int tp, int waiting) {}
        @Override public void ledgerConflict() {}
        @Override public void reservationExpired() {}
    };
}
