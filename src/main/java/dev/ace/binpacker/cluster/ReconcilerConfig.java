package dev.ace.binpacker.cluster;

/**
 * The leader's timing, all measured with its own monotonic clock from when it first saw a thing.
 *
 * @param pendingTtlMillis       an untied entry whose pod never appeared is released after this long
 * @param absentGraceMillis      an entry tied to a pod this replica has not seen (informer lag), or to a pod
 *                               that does not carry it (an interrupted gate release), is released after this long
 * @param stuckGraceMillis       a pinned pod that cannot bind (its node is over-committed) is repaired after this long
 * @param emptyReportGraceMillis a node report offering no GPU at all (the device plugin restarting) is believed
 *                               only after this long; until then its health is that of the last report
 */
public record ReconcilerConfig(long pendingTtlMillis, long absentGraceMillis, long stuckGraceMillis, long emptyReportGraceMillis) {
    public static final long EMPTY_REPORT_GRACE_MILLIS = 120_000;
    public static final ReconcilerConfig DEFAULTS = new ReconcilerConfig(300_000, 30_000, 10_000, EMPTY_REPORT_GRACE_MILLIS);

    public ReconcilerConfig(long pendingTtlMillis, long absentGraceMillis, long stuckGraceMillis) {
        this(pendingTtlMillis, absentGraceMillis, stuckGraceMillis, EMPTY_REPORT_GRACE_MILLIS);
    }
}
