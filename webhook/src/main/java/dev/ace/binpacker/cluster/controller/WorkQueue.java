package dev.ace.binpacker.cluster.controller;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * A keyed work queue with the semantics of client-go's workqueue, in plain Java and non-blocking (the
 * leader's loop polls it): a key added while it waits is queued once; a key added while it is being
 * reconciled is queued again once that reconcile is {@link #done}; {@link #addAfter} makes a key ready
 * once the clock reaches its time (the earlier of two times wins, as client-go's delaying queue);
 * {@link #addRateLimited} does so after the key's own backoff, doubling per failure up to a cap, until
 * {@link #forget}. Stopped, it drops every key and refuses new ones: a replica that does not lead keeps
 * no work. Time comes from the injected monotonic clock only. Thread-safe.
 *
 * @param <K> the key
 */
public final class WorkQueue<K> {
    private final LongSupplier clock;
    private final long baseBackoffMillis;
    private final long maxBackoffMillis;
    private final ArrayDeque<K> ready = new ArrayDeque<>();
    /** Keys that need a reconcile: in {@link #ready}, or being reconciled and to be queued again when done. */
    private final Set<K> dirty = new HashSet<>();
    private final Set<K> processing = new HashSet<>();
    private final Map<K, Long> dueAt = new HashMap<>();
    private final PriorityQueue<Waiting<K>> waiting = new PriorityQueue<>();
    private final Map<K, Integer> failures = new HashMap<>();
    private long sequence;
    private boolean running;

    private record Waiting<K>(long at, long sequence, K key) implements Comparable<Waiting<K>> {
        @Override
        public int compareTo(Waiting<K> o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(sequence, o.sequence);
        }
    }

    public WorkQueue(LongSupplier monotonicMillis, long baseBackoffMillis, long maxBackoffMillis) {
        this.clock = monotonicMillis;
        this.baseBackoffMillis = baseBackoffMillis;
        this.maxBackoffMillis = maxBackoffMillis;
    }

    /** Accepts keys from now on. */
    public synchronized void start() { running = true; }

    /** Drops every key, waiting or ready, and every backoff; refuses keys until {@link #start}. */
    public synchronized void stop() {
        running = false;
        ready.clear();
        dirty.clear();
        dueAt.clear();
        waiting.clear();
        failures.clear();
    }

    public synchronized boolean running() { return running; }

    public synchronized void add(K key) {
        if (!running || !dirty.add(key)) return;
        if (!processing.contains(key)) ready.addLast(key);
    }

    public synchronized void addAfter(K key, long delayMillis) {
        if (!running) return;
        if (delayMillis <= 0) {
            add(key);
            return;
        }
        long at = clock.getAsLong() + delayMillis;
        Long old = dueAt.get(key);
        if (old != null && old <= at) return;
        dueAt.put(key, at);
        waiting.add(new Waiting<>(at, sequence++, key));
    }

    /** Ready again after this key's backoff: base, doubled for each failure since the last {@link #forget}. */
    public synchronized void addRateLimited(K key) {
        int n = failures.merge(key, 1, Integer::sum) - 1;
        addAfter(key, backoff(n));
    }

    private long backoff(int failuresBefore) {
        if (failuresBefore >= 62) return maxBackoffMillis;
        long d = baseBackoffMillis << Math.min(failuresBefore, 62);
        return d <= 0 || d > maxBackoffMillis ? maxBackoffMillis : d;
    }

    /** The key succeeded: its next failure backs off from the base again. */
    public synchronized void forget(K key) { failures.remove(key); }

    public synchronized int failures(K key) { return failures.getOrDefault(key, 0); }

    /** The next ready key, marked as being reconciled; empty when none is ready now. */
    public synchronized Optional<K> poll() {
        promote();
        K key = ready.pollFirst();
        if (key == null) return Optional.empty();
        dirty.remove(key);
        processing.add(key);
        return Optional.of(key);
    }

    /** The reconcile of {@code key} ended: if it was added meanwhile, it is queued again. */
    public synchronized void done(K key) {
        processing.remove(key);
        if (dirty.contains(key)) ready.addLast(key);
    }

    /** Keys ready now. */
    public synchronized int readyCount() {
        promote();
        return ready.size();
    }

    /** Millis until the earliest waiting key is due (0: ready now); empty when nothing waits. */
    public synchronized OptionalLong untilNextDue() {
        promote();
        if (!ready.isEmpty()) return OptionalLong.of(0);
        Waiting<K> w = waiting.peek();
        return w == null ? OptionalLong.empty() : OptionalLong.of(Math.max(0, w.at() - clock.getAsLong()));
    }

    /** Keys waiting for their time. */
    public synchronized int waitingCount() { return dueAt.size(); }

    private void promote() {
        long now = clock.getAsLong();
        while (!waiting.isEmpty() && waiting.peek().at() <= now) {
            Waiting<K> w = waiting.poll();
            Long at = dueAt.get(w.key());
            if (at == null || at != w.at()) continue; // superseded by an earlier time
            dueAt.remove(w.key());
            add(w.key());
        }
    }
}
