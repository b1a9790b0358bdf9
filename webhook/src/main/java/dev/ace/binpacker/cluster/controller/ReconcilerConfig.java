package dev.ace.binpacker.cluster.controller;

/**
 * The leader's timing, all measured with its own monotonic clock from when it first saw a thing.
 *
 * @param pendingTtlMillis       an untied entry whose pod never appeared is released after this long
 * @param absentGraceMillis      an entry tied to a pod this replica has not seen (informer lag), or to a pod
 *                               that does not carry it (an interrupted gate release), is released after this long
 * @param stuckGraceMillis       a pinned pod that cannot bind (its node is over-committed) is repaired after this long
 * @param emptyReportGraceMillis a node report offering no GPU at all (the device plugin restarting) is believed
 *                               only after this long; until then its health is that of the last report
 * @param tieDelayMillis         an untied entry whose pod has appeared is tied in the ledger once it is this old:
 *                               during a burst the admissions writing that node's object have moved on by then, and
 *                               nothing waits for the tie (every replica's pending cap sees the pod itself)
 * @param resyncMillis           every key is reconciled again this often whatever the events said (the level-triggered
 *                               safety net behind them, as controller-runtime's resync); events bring a key at once
 */
public record ReconcilerConfig(long pendingTtlMillis, long absentGraceMillis, long stuckGraceMillis, long emptyReportGraceMillis,
                               long tieDelayMillis, long resyncMillis) {
    public static final long EMPTY_REPORT_GRACE_MILLIS = 120_000;
    public static final long RESYNC_MILLIS = 60_000;

    public ReconcilerConfig(long pendingTtlMillis, long absentGraceMillis, long stuckGraceMillis, long emptyReportGraceMillis,
                            long tieDelayMillis) {
        this(pendingTtlMillis, absentGraceMillis, stuckGraceMillis, emptyReportGraceMillis, tieDelayMillis, RESYNC_MILLIS);
    }

    /** Ties at once. */
    public ReconcilerConfig(long pendingTtlMillis, long absentGraceMillis, long stuckGraceMillis, long emptyReportGraceMillis) {
        this(pendingTtlMillis, absentGraceMillis, stuckGraceMillis, emptyReportGraceMillis, 0);
    }

    public ReconcilerConfig(long pendingTtlMillis, long absentGraceMillis, long stuckGraceMillis) {
        this(pendingTtlMillis, absentGraceMillis, stuckGraceMillis, EMPTY_REPORT_GRACE_MILLIS);
    }
}
