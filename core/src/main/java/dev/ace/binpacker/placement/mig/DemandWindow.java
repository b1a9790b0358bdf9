package dev.ace.binpacker.placement.mig;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * MIG instances the pool's small pods wanted (running plus waiting, by profile), sampled over
 * time. The planner acts on what persisted: per profile the least wanted over the whole window, so a
 * burst shorter than the window changes no layout. Until the samples cover a whole window there is
 * no persisted demand at all.
 */
public final class DemandWindow {
    private record Sample(long at, Map<String, Integer> wanted) {}

    private final long windowSeconds;
    private final Deque<Sample> samples = new ArrayDeque<>();

    public DemandWindow(long windowSeconds) {
        if (windowSeconds < 0) throw new IllegalArgumentException("the demand window cannot be negative: " + windowSeconds);
        this.windowSeconds = windowSeconds;
    }

    /** Records what was wanted at {@code at} seconds; samples must come in time order. */
    public void record(long at, Map<String, Integer> wanted) {
        if (!samples.isEmpty() && at < samples.peekLast().at()) {
            throw new IllegalArgumentException("demand sample at " + at + " s is older than the last one at " + samples.peekLast().at() + " s");
        }
        for (var e : wanted.entrySet()) {
            if (e.getValue() < 0) throw new IllegalArgumentException("negative demand for " + e.getKey());
        }
        samples.addLast(new Sample(at, Map.copyOf(wanted)));
        // keep the newest sample at or before the window's start: it says what held at that start
        while (samples.size() > 1 && secondOldest().at() <= at - windowSeconds) samples.pollFirst();
    }

    /** Per profile the least wanted over the window ending at the last sample; empty until the window is covered. */
    public Optional<Map<String, Integer>> persisted() {
        if (samples.isEmpty()) return Optional.empty();
        long last = samples.peekLast().at();
        if (samples.peekFirst().at() > last - windowSeconds) return Optional.empty();
        Map<String, Integer> min = null;
        for (Sample s : samples) {
            if (min == null) {
                min = new TreeMap<>(s.wanted());
                continue;
            }
            for (var it = min.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                int v = Math.min(e.getValue(), s.wanted().getOrDefault(e.getKey(), 0));
                if (v == 0) it.remove();
                else e.setValue(v);
            }
        }
        min.values().removeIf(v -> v == 0);
        return Optional.of(Map.copyOf(min));
    }

    private Sample secondOldest() {
        var it = samples.iterator();
        it.next();
        return it.next();
    }
}
