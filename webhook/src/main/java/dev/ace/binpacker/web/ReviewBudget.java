package dev.ace.binpacker.web;

import dev.ace.binpacker.admission.AdmissionEngine;
import dev.ace.binpacker.admission.AdmissionRequest;
import dev.ace.binpacker.admission.AdmissionResult;
import dev.ace.binpacker.cluster.AceConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Bounded work per review (issue 17). At most {@code ace.admission.max-in-flight} reviews are decided at
 * once, each on a thread of its own pool; the others queue for a slot. Whatever happens (a queue, a
 * ledger commit that hangs, a lock held long), a review is answered within {@code ace.admission.time-budget}
 * of its start: by its decision, or by {@link AdmissionEngine#overBudget} (deny in enforce), never by the
 * API server's timeout and its failurePolicy. A decision that finishes after its review was answered
 * gives back what it reserved ({@link AdmissionEngine#abandon}).
 */
@ApplicationScoped
public class ReviewBudget {
    @Inject
    AceConfig config;
    @Inject
    AdmissionEngine engine;

    private final java.util.concurrent.atomic.AtomicLong settled = new java.util.concurrent.atomic.AtomicLong();
    private volatile Semaphore slots;
    private volatile ExecutorService workers;

    private void start() {
        if (workers != null) return;
        synchronized (this) {
            if (workers != null) return;
            int n = Math.max(1, config.admission().maxInFlight());
            AtomicInteger count = new AtomicInteger();
            slots = new Semaphore(n, true);
            workers = Executors.newFixedThreadPool(n, r -> {
                Thread t = new Thread(r, "ace-review-" + count.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** The handler's answer, or the over-budget answer once {@code startNanos + budget} has passed. */
    AdmissionResult within(AdmissionRequest request, Function<AdmissionRequest, AdmissionResult> handler, long startNanos) {
        start();
        long budget = config.admission().timeBudget().toNanos();
        long left = budget - (System.nanoTime() - startNanos);
        boolean slot;
        try {
            slot = left > 0 && slots.tryAcquire(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            slot = false;
        }
        if (!slot && left <= 0) return engine.overBudget(request, "over the time budget of " + config.admission().timeBudget().toMillis() + " ms before a review slot was asked for");
        if (!slot) return engine.overBudget(request, "more than " + config.admission().maxInFlight() + " reviews in flight");
        CompletableFuture<AdmissionResult> f;
        try {
            f = CompletableFuture.supplyAsync(() -> handler.apply(request), workers);
        } catch (RuntimeException e) {
            slots.release();
            throw e;
        }
        f.whenComplete((r, e) -> slots.release());
        try {
            return f.get(Math.max(0, budget - (System.nanoTime() - startNanos)), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.whenComplete((r, ex) -> settle(request)); // runs now if it just finished, else when it does
            return engine.overBudget(request, "over the time budget of " + config.admission().timeBudget().toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.whenComplete((r, ex) -> settle(request));
            return engine.overBudget(request, "interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        }
    }

    private void settle(AdmissionRequest request) {
        try {
            engine.abandon(request);
        } finally {
            settled.incrementAndGet();
        }
    }

    /** Reviews answered over budget whose late decision has since finished and given back what it held. */
    long settled() { return settled.get(); }

    @PreDestroy
    void stop() {
        if (workers != null) workers.shutdownNow();
    }
}
