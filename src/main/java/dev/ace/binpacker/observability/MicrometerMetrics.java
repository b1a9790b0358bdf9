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
    private final Counter conflicts;
    private final Counter expired;
    private final Timer decisionTimer;

    public MicrometerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.conflicts = Counter.builder(MetricNames.LEDGER_CONFLICTS).description("Lost races on the ledger: compare-and-swap losses, refused commits, copied reservations").register(registry);
        this.expired = Counter.builder(MetricNames.RESERVATIONS_EXPIRED).description("Pending reservations whose pod never appeared").register(registry);
        // every kind at 0 from the start, so a rate() over a kind that never happened is 0, not absent
        for (dev.ace.binpacker.truth.Drift.Kind k : dev.ace.binpacker.truth.Drift.Kind.values()) drift(k.label());
        this.decisionTimer = Timer.builder(MetricNames.PLACEMENT_DECISION_DURATION).description("Time to decide one placement").register(registry);
        for (int tp : new int[] {2, 4, 8}) pendingTpDemand(tp, 0);
        for (String action : new String[] {"deleted", "reported"}) registry.counter(MetricNames.PINS_REPAIRED, "action", action);
    }

    /** Capacity gauges, computed from {@code stats} at scrape time. */
    public void bindCapacity(Supplier<Map<Pool, PoolStats>> stats) {
        for (Pool p : Pool.values()) {
            String pool = p.label();
            gauge(MetricNames.NVLINK_DOMAINS, stats, s -> s.get(p).cleanDomains(), "pool", pool, "state", "clean");
            gauge(MetricNames.NVLINK_DOMAINS, stats, s -> s.get(p).fragmentedDomains(), "pool", pool, "state", "fragmented");
            gauge(MetricNames.NVLINK_DOMAINS, stats, s -> s.get(p).fullDomains(), "pool", pool, "state", "full");
            gauge(MetricNames.GPUS, stats, s -> s.get(p).freeGpus(), "pool", pool, "state", "free");
            gauge(MetricNames.GPUS, stats, s -> s.get(p).gpus() - s.get(p).freeGpus(), "pool", pool, "state", "used");
            gauge(MetricNames.FRAGMENTATION_RATIO, stats, s -> s.get(p).fragmentationRatio(), "pool", pool);
        }
    }

    private void gauge(String name, Supplier<Map<Pool, PoolStats>> stats, java.util.function.ToDoubleFunction<Map<Pool, PoolStats>> f, String... tags) {
        // Strong reference: Micrometer holds gauge objects weakly, and nothing else holds this supplier.
        Gauge.builder(name, stats, s -> f.applyAsDouble(s.get())).tags(tags).strongReference(true).register(registry);
    }

    @Override
    public void admission(String webhook, String operation, String outcome, boolean dryRun, long nanos) {
        registry.counter(MetricNames.ADMISSION_REQUESTS, "webhook", webhook, "operation", operation, "outcome", outcome,
                "dry_run", Boolean.toString(dryRun)).increment();
        Timer.builder(MetricNames.ADMISSION_DURATION).tag("webhook", webhook).publishPercentileHistogram()
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void decision(String workloadClass, String result, String reason, long nanos) {
        registry.counter(MetricNames.PLACEMENT_DECISIONS, "class", workloadClass, "result", result, "reason", reason).increment();
        decisionTimer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void pendingTpDemand(int tp, int waiting) {
        pending.computeIfAbsent(tp, k -> {
            AtomicInteger v = new AtomicInteger();
            Gauge.builder(MetricNames.PENDING_TP_DEMAND, v, AtomicInteger::get).tag("tp", Integer.toString(k)).register(registry);
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
    public void pinRepaired(String action) {
        registry.counter(MetricNames.PINS_REPAIRED, "action", action).increment();
    }
}
