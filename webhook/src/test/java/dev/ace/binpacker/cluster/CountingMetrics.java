package dev.ace.binpacker.cluster;

import dev.ace.binpacker.observability.Metrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** {@link Metrics} that counts what the ledger and the reconciler report, for assertions. */
final class CountingMetrics implements Metrics {
    final AtomicInteger conflicts = new AtomicInteger();
    final AtomicInteger expired = new AtomicInteger();
    final Map<String, AtomicInteger> repaired = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> drift = new ConcurrentHashMap<>();
    /** The groups waiting by size at the leader's last pass, and how many passes have published it. */
    volatile Map<Integer, Integer> groupsWaiting = Map.of();
    final AtomicInteger groupPasses = new AtomicInteger();

    @Override public void admission(String webhook, String operation, String outcome, boolean dryRun, long nanos) { }
    @Override public void decision(String workloadClass, String result, String reason, long nanos) { }
    @Override public void pendingTpDemand(int tp, int waiting) { }
    @Override public void ledgerConflict() { conflicts.incrementAndGet(); }
    @Override public void reservationExpired() { expired.incrementAndGet(); }
    @Override public void pinRepaired(String action) { repaired.computeIfAbsent(action, k -> new AtomicInteger()).incrementAndGet(); }
    @Override public void groupsWaiting(Map<Integer, Integer> bySize) {
        groupsWaiting = Map.copyOf(bySize);
        groupPasses.incrementAndGet();
    }
    @Override public void bindingDrift(String kind) { drift.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet(); }

    int repaired(String action) { return repaired.getOrDefault(action, new AtomicInteger()).get(); }

    int drift(String kind) { return drift.getOrDefault(kind, new AtomicInteger()).get(); }
}
