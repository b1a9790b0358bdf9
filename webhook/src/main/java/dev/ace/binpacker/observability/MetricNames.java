package dev.ace.binpacker.observability;

/** Prometheus names from DESIGN.md "Metrics" (Micrometer adds {@code _total} and {@code _seconds} suffixes itself). */
public final class MetricNames {
    private MetricNames() {}

    public static final String ADMISSION_REQUESTS = "ace_admission_requests";
    public static final String ADMISSION_DURATION = "ace_admission_duration";
    public static final String PLACEMENT_DECISIONS = "ace_placement_decisions";
    public static final String PLACEMENT_DECISION_DURATION = "ace_placement_decision";
    public static final String NVLINK_DOMAINS = "ace_nvlink_domains";
    public static final String GPUS = "ace_gpus";
    public static final String FRAGMENTATION_RATIO = "ace_fragmentation_ratio";
    public static final String PENDING_TP_DEMAND = "ace_pending_tp_demand";
    /** Groups waiting for all their GPUs, by group size bucket (pods per group, rounded up to a power of two, 64 for larger). */
    public static final String GROUPS_WAITING = "ace_groups_waiting";
    public static final String LEDGER_CONFLICTS = "ace_ledger_conflicts";
    public static final String RESERVATIONS_EXPIRED = "ace_reservations_expired";
    public static final String BINDING_DRIFT = "ace_binding_drift";
    public static final String PINS_REPAIRED = "ace_pins_repaired";
    public static final String PENDING_TP_OLDEST_WAIT = "ace_pending_tp_oldest_wait";
    public static final String READY = "ace_ready";
}
