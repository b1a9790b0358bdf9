package dev.ace.binpacker.cluster.controller;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Runs the reconciler on one thread: every interval, soon after any watch event (coalesced, at most one
 * pass queued), and when a key's requeue-after time comes ({@link Reconciler#untilNextDue}) if that is
 * sooner than the interval. Every replica checks its in-flight entries; the leader, once its informers
 * have synced, reconciles. A pass that throws is logged and the loop goes on: no exception ends it.
 */
public final class ControlLoop implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ControlLoop.class);

    static final long COALESCE_MILLIS = 100;

    private final Reconciler reconciler;
    private final Leadership leadership;
    private final BooleanSupplier synced;
    private final Duration interval;
    private final AtomicBoolean queued = new AtomicBoolean();
    /** Nanos at which a timer pass is scheduled already (Long.MAX_VALUE: none). */
    private final java.util.concurrent.atomic.AtomicLong timerAt = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ace-reconciler");
        t.setDaemon(true);
        return t;
    });

    public ControlLoop(Reconciler reconciler, Leadership leadership, BooleanSupplier synced, Duration interval) {
        this.reconciler = reconciler;
        this.leadership = leadership;
        this.synced = synced;
        this.interval = interval;
    }

    public void start() {
        thread.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks for a pass soon; the wakes of a burst of watch events (within {@link #COALESCE_MILLIS}) make one pass. */
    public void wake() {
        if (thread.isShutdown() || !queued.compareAndSet(false, true)) return;
        try {
            thread.schedule(() -> {
                queued.set(false);
                tick();
            }, COALESCE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            queued.set(false);
        }
    }

    void tick() {
        try {
            if (!synced.getAsBoolean()) return;
            reconciler.checkInFlight();
            reconciler.reconcile(leadership::leading);
            reconciler.untilNextDue().ifPresent(this::wakeIn);
        } catch (Throwable t) { // a task that throws would cancel the schedule: the loop outlives any failed pass
            LOG.error("reconcile pass failed; the next pass retries", t);
        }
    }

    /** A pass when the first waiting key is due, unless the interval's comes first or one is scheduled sooner already. */
    private void wakeIn(long millis) {
        if (millis >= interval.toMillis()) return;
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(millis, COALESCE_MILLIS));
        long cur = timerAt.get();
        if (cur <= at || !timerAt.compareAndSet(cur, at)) return;
        try {
            thread.schedule(() -> {
                timerAt.compareAndSet(at, Long.MAX_VALUE);
                tick();
            }, at - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            timerAt.compareAndSet(at, Long.MAX_VALUE);
        }
    }

    @Override
    public void close() { thread.shutdownNow(); }
}
