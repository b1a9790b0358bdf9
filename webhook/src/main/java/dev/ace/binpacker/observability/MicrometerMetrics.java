package dev.ace.binpacker.observability;

import dev.ace.binpacker.placement.Pool;
import dev.ace.binpacker.placement.PoolStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** {@link Metrics} on Micrometer (scraped at {@code /q/metrics} on the management port). */
public final class MicrometerMetrics implements Metrics {
    private final MeterRegistry registry;
    private final Map<Integer, AtomicInteger> pending = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> groups = new ConcurrentHashMap<>();
    private final Counter conflicts;
    private final Counter expired;
    private final Timer decisionTimer;

    public MicrometerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.conflicts = Counter.builder(MetricNames.LEDGER_CONFLICTS)
                .description("Lost races on the ledger: compare-and-swap losses, refused commits, pods carrying another pod's reservation")
                .register(registry);
        this.expired = Counter.builder(MetricNames.RESERVATIONS_EXPIRED)
                .description("Pending reservations released because their pod never appeared (denied by another webhook, or never created)")
                .register(registry);
        // every kind at 0 from the start, so a rate() over a kind that never happened is 0, not absent
        for (dev.ace.binpacker.truth.Drift.Kind k : dev.ace.binpacker.truth.Drift.Kind.values()) drift(k.label());
        this.decisionTimer = Timer.builder(MetricNames.PLACEMENT_DECISION_DURATION)
                .description("Time the policy takes to decide one pod: classify, filter nodes, choose GPUs").register(registry);
        for (int tp : new int[] {2, 4, 8}) pendingTpDemand(tp, 0);
        groupsWaiting(Map.of());
        for (String action : new String[] {"deleted", "reported"}) pinsRepaired(action);
    }

    /** Capacity gauges, computed from {@code stats} at scrape time. */
    public void bindCapacity(Supplier<Map<Pool, PoolStats>> stats) {
        String domains = "NVLink domains by pool and state: clean (every GPU free), fragmented (some free), full (none free)";
        String gpus = "GPUs by pool and state: free or used (ACE's reservations and every other bound pod's GPU requests)";
        String ratio = "Share of free GPUs on NVLink boards that sit in fragmented domains: 0 all free GPUs in whole domains, 1 none";
        for (Pool p : Pool.values()) {
            String pool = p.label();
            gauge(MetricNames.NVLINK_DOMAINS, domains, stats, s -> s.get(p).cleanDomains(), "pool", pool, "state", "clean");
            gauge(MetricNames.NVLINK_DOMAINS, domains, stats, s -> s.get(p).fragmentedDomains(), "pool", pool, "state", "fragmented");
            gauge(MetricNames.NVLINK_DOMAINS, domains, stats, s -> s.get(p).fullDomains(), "pool", pool, "state", "full");
            gauge(MetricNames.GPUS, gpus, stats, s -> s.get(p).freeGpus(), "pool", pool, "state", "free");
            gauge(MetricNames.GPUS, gpus, stats, s -> s.get(p).gpus() - s.get(p).freeGpus(), "pool", pool, "state", "used");
            gauge(MetricNames.FRAGMENTATION_RATIO, ratio, stats, s -> s.get(p).fragmentationRatio(), "pool", pool);
        }
    }

    /** {@code ace_pending_tp_oldest_wait_seconds{tp}}: how long the oldest gated pod of each TP size has waited, at scrape time. */
    public void bindWaiting(Supplier<Map<Integer, Double>> oldestWaitSeconds) {
        for (int tp : new int[] {2, 4, 8}) {
            Gauge.builder(MetricNames.PENDING_TP_OLDEST_WAIT, oldestWaitSeconds, s -> s.get().getOrDefault(tp, 0.0))
                    .description("Seconds the oldest pod waiting behind the ace.dev/waiting-for-clique gate has waited, by TP size; 0 when none waits")
                    .baseUnit("seconds").tag("tp", Integer.toString(tp)).strongReference(true).register(registry);
        }
    }

    /** {@code ace_ready}: 1 when the readiness probe would answer UP (inventory loaded, informers synced), else 0. */
    public void bindReadiness(java.util.function.BooleanSupplier ready) {
        Gauge.builder(MetricNames.READY, ready, r -> r.getAsBoolean() ? 1 : 0)
                .description("1 when this replica is ready to answer admissions (inventory or informers loaded), else 0")
                .strongReference(true).register(registry);
    }

    private void gauge(String name, String help, Supplier<Map<Pool, PoolStats>> stats,
                       java.util.function.ToDoubleFunction<Map<Pool, PoolStats>> f, String... tags) {
        // Strong reference: Micrometer holds gauge objects weakly, and nothing else holds this supplier.
        Gauge.builder(name, stats, s -> f.applyAsDouble(s.get())).description(help).tags(tags).strongReference(true).register(registry);
    }

    @Override
    public void admission(String webhook, String operation, String outcome, boolean dryRun, long nanos) {
        Counter.builder(MetricNames.ADMISSION_REQUESTS)
                .description("AdmissionReviews answered, by webhook (mutate, validate, validate-workloads), operation, outcome and dry run")
                .tags("webhook", webhook, "operation", operation, "outcome", outcome, "dry_run", Boolean.toString(dryRun))
                .register(registry).increment();
        Timer.builder(MetricNames.ADMISSION_DURATION).description("Time to answer one AdmissionReview inside the webhook, by webhook")
                .tag("webhook", webhook).publishPercentileHistogram().register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void decision(String workloadClass, String result, String reason, long nanos) {
        Counter.builder(MetricNames.PLACEMENT_DECISIONS)
                .description("Placement decisions by workload class, result (placed, gated, sliced, denied...) and the reason behind it")
                .tags("class", workloadClass, "result", result, "reason", reason).register(registry).increment();
        decisionTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void groupsWaiting(Map<Integer, Integer> bySize) {
        Map<Integer, Integer> buckets = new java.util.TreeMap<>();
        for (int b = 2; b <= 64; b *= 2) buckets.put(b, 0);
        bySize.forEach((size, n) -> buckets.merge(bucket(size), n, Integer::sum));
        buckets.forEach((b, n) -> groups.computeIfAbsent(b, k -> {
            AtomicInteger v = new AtomicInteger();
            Gauge.builder(MetricNames.GROUPS_WAITING, v, AtomicInteger::get)
                    .description("Groups (LeaderWorkerSet replicas, JobSets, pod groups) whose ranks wait behind the gate for all their GPUs at once, by pods per group")
                    .tag("size", Integer.toString(k)).register(registry);
            return v;
        }).set(n));
    }

    /** Pods per group rounded up to a power of two, at most 64: a bounded label. */
    static int bucket(int size) {
        int b = 2;
        while (b < size && b < 64) b *= 2;
        return b;
    }

    @Override
    public void pendingTpDemand(int tp, int waiting) {
        pending.computeIfAbsent(tp, k -> {
            AtomicInteger v = new AtomicInteger();
            Gauge.builder(MetricNames.PENDING_TP_DEMAND, v, AtomicInteger::get)
                    .description("Pods waiting behind the ace.dev/waiting-for-clique gate for a clique of this TP size")
                    .tag("tp", Integer.toString(k)).register(registry);
            return v;
        }).set(waiting);
    }

    @Override
    public void ledgerConflict() { conflicts.increment(); }

    @Override
    public void reservationExpired() { expired.increment(); }

    @Override
    public void bindingDrift(String kind) { drift(kind).increment(); }

    private Counter drift(String kind) {
        return Counter.builder(MetricNames.BINDING_DRIFT).description("Differences between the ledger and the GPUs the node reports pods hold")
                .tag("kind", kind).register(registry);
    }

    @Override
    public void pinRepaired(String action) { pinsRepaired(action).increment(); }

    private Counter pinsRepaired(String action) {
        return Counter.builder(MetricNames.PINS_REPAIRED)
                .description("Pods ACE pinned that could not bind on their over-committed node: deleted (a controller re-creates them) or reported (an Event)")
                .tag("action", action).register(registry);
    }
}
